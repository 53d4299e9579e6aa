/**
 * OSV's export bucket, per ecosystem (https://google.github.io/osv.dev/data/#data-dumps):
 * `<base>/<ECOSYSTEM>/all.zip` (every record), `<base>/<ECOSYSTEM>/<ID>.json` (one record) and
 * `<base>/<ECOSYSTEM>/modified_id.csv`, one line per record, `<modified>,<ID>`, newest first, with
 * the time in RFC 3339 (Go's RFC3339Nano: fractional seconds with trailing zeros dropped) and no header.
 * The listing tells which records changed since the last refresh; only those are downloaded.
 */
import { keys } from '../data/keys';
import { batchGet } from '../data/table-client';
import { trimTrailing } from '../text';
import { downloadBytes, FeedDownloadError } from './feed-download';
import type { FeedState } from './feed-state';
import type { OsvReadResult } from './parse/osv-archive';
import { parseOsvAdvisory } from './parse/osv';

export interface OsvListingEntry {
  /** Normalised (`normalizeOsvTime`), so entries compare as strings. */
  modified: string;
  id: string;
}

/**
 * A fixed-width UTC form, `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`: RFC 3339 strings with different
 * fractional widths do not sort as strings ("…05Z" after "…05.5Z"), this form does.
 */
export function normalizeOsvTime(value: string): string | null {
  const match = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/.exec(
    value.trim(),
  );
  if (!match) return null;
  const [, date, time, fraction = '', zone] = match;
  if (zone === 'Z' || zone === 'z' || zone === '+00:00' || zone === '-00:00')
    return `${date}T${time}.${fraction.padEnd(9, '0')}Z`;
  // Another offset: shifted to UTC (whole seconds are exact; the fraction is kept as written).
  const shifted = new Date(`${date}T${time}${zone}`);
  if (Number.isNaN(shifted.getTime())) return null;
  return `${shifted.toISOString().slice(0, 19)}.${fraction.padEnd(9, '0')}Z`;
}

/** Parses modified_id.csv; a line that is not `<time>,<id>` means a damaged listing, and fails the ecosystem. */
export function parseModifiedIds(url: string, text: string): OsvListingEntry[] {
  const entries: OsvListingEntry[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    // OSV writes no header; a mirror that adds one is read all the same.
    if (line === '' || (index === 0 && line.toLowerCase() === 'modified,id')) continue;
    const comma = line.indexOf(',');
    const modified = comma > 0 ? normalizeOsvTime(line.slice(0, comma)) : null;
    const id = line.slice(comma + 1).trim();
    if (modified === null || id === '' || /[/,\s]/.test(id))
      throw new FeedDownloadError(
        url,
        `line ${index + 1} is not "<modified>,<id>": ${JSON.stringify(line.slice(0, 80))}`,
      );
    entries.push({ modified, id });
  }
  return entries;
}

export function osvEcosystemUrl(baseUrl: string, ecosystem: string, file: string): string {
  return `${trimTrailing(baseUrl, '/')}/${encodeURIComponent(ecosystem)}/${file}`;
}

/** When the whole archive is fetched rather than the changed records. */
export interface OsvRefreshLimits {
  /** A last success older than this (or none) takes the whole all.zip: the listing's view of a long gap is not trusted. */
  fullRefreshAfterMs: number;
  /** More changed records than this take the whole all.zip: one archive beats thousands of requests. */
  maxChangedRecords: number;
  /**
   * Records up to this long before the cursor are looked at again: an export may list a record modified
   * just before the newest one it lists only in its next run. Those whose stored `modified` matches are skipped.
   */
  overlapMs: number;
}

export const DEFAULT_OSV_LIMITS: OsvRefreshLimits = {
  fullRefreshAfterMs: 7 * 24 * 3600_000,
  maxChangedRecords: 5000,
  overlapMs: 2 * 3600_000,
};

export type OsvPlan =
  | { kind: 'full'; reason: 'first run' | 'last success too old' | 'too many changes' }
  | { kind: 'changes'; entries: OsvListingEntry[] };

function minus(normalized: string, ms: number): string {
  const shifted = new Date(new Date(normalized.slice(0, 19) + 'Z').getTime() - ms);
  return `${shifted.toISOString().slice(0, 19)}${normalized.slice(19)}`;
}

/**
 * Full or incremental, and which records: those listed as modified after the cursor, and those in
 * the overlap window before it whose stored copy is older (or absent: a withdrawn record is not stored).
 */
export async function planOsvRefresh(
  state: FeedState | undefined,
  listing: readonly OsvListingEntry[],
  now: Date,
  limits: OsvRefreshLimits,
): Promise<OsvPlan> {
  if (!state?.lastSuccessAt || !state.cursor) return { kind: 'full', reason: 'first run' };
  if (now.getTime() - new Date(state.lastSuccessAt).getTime() > limits.fullRefreshAfterMs)
    return { kind: 'full', reason: 'last success too old' };
  const cursor = state.cursor;
  const from = minus(cursor, limits.overlapMs);
  const newer: OsvListingEntry[] = [];
  const overlap: OsvListingEntry[] = [];
  for (const entry of listing) {
    if (entry.modified > cursor) newer.push(entry);
    else if (entry.modified >= from) overlap.push(entry);
  }
  if (newer.length > limits.maxChangedRecords) return { kind: 'full', reason: 'too many changes' };
  const stored = new Map(
    (await batchGet(overlap.map((entry) => keys.corpusAdvisory(entry.id)))).map((item) => [
      String(item.advisoryId),
      typeof item.modified === 'string' ? normalizeOsvTime(item.modified) : null,
    ]),
  );
  const missed = overlap.filter((entry) => {
    const modified = stored.get(entry.id);
    return modified === undefined || modified === null || modified < entry.modified;
  });
  const entries = [...newer, ...missed];
  if (entries.length > limits.maxChangedRecords) return { kind: 'full', reason: 'too many changes' };
  return { kind: 'changes', entries };
}

const RECORD_CONCURRENCY = 8;

/**
 * Downloads each changed record and checks it (JSON, a readable OSV record, the id it is listed
 * under) before anything is imported: one failure fails them all.
 */
export async function fetchOsvRecords(
  baseUrl: string,
  ecosystem: string,
  entries: readonly OsvListingEntry[],
): Promise<OsvReadResult[]> {
  const results: OsvReadResult[] = new Array<OsvReadResult>(entries.length);
  let next = 0;
  let failed = false;
  async function worker(): Promise<void> {
    try {
      await fetchNext();
    } catch (error) {
      // The other workers stop at their next record: the refresh of this ecosystem has failed.
      failed = true;
      throw error;
    }
  }
  async function fetchNext(): Promise<void> {
    while (next < entries.length && !failed) {
      const index = next++;
      const entry = entries[index]!;
      const url = osvEcosystemUrl(baseUrl, ecosystem, `${encodeURIComponent(entry.id)}.json`);
      const downloaded = await downloadBytes(url);
      if (downloaded.notModified) throw new FeedDownloadError(url, 'unexpected 304');
      let advisory;
      try {
        advisory = parseOsvAdvisory(JSON.parse(downloaded.body.toString('utf8')) as unknown);
      } catch (error) {
        throw new FeedDownloadError(url, `not a readable OSV record: ${(error as Error).message}`, { cause: error });
      }
      if (advisory.id !== entry.id)
        throw new FeedDownloadError(url, `holds record ${JSON.stringify(advisory.id)}, listed as ${entry.id}`);
      results[index] = { source: url, advisory };
    }
  }
  await Promise.all(Array.from({ length: Math.min(RECORD_CONCURRENCY, entries.length) }, () => worker()));
  return results;
}
