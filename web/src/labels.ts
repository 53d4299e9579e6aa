/** Values for people: `not_affected` → `not affected`. No DOM, so the statement rows (and their unit test) use it too. */
export function label(value: string): string {
  return value.replaceAll('_', ' ');
}
