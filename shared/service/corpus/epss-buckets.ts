/**
 * EPSS scores in bucket items (`CorpusEpssBucket`): FIRST republishes every CVE's score daily, and one item per
 * CVE made the daily import 326,000 writes. Each CVE's score lives in one of `EPSS_BUCKETS` items, chosen by
 * `epssBucketOf` (keys `corpusEpssBucket`); a bucket holds its CVEs' scores as one JSON string beside the file's
 * score date and model version, and each import writes every bucket whole.
 *
 * 4,096 buckets (measured on the bench's 326,000 rows): 52–117 CVEs and 1.3–3.7 KB a bucket, so a scan reads
 * each in one 4 KB read unit, and the daily import writes 4,096 items and about 12,400 write units (2,048
 * buckets: 5–7 KB items, two read units each, about the same write units).
 */
import { keys } from '../data/keys';
import { batchGet, batchWrite, type Item } from '../data/table-client';
import type { EpssScore, EpssScores } from './parse/epss';

export const EPSS_BUCKETS = 4096;

/**
 * What the EPSS source-import record says of the items its import wrote: a store whose record names another
 * layout (or none: per-CVE items) is rewritten by the next import whatever the score date.
 */
export const EPSS_LAYOUT = `buckets-${EPSS_BUCKETS}-fnv1a`;

/** Buckets serialised and written per batch: under 1 MB of items at a time. */
const WRITE_SLICE = 256;

/** FNV-1a (32-bit) of the CVE id's characters, modulo `EPSS_BUCKETS`: stable across releases and processes. */
export function epssBucketOf(cveId: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < cveId.length; index++) {
    hash ^= cveId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % EPSS_BUCKETS;
}

/** A CVE's name in a bucket: without the `CVE-` every id has (a tenth of a bucket's bytes). */
function entryName(cveId: string): string {
  return cveId.startsWith('CVE-') ? cveId.slice(4) : cveId;
}

/** `{"2021-44228":[0.94401,0.99995],…}`: each CVE's EPSS probability and percentile. */
export function serialiseEpssBucket(entries: Iterable<[string, EpssScore]>): string {
  const object: Record<string, [number, number]> = {};
  for (const [cveId, score] of entries) object[entryName(cveId)] = [score.epss, score.percentile];
  return JSON.stringify(object);
}

/**
 * One CVE's score in a bucket's JSON, found by its name instead of parsing the whole bucket (a scan reads up
 * to thousands): names are unique, end at their closing quote, and values hold no quotes.
 */
export function epssScoreIn(bucketJson: string, cveId: string): EpssScore | null {
  const name = `${JSON.stringify(entryName(cveId))}:[`;
  const start = bucketJson.indexOf(name);
  if (start === -1) return null;
  const valueStart = start + name.length - 1;
  const [epss, percentile] = JSON.parse(bucketJson.slice(valueStart, bucketJson.indexOf(']', valueStart) + 1)) as [
    number,
    number,
  ];
  return { epss, percentile };
}

export function epssBucketItem(bucket: number, scores: EpssScores, cveIds: readonly string[]): Item {
  return {
    ...keys.corpusEpssBucket(bucket),
    entity: 'CorpusEpssBucket',
    bucket,
    scoresJson: serialiseEpssBucket(cveIds.map((cveId): [string, EpssScore] => [cveId, scores.scores.get(cveId)!])),
    scoreDate: scores.scoreDate,
    modelVersion: scores.modelVersion,
  };
}

/**
 * Writes every bucket holding a row of the file, a slice of buckets at a time (the items of all 4,096 at once
 * would be another 12 MB at the peak); a bucket no row falls in is deleted if it exists, so that a CVE the file
 * no longer scores has none, as it would in the file. Returns the bucket items written and deleted.
 */
export async function writeEpssBuckets(scores: EpssScores): Promise<{ written: number; deleted: number }> {
  const members: string[][] = Array.from({ length: EPSS_BUCKETS }, () => []);
  for (const cveId of scores.scores.keys()) members[epssBucketOf(cveId)]!.push(cveId);
  let written = 0;
  for (let first = 0; first < EPSS_BUCKETS; first += WRITE_SLICE) {
    const slice: Item[] = [];
    for (let bucket = first; bucket < Math.min(first + WRITE_SLICE, EPSS_BUCKETS); bucket++)
      if (members[bucket]!.length > 0) slice.push(epssBucketItem(bucket, scores, members[bucket]!));
    await batchWrite(slice, [], { concurrency: 8 });
    written += slice.length;
  }
  // A full daily file fills every bucket; a small file (tests, a partial import) leaves most empty.
  const emptyKeys = members.flatMap((cveIds, bucket) => (cveIds.length === 0 ? [keys.corpusEpssBucket(bucket)] : []));
  const stale = await batchGet(emptyKeys, { projection: ['pk', 'sk'], concurrency: 8 });
  await batchWrite(
    [],
    stale.map((item) => ({ pk: String(item.pk), sk: String(item.sk) })),
    { concurrency: 8 },
  );
  return { written, deleted: stale.length };
}

/** The bucket keys holding these CVEs' scores, each once. */
export function epssBucketKeys(cveIds: readonly string[]) {
  return [...new Set(cveIds.map(epssBucketOf))].map((bucket) => keys.corpusEpssBucket(bucket));
}
