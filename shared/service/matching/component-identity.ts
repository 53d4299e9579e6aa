/**
 * How an SBOM component is tied to ecosystem packages, strongest evidence first:
 * its purl; else its CPEs (only with corroborating evidence); else, when it has
 * neither, its name and version (only when they point at a single ecosystem).
 */
import type { SbomComponent } from '../sbom/model';
import { parsePurl } from '../sbom/purl';
import { trimTrailing } from '../text';
import { parseCpe } from './cpe';
import { ECOSYSTEMS, ecosystemForPurl, type Ecosystem } from './ecosystems';
import type { MatchConfidence } from './model';
import { namespaceWords, normalisePackageName } from './package-name';

export type Candidate = {
  ecosystem: Ecosystem;
  name: string;
  key: string;
  version: string | undefined;
  /** Distro release from the purl `distro` qualifier (Debian "11", Ubuntu "22.04", Alpine "v3.20"). */
  release: string | null;
  /** Packagist repository from the purl `repository_url` qualifier. */
  repository: string | null;
  confidence: MatchConfidence;
  evidence: { kind: 'purl' | 'cpe' | 'name'; value: string };
};

/** What the candidate lookups need from the index. */
export type PackageLookup = {
  hasPackage(key: string): boolean;
  keysWithShortName(shortName: string): readonly string[];
};

export function packageKey(ecosystem: Ecosystem, name: string): string {
  return `${ecosystem}\u0000${normalisePackageName(ecosystem, name)}`;
}

export function splitPackageKey(key: string): { ecosystem: Ecosystem; name: string } {
  const cut = key.indexOf('\u0000');
  return { ecosystem: key.slice(0, cut) as Ecosystem, name: key.slice(cut + 1) }; // keys are only built by packageKey
}

const DISTROS: readonly Ecosystem[] = ['Debian', 'Ubuntu', 'Alpine', 'Wolfi'];
/** Component types that name a platform or an artefact rather than a package. */
const NOT_PACKAGES = new Set([
  'operating-system',
  'file',
  'container',
  'device',
  'firmware',
  'data',
  'platform',
  'machine-learning-model',
]);
const DEBIAN_CODENAMES: Record<string, string> = {
  jessie: '8',
  stretch: '9',
  buster: '10',
  bullseye: '11',
  bookworm: '12',
  trixie: '13',
  forky: '14',
};

/** CPE target_sw values (NVD usage) that name a package ecosystem. */
const TARGET_SW: Record<string, Ecosystem> = {
  'node.js': 'npm',
  nodejs: 'npm',
  node: 'npm',
  npm: 'npm',
  python: 'PyPI',
  pypi: 'PyPI',
  ruby: 'RubyGems',
  rails: 'RubyGems',
  ruby_on_rails: 'RubyGems',
  rubygems: 'RubyGems',
  rust: 'crates.io',
  cargo: 'crates.io',
  go: 'Go',
  golang: 'Go',
  '.net': 'NuGet',
  'asp.net': 'NuGet',
  nuget: 'NuGet',
  php: 'Packagist',
  composer: 'Packagist',
  java: 'Maven',
  maven: 'Maven',
  dart: 'Pub',
  flutter: 'Pub',
  elixir: 'Hex',
  erlang: 'Hex',
};

export type Identity = { mapped: boolean; candidates: Candidate[] };

export function identify(component: SbomComponent, lookup: PackageLookup): Identity {
  if (component.purl !== undefined) {
    const candidate = fromPurl(component, component.purl);
    if (candidate) return { mapped: true, candidates: [candidate] };
  }
  if (component.cpes.length > 0) {
    const candidates = fromCpes(component, lookup);
    return { mapped: candidates.length > 0, candidates };
  }
  if (component.purl === undefined) {
    const candidates = fromName(component, lookup);
    return { mapped: candidates.length > 0, candidates };
  }
  return { mapped: false, candidates: [] };
}

function fromPurl(component: SbomComponent, raw: string): Candidate | null {
  const purl = parsePurl(raw);
  if (!purl) return null;
  const ecosystem = ecosystemForPurl(purl.type, purl.namespace);
  if (!ecosystem) return null;
  const ns = purl.namespace;
  const qualifiers = purl.qualifiers ?? {};
  let name: string;
  let version = purl.version ?? component.version;
  switch (ecosystem) {
    case 'Maven':
      if (!ns) return null;
      name = `${ns}:${purl.name}`;
      break;
    case 'npm':
    case 'Go':
    case 'Packagist':
      name = ns ? `${ns}/${purl.name}` : purl.name;
      break;
    case 'Debian':
    case 'Ubuntu':
    case 'Alpine':
    case 'Wolfi': {
      // Distro advisories are keyed by source package; syft records it as `upstream=name[@version]`.
      const [upstreamName, upstreamVersion] = (qualifiers.upstream ?? '').split('@');
      name = upstreamName || purl.name;
      if (upstreamName && upstreamVersion) version = upstreamVersion;
      break;
    }
    default:
      name = purl.name;
  }
  return {
    ecosystem,
    name,
    key: packageKey(ecosystem, name),
    version,
    release: distroRelease(ecosystem, qualifiers.distro),
    repository: qualifiers.repository_url === undefined ? null : trimTrailing(qualifiers.repository_url, '/'),
    confidence: 'exact',
    evidence: { kind: 'purl', value: raw },
  };
}

function distroRelease(ecosystem: Ecosystem, distro: string | undefined): string | null {
  if (!distro) return null;
  const value = distro.toLowerCase();
  if (ecosystem === 'Debian') {
    const numeric = /(\d+)/.exec(value)?.[1];
    return numeric ?? DEBIAN_CODENAMES[value.replace(/^debian-/, '')] ?? null;
  }
  // Unanchored `\d+\.\d+` retries every digit run at each of its positions (quadratic); a leading
  // non-digit (or the start) pins each try to the start of a run.
  if (ecosystem === 'Ubuntu') return /(?:^|\D)(\d+\.\d+)/.exec(value)?.[1] ?? null;
  if (ecosystem === 'Alpine') {
    const m = /(?:^|\D)(\d+)\.(\d+)/.exec(value);
    return m ? `v${m[1]}.${m[2]}` : null;
  }
  return null;
}

function fromCpes(component: SbomComponent, lookup: PackageLookup): Candidate[] {
  const out = new Map<string, Candidate>();
  for (const raw of component.cpes) {
    const cpe = parseCpe(raw);
    if (!cpe || cpe.part !== 'a') continue;
    const pinned = cpe.targetSw === undefined ? undefined : TARGET_SW[cpe.targetSw];
    const vendorWords = cpe.vendor
      .replace(/_project$/, '')
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    for (const product of new Set([cpe.product, cpe.product.replace(/_/g, '-')])) {
      for (const key of lookup.keysWithShortName(product)) {
        const { ecosystem, name } = splitPackageKey(key);
        if (DISTROS.includes(ecosystem) || out.has(key)) continue;
        // Evidence rule: target_sw names the ecosystem, or the vendor appears in the package's namespace
        // (Maven group, Go module path, npm scope, Packagist vendor). A bare product name is not enough:
        // cpe:/a:openssl:openssl is the C library, not the Rust crate `openssl`.
        const corroborated =
          pinned !== undefined ? pinned === ecosystem : namespaceWords(name).some((w) => vendorWords.includes(w));
        if (!corroborated) continue;
        out.set(key, {
          ecosystem,
          name,
          key,
          version: cpe.version ?? component.version,
          release: null,
          repository: null,
          confidence: 'high',
          evidence: { kind: 'cpe', value: raw },
        });
      }
    }
  }
  return [...out.values()];
}

function fromName(component: SbomComponent, lookup: PackageLookup): Candidate[] {
  if (component.version === undefined || (component.type !== undefined && NOT_PACKAGES.has(component.type))) return [];
  const version = component.version;
  const grouped =
    component.group === undefined
      ? []
      : [`${component.group}:${component.name}`, `${component.group}/${component.name}`];
  for (const names of [grouped, [component.name]]) {
    const hits: Candidate[] = [];
    for (const ecosystem of ECOSYSTEMS) {
      if (DISTROS.includes(ecosystem)) continue;
      for (const name of names) {
        const key = packageKey(ecosystem, name);
        if (lookup.hasPackage(key) && !hits.some((h) => h.key === key)) {
          hits.push({
            ecosystem,
            name,
            key,
            version,
            release: null,
            repository: null,
            confidence: 'low',
            evidence: { kind: 'name', value: `${name}@${version}` },
          });
        }
      }
    }
    // Only an unambiguous name counts: "requests" in both PyPI and npm tells us nothing.
    if (new Set(hits.map((h) => h.ecosystem)).size === 1) return hits;
    if (hits.length > 0) return [];
  }
  return [];
}
