/**
 * Glob matching for trust-policy claim patterns: `*` matches any run of
 * characters (also `/` and `:`), `?` exactly one, everything else itself, the
 * whole value, case-sensitive. Patterns come from users, so no regex is built
 * from them: this is the classic two-pointer wildcard match, O(pattern × value)
 * at worst with no backtracking blow-up (lengths are capped by the schemas).
 */
export function globMatch(pattern: string, value: string): boolean {
  let p = 0;
  let v = 0;
  let starAt = -1;
  let resumeAt = 0;
  while (v < value.length) {
    const token = pattern[p];
    if (token !== undefined && token !== '*' && (token === '?' || token === value[v])) {
      p += 1;
      v += 1;
    } else if (token === '*') {
      starAt = p;
      resumeAt = v;
      p += 1;
    } else if (starAt !== -1) {
      // Let the last star swallow one more character and retry from there.
      p = starAt + 1;
      resumeAt += 1;
      v = resumeAt;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p += 1;
  return p === pattern.length;
}
