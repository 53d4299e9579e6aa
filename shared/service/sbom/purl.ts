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

/**
 * Rewrites purl types old tools wrote before the purl spec named them: older syft releases wrote
 * `pkg:dotnet/Name@1.0` for NuGet packages, where the purl spec's type is `nuget` (what syft
 * writes today). Matching knows purl types by the spec, so the inventory keeps the spec's
 * spelling; the original file keeps the tool's. Any other purl is returned as written.
 */
export function normalizeLegacyPurl(raw: string): string {
  const parsed = parsePurl(raw);
  if (parsed?.type !== 'dotnet') return raw;
  try {
    return new PackageURL(
      'nuget',
      parsed.namespace,
      parsed.name,
      parsed.version,
      parsed.qualifiers,
      parsed.subpath,
    ).toString();
  } catch {
    return raw;
  }
}
