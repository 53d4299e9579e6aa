/**
 * String helpers for input that may be hostile. `s.replace(/\/+$/, '')` retries its
 * quantifier from every position of a long run that does not end the string, which is
 * quadratic; these walk the string once.
 */

/** `value` without any trailing repetitions of the single character `char`. */
export function trimTrailing(value: string, char: string): string {
  let end = value.length;
  while (end > 0 && value[end - 1] === char) end--;
  return value.slice(0, end);
}

/** `value` without leading and trailing repetitions of the single character `char`. */
export function trimChar(value: string, char: string): string {
  let start = 0;
  while (start < value.length && value[start] === char) start++;
  return trimTrailing(value.slice(start), char);
}
