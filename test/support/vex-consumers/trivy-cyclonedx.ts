/** Trivy's CycloneDX VEX matching (aquasecurity/trivy pkg/vex/cyclonedx.go) and cyclonedx-go's BOM-Link parser. */
import { arr, obj, parsePurl, str, type Detected } from './common';

/** cyclonedx-go `ParseBOMLink`: its regex (lower-case UUID), then `url.QueryUnescape` of the ref. */
export function parseBomLink(s: string): { serialNumber: string; version: number; reference: string } | null {
  const m =
    /^urn:cdx:([\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12})\/([1-9]\d*)(?:#([\da-zA-Z\-._~%!$&'()*+,;=:@/?]+))?$/.exec(
      s,
    );
  if (m === null) return null;
  let reference = '';
  if (m[3] !== undefined) {
    try {
      reference = decodeURIComponent(m[3].replace(/\+/g, ' ')); // QueryUnescape: '+' is a space
    } catch {
      return null;
    }
  }
  return { serialNumber: `urn:uuid:${m[1]!}`, version: Number(m[2]), reference };
}

/** trivy pkg/fanal/types `PkgIdentifier.Match`: the string is the package's bom-ref or (re-encoded) purl. */
function pkgIdentifierMatch(pkg: Detected, s: string): boolean {
  let target = s;
  if (s.startsWith('pkg:')) target = parsePurl(s)?.toString() ?? s;
  return pkg.bomRef === target || parsePurl(pkg.purl)?.toString() === target;
}

/** cdxStatus: CycloneDX analysis state → Trivy finding status. */
function cdxStatus(state: string | undefined): string {
  switch (state) {
    case 'resolved':
    case 'resolved_with_pedigree':
      return 'fixed';
    case 'exploitable':
      return 'affected';
    case 'in_triage':
      return 'under_investigation';
    case 'false_positive':
    case 'not_affected':
      return 'not_affected';
    default:
      return 'unknown';
  }
}

/**
 * Trivy `CycloneDX.Filter`: the FIRST vulnerability entry whose id equals the detected id
 * (`lo.Find`), then each `affects[].ref` must be a BOM-Link whose serial number and version equal
 * the scanned SBOM's, and name the package; not_affected / fixed hide the finding.
 * Returns the status that hid it, or null when the finding stays.
 */
export function trivyCycloneDx(
  vex: unknown,
  sbom: { serialNumber: string; version: number },
  pkg: Detected,
): string | null {
  const statement = arr(obj(vex).vulnerabilities)
    .map(obj)
    .find((v) => v.id === pkg.vulnerabilityId);
  if (statement === undefined) return null;
  const status = cdxStatus(str(obj(statement.analysis).state));
  for (const affect of arr(statement.affects).map(obj)) {
    const link = parseBomLink(str(affect.ref) ?? '');
    if (link === null) continue; // "Unable to parse BOM-Link"
    if (sbom.serialNumber !== link.serialNumber || sbom.version !== link.version) continue; // "URN doesn't match with SBOM"
    if (pkgIdentifierMatch(pkg, link.reference) && (status === 'not_affected' || status === 'fixed')) return status;
  }
  return null;
}
