/**
 * Gem::Version ordering: segments are runs of digits or letters; a version with
 * a letter is a prerelease and sorts before the release ("1.0.a" < "1.0");
 * trailing zeros of the numeric and of the string part are insignificant
 * ("1.0" == "1"); "-" reads as ".pre.".
 */
import { compareDigits, compareStrings, type VersionComparator } from './comparator';

const VERSION_PATTERN = /^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

type Segment = string | { digits: string };

export function canonicalGemSegments(version: string): Segment[] | null {
  const trimmed = version.trim() === '' ? '0' : version.trim();
  if (!VERSION_PATTERN.test(trimmed)) return null;
  const segments: Segment[] = (trimmed.replace(/-/g, '.pre.').match(/[0-9]+|[a-z]+/gi) ?? []).map((s) =>
    /^\d/.test(s) ? { digits: s } : s,
  );
  const stringStart = segments.findIndex((s) => typeof s === 'string');
  const numeric = stringStart === -1 ? segments : segments.slice(0, stringStart);
  const strings = stringStart === -1 ? [] : segments.slice(stringStart);
  return [...dropTrailingZeros(numeric), ...dropTrailingZeros(strings)];
}

function isZero(s: Segment | undefined): boolean {
  return s !== undefined && typeof s !== 'string' && /^0+$/.test(s.digits);
}

function dropTrailingZeros(segments: Segment[]): Segment[] {
  let end = segments.length;
  while (end > 0 && isZero(segments[end - 1])) end--;
  return segments.slice(0, end);
}

export function compareGemVersions(a: string, b: string): number | null {
  const x = canonicalGemSegments(a);
  const y = canonicalGemSegments(b);
  if (!x || !y) return null;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i] ?? { digits: '0' };
    const q = y[i] ?? { digits: '0' };
    if (typeof p === 'string' && typeof q === 'string') {
      const c = compareStrings(p, q);
      if (c !== 0) return c;
    } else if (typeof p === 'string') return -1;
    else if (typeof q === 'string') return 1;
    else {
      const c = compareDigits(p.digits, q.digits);
      if (c !== 0) return c;
    }
  }
  return 0;
}

export const rubyGemsComparator: VersionComparator = { scheme: 'rubygems', compare: compareGemVersions };
