/** What every ported matching rule needs: loose reads of a parsed JSON document, purl parsing, the detected package. */
import { PackageURL } from 'packageurl-js';

export type Json = Record<string, unknown>;
export const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function parsePurl(s: string): PackageURL | null {
  try {
    return PackageURL.fromString(s);
  } catch {
    return null;
  }
}
export function qualifiers(p: PackageURL): Record<string, string> {
  return p.qualifiers ?? {};
}

/** A detected vulnerable package as the scanners see it. */
export interface Detected {
  vulnerabilityId: string;
  /** The package's purl as the scanner reports it. */
  purl: string;
  /** bom-ref of the package in the scanned CycloneDX SBOM (Trivy `PkgIdentifier.BOMRef`). */
  bomRef?: string;
}
