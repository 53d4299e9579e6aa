/**
 * A version ordering. `compare` returns null when either side is not a version
 * under the scheme, so callers can report "cannot tell" instead of guessing.
 */
export type VersionComparator = {
  readonly scheme: string;
  compare(a: string, b: string): number | null;
};

export function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

/** Compares digit strings of any length numerically (timestamps overflow 2^53). */
export function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
