/**
 * SemVer 2.0 precedence (OSV `SEMVER` ranges; npm, crates.io, Go, Hex, Pub).
 * Tolerant of what real data carries: a `v` prefix, missing minor/patch
 * ("1.2" = "1.2.0"), leading zeros. Build metadata never affects precedence
 * (SemVer 2.0 §10), which is also why Go's `+incompatible` compares as the
 * plain version.
 */
import semver from 'semver';
import { compareDigits, compareStrings, sign, type VersionComparator } from './comparator';

const SEMVER_LIKE = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/;

export type LooseSemver = { version: semver.SemVer; build: string[] };

export function parseLooseSemver(raw: string): LooseSemver | null {
  const match = SEMVER_LIKE.exec(raw.trim());
  if (!match) return null;
  const [, major = '0', minor = '0', patch = '0', pre, build] = match;
  const canonical = `${Number(major)}.${Number(minor)}.${Number(patch)}${pre ? `-${pre}` : ''}`;
  // `loose` accepts numeric pre-release identifiers with leading zeros ("rc.01").
  const version = semver.parse(canonical, { loose: true });
  return version ? { version, build: build ? build.split('.') : [] } : null;
}

export const semverComparator: VersionComparator = {
  scheme: 'semver',
  compare(a, b) {
    const x = parseLooseSemver(a);
    const y = parseLooseSemver(b);
    return x && y ? semver.compare(x.version, y.version) : null;
  },
};

/** Go: SemVer with a `v` prefix on modules and `go1.x` on the toolchain/stdlib. */
export const goComparator: VersionComparator = {
  scheme: 'go',
  compare(a, b) {
    return semverComparator.compare(stripGo(a), stripGo(b));
  },
};

function stripGo(version: string): string {
  return version.trim().replace(/^go(?=\d)/, '');
}

/**
 * Dart pub_semver: SemVer precedence, but build identifiers order too
 * (1.0.0+1 > 1.0.0), compared like pre-release identifiers.
 */
export const pubComparator: VersionComparator = {
  scheme: 'pub',
  compare(a, b) {
    const x = parseLooseSemver(a);
    const y = parseLooseSemver(b);
    if (!x || !y) return null;
    const base = semver.compare(x.version, y.version);
    if (base !== 0) return base;
    if (x.build.length === 0 || y.build.length === 0) return sign(x.build.length - y.build.length);
    return compareIdentifiers(x.build, y.build);
  },
};

/** SemVer 2 §11 precedence of dot-separated identifiers (numeric < alphanumeric, shorter < longer); NuGet uses the same rule. */
export function compareIdentifiers(x: string[], y: string[]): number {
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i];
    const q = y[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    const pNum = /^\d+$/.test(p);
    const qNum = /^\d+$/.test(q);
    const c = pNum && qNum ? compareDigits(p, q) : pNum ? -1 : qNum ? 1 : compareStrings(p, q);
    if (c !== 0) return c;
  }
  return 0;
}
