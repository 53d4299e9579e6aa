/**
 * The vulnerability corpus in the table. A scan reads only what its
 * components name: one item per (ecosystem, package) holding the match data of
 * its newest advisories and the count of its sealed segments, which hold the
 * rest (package-segments.ts), short-name items for CPE and name-only lookups,
 * KEV items per CVE and EPSS scores in buckets (epss-buckets.ts). Items larger than DynamoDB allows (400 KB) spill
 * to S3 and keep a pointer.
 */
import { getObject, putObject } from '../aws-s3';
import { config } from '../config';
import { keys, type Key } from '../data/keys';
import { batchGet, type Item } from '../data/table-client';
import type { Advisory } from './parse/advisory';
import { splitPackageKey } from '../matching/component-identity';
import { mergeEntries, type StoredPackage } from './package-segments';
import { EPSS_LAYOUT, epssBucketKeys, epssBucketOf, epssScoreIn } from './epss-buckets';
import type { EpssScore } from './parse/epss';

/** The part of an advisory a scan needs; nothing reads `details` and `references`, so they are not stored. */
export type MatchData = Omit<Advisory, 'details' | 'references'>;

export interface CveScores {
  kev: { dateAdded: string; dueDate: string | null; knownRansomwareCampaignUse: string | null } | null;
  epss: { score: number; percentile: number; date: string | null } | null;
}

/** Batched reads in flight per scan: a scan of 20,000 components reads up to 200 batches of 100 keys. */
const READ_CONCURRENCY = 16;

/** Leave headroom under DynamoDB's 400 KB item limit for keys and attribute names. */
export const MAX_INLINE_BYTES = 350 * 1024;

function epssOf(score: EpssScore, scoreDate: unknown): CveScores['epss'] {
  return { score: score.epss, percentile: score.percentile, date: (scoreDate as string | null | undefined) ?? null };
}

export function packageItemKey(packageKey: string): Key {
  const { ecosystem, name } = splitPackageKey(packageKey);
  return keys.corpusPackage(ecosystem, name);
}

export function packageSegmentKey(packageKey: string, segment: number): Key {
  const { ecosystem, name } = splitPackageKey(packageKey);
  return keys.corpusPackageSegment(ecosystem, name, segment);
}

/** Sealed segments of a package item; an item of the layout before segments has none. */
export function sealedSegmentsOf(item: Item): number {
  return typeof item.sealedSegments === 'number' ? item.sealedSegments : 0;
}

export function toMatchData(advisory: Advisory): MatchData {
  const { details: _details, references: _references, ...rest } = advisory;
  return rest;
}

export async function spillToS3(kind: 'package', id: string, value: unknown): Promise<string> {
  const objectKey = keys.corpusSpillObject(kind, id);
  await putObject({
    Bucket: config().sbomBucket,
    Key: objectKey,
    Body: JSON.stringify(value),
    ContentType: 'application/json',
  });
  return objectKey;
}

async function readSpill<T>(objectKey: string): Promise<T> {
  const object = await getObject({ Bucket: config().sbomBucket, Key: objectKey });
  return JSON.parse(await object.Body!.transformToString('utf8')) as T; // GetObject always has a Body on success
}

/** Entries of a package item or segment item, inline or from its S3 spill (the package item's own: not its segments'). */
export async function packageEntries(item: Item): Promise<MatchData[]> {
  if (typeof item.spillKey === 'string') return readSpill<MatchData[]>(item.spillKey);
  if (typeof item.entriesJson === 'string') return JSON.parse(item.entriesJson) as MatchData[]; // written only by the import
  return (item.entries as MatchData[] | undefined) ?? []; // items imported before entries became one string
}

/** The entries of a package or segment item as JSON: the stored string as it is, else the entries serialised. */
export async function entriesJsonOf(item: Item): Promise<string> {
  return typeof item.entriesJson === 'string' ? item.entriesJson : JSON.stringify(await packageEntries(item));
}

/** What an import window needs of a stored package item: its own entries' JSON and its sealed part. */
export async function storedPackageOf(item: Item): Promise<StoredPackage> {
  const entriesJson = await entriesJsonOf(item);
  const sealedEntries = typeof item.sealedEntries === 'number' ? item.sealedEntries : 0;
  return { entriesJson, sealedSegments: sealedSegmentsOf(item), sealedEntries };
}

/** The sealed segments' entries of each package item that has any, in segment order. */
export async function segmentEntries(
  items: readonly Item[],
  options: { concurrency?: number } = {},
): Promise<Map<string, MatchData[][]>> {
  const segmentKeys = items.flatMap((item) =>
    Array.from({ length: sealedSegmentsOf(item) }, (_, segment) => packageSegmentKey(String(item.packageKey), segment)),
  );
  const result = new Map<string, MatchData[][]>();
  if (segmentKeys.length === 0) return result;
  const segments = await batchGet(segmentKeys, options);
  for (const item of items) if (sealedSegmentsOf(item) > 0) result.set(String(item.packageKey), []);
  await Promise.all(
    segments.map(async (segment) => {
      const slots = result.get(String(segment.packageKey));
      if (slots) slots[Number(segment.segment)] = await packageEntries(segment);
    }),
  );
  return result;
}

export const corpusStore = {
  /**
   * Match data per requested package key (absent keys: no advisories): the package items in one batched
   * read, then the sealed segments of those that have any in a second.
   */
  async packages(packageKeys: Iterable<string>): Promise<Map<string, MatchData[]>> {
    const unique = [...new Set(packageKeys)];
    const items = await batchGet(unique.map(packageItemKey), { concurrency: READ_CONCURRENCY });
    const segments = await segmentEntries(items, { concurrency: READ_CONCURRENCY });
    const result = new Map<string, MatchData[]>();
    await Promise.all(
      items.map(async (item) => {
        const key = String(item.packageKey);
        const own = await packageEntries(item);
        const sealed = segments.get(key);
        // A missing segment (never the case once its package item counts it) reads as empty.
        result.set(
          key,
          sealed
            ? mergeEntries(
                Array.from(sealed, (entries) => entries ?? []),
                own,
              )
            : own,
        );
      }),
    );
    return result;
  },

  /** Package keys per short name (for CPE products and bare component names). */
  async shortNames(names: Iterable<string>): Promise<Map<string, string[]>> {
    const items = await batchGet([...new Set(names)].map((name) => keys.corpusShortName(name)));
    return new Map(items.map((item) => [String(item.shortName), (item.packageKeys as string[] | undefined) ?? []]));
  },

  /**
   * KEV entry and EPSS score per CVE: the KEV items, the distinct EPSS buckets and the EPSS import record in one
   * batched read. Until an import has written buckets (the record names their layout), a CVE whose bucket is
   * absent is read from its item of the layout before (a second read, of those CVEs only).
   */
  async scores(cveIds: Iterable<string>): Promise<Map<string, CveScores>> {
    const ids = [...new Set(cveIds)];
    const result = new Map<string, CveScores>(ids.map((id) => [id, { kev: null, epss: null }]));
    if (ids.length === 0) return result;
    const items = await batchGet(
      [...ids.map((id) => keys.corpusKev(id)), ...epssBucketKeys(ids), keys.corpusSourceImport('epss')],
      { concurrency: READ_CONCURRENCY },
    );
    const buckets = new Map<number, Item>();
    let bucketsComplete = false;
    for (const item of items) {
      if (item.entity === 'CorpusEpssBucket') buckets.set(Number(item.bucket), item);
      else if (item.entity === 'CorpusSourceImport') bucketsComplete = item.layout === EPSS_LAYOUT;
      else if (item.entity === 'CorpusKev') {
        const scores = result.get(String(item.cveId));
        if (scores)
          scores.kev = {
            dateAdded: String(item.dateAdded),
            dueDate: (item.dueDate as string | null) ?? null,
            knownRansomwareCampaignUse: (item.knownRansomwareCampaignUse as string | null) ?? null,
          };
      }
    }
    const unbucketed: string[] = [];
    for (const [id, scores] of result) {
      const bucket = buckets.get(epssBucketOf(id));
      if (!bucket) {
        if (!bucketsComplete) unbucketed.push(id);
        continue;
      }
      const score = epssScoreIn(String(bucket.scoresJson), id);
      if (score) scores.epss = epssOf(score, bucket.scoreDate);
    }
    if (unbucketed.length === 0) return result;
    const unbucketedItems = await batchGet(
      unbucketed.map((id) => keys.corpusEpss(id)),
      { concurrency: READ_CONCURRENCY },
    );
    for (const item of unbucketedItems) {
      const scores = result.get(String(item.cveId));
      if (scores)
        scores.epss = epssOf({ epss: Number(item.epss), percentile: Number(item.percentile) }, item.scoreDate);
    }
    return result;
  },
};
