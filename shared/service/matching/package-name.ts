/**
 * Package-name keys shared by the advisory index and SBOM components, so the
 * same package spelled by a scanner and by an advisory database meets.
 */
import type { Ecosystem } from './ecosystems';

export function normalisePackageName(ecosystem: Ecosystem, name: string): string {
  const trimmed = name.trim();
  switch (ecosystem) {
    // PEP 503: lower case, runs of -, _ and . are one "-".
    case 'PyPI':
      return trimmed.toLowerCase().replace(/[-_.]+/g, '-');
    // Module paths are case-sensitive (the proxy escapes upper case); keep as published.
    case 'Go':
      return trimmed;
    // crates.io treats - and _ as the same name, case-insensitively.
    case 'crates.io':
      return trimmed.toLowerCase().replace(/_/g, '-');
    // npm (@scope/name), Maven (group:artifact), NuGet, Packagist (vendor/package), RubyGems, Pub, Hex
    // and distro packages are matched case-insensitively: registries refuse names that differ only in case.
    default:
      return trimmed.toLowerCase();
  }
}

/** The last segment of a namespaced name (Maven artifactId, Go path element, npm/Packagist package). */
export function shortName(normalisedName: string): string {
  const cut = Math.max(normalisedName.lastIndexOf('/'), normalisedName.lastIndexOf(':'));
  return cut === -1 ? normalisedName : normalisedName.slice(cut + 1);
}

/** The namespace part of a namespaced name, split into words (org.apache.logging -> org, apache, logging). */
export function namespaceWords(normalisedName: string): string[] {
  const cut = Math.max(normalisedName.lastIndexOf('/'), normalisedName.lastIndexOf(':'));
  if (cut === -1) return [];
  return normalisedName
    .slice(0, cut)
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}
