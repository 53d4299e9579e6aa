/**
 * Packagist (Composer) ordering: Composer's VersionParser normalisation (v
 * prefix dropped, four numeric parts, stability suffixes expanded: a -> alpha,
 * b -> beta, rc -> RC, p/pl -> patch, build metadata dropped), then PHP's
 * version_compare on the normalised strings, whose special forms order
 * any other string < dev < alpha = a < beta = b < RC = rc < # (a number) < pl = p.
 */
import { compareDigits, sign, type VersionComparator } from './comparator';

const STABILITY: Record<string, string> = { stable: '', beta: 'beta', b: 'beta', rc: 'RC', alpha: 'alpha', a: 'alpha', patch: 'patch', pl: 'patch', p: 'patch' };
const CLASSIC = /^v?(\d{1,5})(\.\d+)?(\.\d+)?(\.\d+)?[._-]?(?:(stable|beta|b|rc|alpha|a|patch|pl|p)((?:[.-]?\d+)*)?)?([.-]?dev)?$/i;
const DATE = /^v?(\d{4}(?:[.:-]?\d{2}){1,6}(?:[.:-]?\d{1,3}){0,2})[._-]?(?:(stable|beta|b|rc|alpha|a|patch|pl|p)((?:[.-]?\d+)*)?)?([.-]?dev)?$/i;
const X_DEV = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?[.-]?dev$/i;

/** Composer's normalised form, or null for branch names (dev-master) and strings Composer rejects. */
export function normalizeComposerVersion(raw: string): string | null {
  const version = raw.trim().replace(/\s+as\s+.*$/i, '').replace(/^([^,\s+]+)\+\S+$/, '$1');
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
    const parts = [xDev[1], xDev[2], xDev[3], xDev[4]].map((p) => (p === undefined || p === 'x' || p === '*' ? '9999999' : p));
    return `${parts.join('.')}-dev`;
  }
  return null;
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
  let out = '';
  let previous = '';
  for (const ch of version) {
    const isSpecial = ch === '-' || ch === '_' || ch === '+';
    if (isSpecial) {
      if (previous !== '.') out += '.';
    } else if (previous !== '' && previous !== '.' && ch !== '.' && /\d/.test(previous) !== /\d/.test(ch)) {
      out += `.${ch}`;
    } else {
      out += ch;
    }
    previous = out.at(-1) ?? '';
  }
  return out.split('.');
}

const SPECIAL_FORMS: [string, number][] = [['dev', 0], ['alpha', 1], ['a', 1], ['beta', 2], ['b', 2], ['RC', 3], ['rc', 3], ['#', 4], ['pl', 5], ['p', 5]];

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
  if (x.length > n) return /^\d/.test(x[n] ?? '') ? 1 : compareParts(x.slice(n), ['#']);
  if (y.length > n) return /^\d/.test(y[n] ?? '') ? -1 : compareParts(['#'], y.slice(n));
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
