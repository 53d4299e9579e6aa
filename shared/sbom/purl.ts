import { PackageURL } from 'packageurl-js';

/**
 * Parses a purl, or returns undefined for the malformed ones real SBOMs carry
 * (syft writes `pkg:/` for unidentified files). packageurl-js applies the
 * per-type normalisation of the purl spec (lower-case npm/pypi names...).
 */
export function parsePurl(raw: string): PackageURL | undefined {
  try {
    return PackageURL.fromString(raw.trim());
  } catch {
    return undefined;
  }
}

/** Canonical string form, used to de-duplicate components that differ only in purl spelling. */
export function canonicalPurl(raw: string): string | undefined {
  const parsed = parsePurl(raw);
  if (!parsed) return undefined;
  try {
    return parsed.toString();
  } catch {
    return undefined;
  }
}
