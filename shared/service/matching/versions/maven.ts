/**
 * Maven version order, following the POM reference "Version Order Specification"
 * (https://maven.apache.org/pom.html#version-order-specification), i.e.
 * ComparableVersion:
 * - tokens split at `.`, `-` and digit/letter transitions (a transition counts as `-`);
 *   empty tokens are `0`;
 * - a qualifier compares the same after `.` or `-` (".qualifier" = "-qualifier"), so
 *   qualifiers always start a hyphen group;
 * - trailing null tokens (0, "", final, ga, release) are trimmed, then again before
 *   each remaining hyphen, from the end;
 * - ".qualifier" = "-qualifier" < "-number" < ".number";
 * - alpha < beta < milestone < rc = cr < snapshot < "" = ga = final = release < sp,
 *   then any other qualifier in lexical order; a, b, m abbreviate alpha, beta,
 *   milestone when a number follows directly.
 */
import { compareDigits, compareStrings, type VersionComparator } from './comparator';

type Token = { prefix: '.' | '-'; numeric: boolean; value: string };

const QUALIFIER_ORDER = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { cr: 'rc', ga: '', final: '', release: '' };
const SHORT_BEFORE_DIGIT: Record<string, string> = { a: 'alpha', b: 'beta', m: 'milestone' };

export function tokenizeMavenVersion(version: string): Token[] {
  const tokens: Token[] = [];
  const parts = version
    .trim()
    .toLowerCase()
    .split(/([.-])/);
  for (let i = 0; i < parts.length; i += 2) {
    const separator = i === 0 ? '.' : (parts[i - 1] as '.' | '-');
    const runs = (parts[i] ?? '').match(/\d+|\D+/g) ?? [''];
    runs.forEach((run, j) => {
      const numeric = run === '' || /^\d/.test(run);
      if (numeric) {
        tokens.push({
          prefix: j === 0 ? separator : '-',
          numeric: true,
          value: run === '' ? '0' : run.replace(/^0+(?=\d)/, ''),
        });
        return;
      }
      const followedByDigit = j < runs.length - 1;
      const value = (followedByDigit ? SHORT_BEFORE_DIGIT[run] : undefined) ?? ALIASES[run] ?? run;
      tokens.push({ prefix: '-', numeric: false, value });
    });
  }
  return trimNulls(tokens);
}

function isNull(token: Token): boolean {
  return token.numeric ? token.value === '0' : token.value === '';
}

function trimNulls(tokens: Token[]): Token[] {
  // Marked, then dropped in one pass: a splice per null token is quadratic in a long run of them.
  const dropped = new Set<number>();
  let i = tokens.length - 1;
  while (i > 0) {
    const token = tokens[i];
    if (token && isNull(token)) {
      dropped.add(i);
      i--;
      continue;
    }
    while (i >= 0 && tokens[i]?.prefix !== '-') i--;
    i--;
  }
  return dropped.size === 0 ? tokens : tokens.filter((_, index) => !dropped.has(index));
}

function qualifierRank(q: string): number {
  const index = QUALIFIER_ORDER.indexOf(q);
  return index === -1 ? QUALIFIER_ORDER.length : index;
}

function compareQualifiers(a: string, b: string): number {
  const ra = qualifierRank(a);
  const rb = qualifierRank(b);
  if (ra === QUALIFIER_ORDER.length && rb === QUALIFIER_ORDER.length) return compareStrings(a, b);
  return ra - rb;
}

function compareTokens(a: Token, b: Token): number {
  if (!a.numeric && !b.numeric) return compareQualifiers(a.value, b.value);
  if (a.numeric && b.numeric)
    return a.prefix === b.prefix ? compareDigits(a.value, b.value) : a.prefix === '-' ? -1 : 1;
  return a.numeric ? 1 : -1;
}

/** A missing token is a null item: 0 for numbers, the release qualifier "" for qualifiers. */
function compareWithNull(token: Token): number {
  return token.numeric ? (token.value === '0' ? 0 : 1) : compareQualifiers(token.value, '');
}

export function compareMavenVersions(a: string, b: string): number {
  const x = tokenizeMavenVersion(a);
  const y = tokenizeMavenVersion(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i];
    const q = y[i];
    const c = p && q ? compareTokens(p, q) : p ? compareWithNull(p) : q ? -compareWithNull(q) : 0;
    if (c !== 0) return c < 0 ? -1 : 1;
  }
  return 0;
}

export const mavenComparator: VersionComparator = {
  scheme: 'maven',
  // Maven orders any string; only an empty one is not a version.
  compare: (a, b) => (a.trim() === '' || b.trim() === '' ? null : compareMavenVersions(a, b)),
};
