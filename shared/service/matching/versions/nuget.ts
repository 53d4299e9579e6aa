/**
 * NuGet versions (NuGetVersion): up to four numeric parts, missing parts are 0
 * ("1.0" = "1.0.0" = "1.0.0.0"), leading zeros ignored; SemVer 2 pre-release
 * labels compared case-insensitively (numeric labels numerically and below
 * alphanumeric ones, other labels ordinally); build metadata ignored.
 */
import { compareDigits, type VersionComparator } from './comparator';
import { compareIdentifiers } from './semver-scheme';

const NUGET_VERSION =
  /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]*)?$/;

type NuGetVersion = { parts: string[]; labels: string[] };

export function parseNuGetVersion(raw: string): NuGetVersion | null {
  const match = NUGET_VERSION.exec(raw.trim());
  if (!match) return null;
  const [, p1 = '0', p2 = '0', p3 = '0', p4 = '0', pre] = match;
  return { parts: [p1, p2, p3, p4], labels: pre ? pre.toUpperCase().split('.') : [] };
}

export function compareNuGetVersions(a: string, b: string): number | null {
  const x = parseNuGetVersion(a);
  const y = parseNuGetVersion(b);
  if (!x || !y) return null;
  for (let i = 0; i < 4; i++) {
    const c = compareDigits(x.parts[i] ?? '0', y.parts[i] ?? '0');
    if (c !== 0) return c;
  }
  if (x.labels.length === 0 || y.labels.length === 0)
    return x.labels.length === y.labels.length ? 0 : x.labels.length === 0 ? 1 : -1;
  return compareIdentifiers(x.labels, y.labels);
}

export const nugetComparator: VersionComparator = { scheme: 'nuget', compare: compareNuGetVersions };
