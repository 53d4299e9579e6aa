/**
 * OSV ecosystems the matcher can evaluate and how purl types map onto them (each
 * one's version ordering: ./version-schemes.ts).
 */

export const ECOSYSTEMS = [
  'npm',
  'PyPI',
  'Maven',
  'Go',
  'crates.io',
  'RubyGems',
  'NuGet',
  'Packagist',
  'Pub',
  'Hex',
  'Debian',
  'Ubuntu',
  'Alpine',
  'Wolfi',
] as const;
export type Ecosystem = (typeof ECOSYSTEMS)[number];

const BY_LOWER_NAME = new Map<string, Ecosystem>(ECOSYSTEMS.map((e) => [e.toLowerCase(), e]));

/** purl type (https://github.com/package-url/purl-spec PURL-TYPES) -> OSV ecosystem. deb/apk depend on the namespace. */
const PURL_TYPES: Record<string, Ecosystem> = {
  npm: 'npm',
  pypi: 'PyPI',
  maven: 'Maven',
  golang: 'Go',
  cargo: 'crates.io',
  gem: 'RubyGems',
  nuget: 'NuGet',
  composer: 'Packagist',
  pub: 'Pub',
  hex: 'Hex',
};

export function ecosystemForPurl(type: string, namespace: string | undefined): Ecosystem | null {
  const direct = PURL_TYPES[type.toLowerCase()];
  if (direct) return direct;
  const ns = namespace?.toLowerCase();
  if (type === 'deb') return ns === 'ubuntu' ? 'Ubuntu' : ns === 'debian' || ns === undefined ? 'Debian' : null;
  // syft before 0.70 wrote `pkg:alpine/...`; `pkg:apk/wolfi/...` is Wolfi.
  if (type === 'apk' || type === 'alpine')
    return ns === 'wolfi' ? 'Wolfi' : ns === 'alpine' || ns === undefined ? 'Alpine' : null;
  return null;
}

/**
 * Splits an OSV ecosystem string into the ecosystem and its suffix: the distro
 * release for `Debian:11`, `Alpine:v3.20`, `Ubuntu:22.04:LTS`, or a repository
 * URL for `Packagist:https://...`. Unknown ecosystems give null.
 */
export function splitEcosystem(osvEcosystem: string): { ecosystem: Ecosystem; suffix: string | null } | null {
  const colon = osvEcosystem.indexOf(':');
  const base = colon === -1 ? osvEcosystem : osvEcosystem.slice(0, colon);
  const ecosystem = BY_LOWER_NAME.get(base.trim().toLowerCase());
  if (!ecosystem) return null;
  const suffix = colon === -1 ? '' : osvEcosystem.slice(colon + 1).trim();
  return { ecosystem, suffix: suffix === '' ? null : suffix };
}
