/**
 * Packagist (Composer) ordering: Composer's VersionParser normalisation (v
 * prefix dropped, four numeric parts, stability suffixes expanded: a -> alpha,
 * b -> beta, rc -> RC, p/pl -> patch, build metadata dropped), then PHP's
 * version_compare on the normalised strings, whose special forms order
 * any other string < dev < alpha = a < beta = b < RC = rc < # (a number) < pl = p.
 */
import { compareDigits, sign, type VersionComparator } from './comparator';

const STABILITY: Record<string, string> = {
  stable: '',
  beta: 'beta',
  b: 'beta',
  rc: 'RC',
  alpha: 'alpha',
  a: 'alpha',
  patch: 'patch',
  pl: 'patch',
  p: 'patch',
};
// Composer writes the stability number as `((?:[.-]?\d+)*+)?`; JS has no possessive quantifier, and the
// plain `*` splits a digit run every possible way (2^n tries on a failing suffix).
// `[.-]?\d+(?:[.-]\d+)*` accepts the same strings with one way to read each.
const CLASSIC =
  /^v?(\d{1,5})(\.\d+)?(\.\d+)?(\.\d+)?[._-]?(?:(stable|beta|b|rc|alpha|a|patch|pl|p)((?:[.-]?\d+(?:[.-]\d+)*)?)?)?([.-]?dev)?$/i;
const DATE =
  /^v?(\d{4}(?:[.:-]?\d{2}){1,6}(?:[.:-]?\d{1,3}){0,2})[._-]?(?:(stable|beta|b|rc|alpha|a|patch|pl|p)((?:[.-]?\d+(?:[.-]\d+)*)?)?)?([.-]?dev)?$/i;
const X_DEV = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?[.-]?dev$/i;

/** Composer's normalised form, or null for branch names (dev-master) and strings Composer rejects. */
export function normalizeComposerVersion(raw: string): string | null {
  const version = withoutAlias(raw.trim()).replace(/^([^,\s+]+)\+\S+$/, '$1');
  if (version === '' || /^dev-/i.test(version)) return null;
  const classic = CLASSIC.exec(version);
  if (classic) {
    const [, major = '0', minor, patch, build] = classic;
    const numeric = [major, minor?.slice(1) ?? '0', patch?.slice(1) ?? '0', build?.slice(1) ?? '0'].join('.');
    return numeric + suffix(classic[5], classic[6], classic[7]);
  }
  const date = DATE.exec(version);
  if (date?.[1]) return date[1].replace(/\D/g, '.') + suffix(date[2], date[3], date[4]);
  const xDev = X_DEV.exec(version);
  if (xDev) {
    const parts = [xDev[1], xDev[2], xDev[3], xDev[4]].map((p) =>
      p === undefined || p === 'x' || p === '*' ? '9999999' : p,
    );
    return `${parts.join('.')}-dev`;
  }
  return null;
}

/**
 * Drops an inline alias ("1.0.x-dev as 1.0.0"), as `/\s+as\s+.*$/i` would, without that pattern's
 * quadratic retries over long whitespace runs. A line break after the alias leaves whitespace in
 * the version, which no form below accepts, exactly as the pattern's failure to match did.
 */
function withoutAlias(version: string): string {
  const alias = /\sas\s/i.exec(version);
  if (!alias) return version;
  let rest = alias.index + alias[0].length;
  while (rest < version.length && /\s/.test(version[rest] ?? '')) rest++;
  if (/[\n\r\u2028\u2029]/.test(version.slice(rest))) return version;
  let cut = alias.index;
  while (cut > 0 && /\s/.test(version[cut - 1] ?? '')) cut--;
  return version.slice(0, cut);
}

function suffix(stability: string | undefined, number: string | undefined, dev: string | undefined): string {
  let out = '';
  const expanded = stability === undefined ? '' : (STABILITY[stability.toLowerCase()] ?? '');
  if (expanded !== '') out += `-${expanded}${(number ?? '').replace(/^[.-]+/, '')}`;
  if (dev !== undefined) out += '-dev';
  return out;
}

/** PHP's php_canonicalize_version: `-_+` become `.`, and a `.` separates digit/non-digit runs. */
function phpCanonical(version: string): string[] {
  // Built as a list and joined once: reading the last character of a growing string flattens it each time (quadratic).
  const out: string[] = [];
  let previous = '';
  for (const ch of version) {
    const isSpecial = ch === '-' || ch === '_' || ch === '+';
    if (isSpecial) {
      if (previous !== '.') out.push('.');
      previous = '.';
    } else {
      if (previous !== '' && previous !== '.' && ch !== '.' && /\d/.test(previous) !== /\d/.test(ch)) out.push('.');
      out.push(ch);
      previous = ch;
    }
  }
  return out.join('').split('.');
}

const SPECIAL_FORMS: [string, number][] = [
  ['dev', 0],
  ['alpha', 1],
  ['a', 1],
  ['beta', 2],
  ['b', 2],
  ['RC', 3],
  ['rc', 3],
  ['#', 4],
  ['pl', 5],
  ['p', 5],
];

/** PHP matches a form by prefix, first in list order ("patch" reads as "p"); unknown strings rank lowest. */
function formRank(part: string): number {
  for (const [form, rank] of SPECIAL_FORMS) if (part.startsWith(form)) return rank;
  return -6;
}

function comparePart(a: string, b: string): number {
  const aNum = /^\d+$/.test(a);
  const bNum = /^\d+$/.test(b);
  if (aNum && bNum) return compareDigits(a, b);
  return sign(formRank(aNum ? '#' : a) - formRank(bNum ? '#' : b));
}

function compareParts(x: string[], y: string[]): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const c = comparePart(x[i] ?? '', y[i] ?? '');
    if (c !== 0) return c;
  }
  if (x.length > n) return compareTail(x, n);
  if (y.length > n) return -compareTail(y, n);
  return 0;
}

/**
 * PHP compares what is left of the longer version with "#" (a number), part by part; a number
 * there makes it the greater. A loop, not PHP's recursion: a long version must not overflow the stack.
 */
function compareTail(parts: string[], from: number): number {
  for (let i = from; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (/^\d/.test(part)) return 1;
    const c = comparePart(part, '#');
    if (c !== 0) return c;
  }
  return 0;
}

/** PHP version_compare(a, b). */
export function phpVersionCompare(a: string, b: string): number {
  return compareParts(phpCanonical(a), phpCanonical(b));
}

export const packagistComparator: VersionComparator = {
  scheme: 'composer',
  compare(a, b) {
    const x = normalizeComposerVersion(a);
    const y = normalizeComposerVersion(b);
    return x === null || y === null ? null : phpVersionCompare(x, y);
  },
};
