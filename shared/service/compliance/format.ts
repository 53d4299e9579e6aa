/** Display formatting shared by the evidence text and the view model. UTC only: a printed attestation must not depend on the server's time zone. */

/** `2025-03-04 09:30 UTC`; a date-only value stays a date. */
export function formatDateTime(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const time = Date.parse(value);
  if (Number.isNaN(time)) return value;
  const iso = new Date(time).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function formatDate(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : new Date(time).toISOString().slice(0, 10);
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : pluralForm}`;
}

/** Whole-percent share, `—` when there is nothing to divide. */
export function percent(part: number, whole: number): string {
  if (whole === 0) return '—';
  const share = (part / whole) * 100;
  // Never round a partial share up to 100 % (or down to 0 %): that would overstate coverage.
  if (part < whole && share > 99) return '99 %';
  if (part > 0 && share < 1) return '<1 %';
  return `${Math.round(share)} %`;
}

export function formatScore(value: number | null, digits = 1): string {
  return value === null ? '—' : value.toFixed(digits);
}

/** Counts with thousands separators, as read on paper. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

export function humanize(value: string): string {
  return value.replaceAll('_', ' ');
}
