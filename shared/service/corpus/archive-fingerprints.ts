/**
 * Bucket fingerprints of an OSV archive, so that a re-import reads only the parts that changed
 * (docs/corpus-at-scale.md "Skipping unchanged parts of an archive"). Each `.json` entry goes into one
 * of `BUCKETS` buckets by a hash of its name, so a new record lands in one bucket wherever it sits in
 * the archive; a bucket's fingerprint hashes its entries' names, CRC-32s and sizes (in an order of their
 * own, not the archive's), all taken from the zip's central directory: computing them reads no entry.
 *
 * The fingerprints are stored only when an archive's import completes, and an import drops those of
 * the buckets it will write before it writes, so a stored fingerprint says that every entry of its
 * bucket, as it was then, was imported and not since replaced by another version of the archive. An import skips the entries of the
 * buckets whose fingerprint is unchanged; the others go through the per-record path, which compares
 * content hashes as before. A bucket with an unreadable entry is stored without a fingerprint (its
 * error is reported again each time), and fingerprints recorded without the package filter do not
 * let a filtered import skip (the skipped entries' packages would be missing from the filter).
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { keys } from '../data/keys';
import { batchGet, batchWrite, type Item } from '../data/table-client';
import { zipDirectory, ZipFormatError, type RandomAccessSource } from './parse/zip-entries';

/** About 32 entries a bucket at OSV's 520,000 records: a delta of a few hundred records reads a few percent. */
export const BUCKETS = 16_384;
/** Buckets per stored item: 32 items of about 11 KB, read in one BatchGetItem. */
const PER_ITEM = 512;
/** A fingerprint: 16 bytes of SHA-256, base64url. */
const WIDTH = 22;
/**
 * What the per-record import writes for a record, as a version: fingerprints recorded by an import that
 * wrote less (say, before an index existed) skip nothing. Raise it when the import writes something new
 * that items imported before lack, so that the next re-import reads every record again.
 */
const IMPORT_FORMAT = 1;
/** A bucket stored without a fingerprint: never equal to a computed one (not base64url). */
const NONE = '.'.repeat(WIDTH);

export interface ArchiveBuckets {
  /** The bucket of each entry by central-directory index; -1 for entries that are not records. */
  bucketOf: Int32Array;
  /** Each bucket's fingerprint. */
  fingerprints: string[];
}

function bucketOfName(name: string): number {
  return crc32(name) % BUCKETS;
}

/** An entry's digest: 16 bytes of SHA-256 over its name, CRC-32 and sizes. */
const DIGEST = 16;

/**
 * Reads the archive's central directory and fingerprints its buckets: a bucket's fingerprint hashes
 * its entries' digests in sorted order, so the order of the entries in the archive does not matter.
 * Memory: 20 bytes per entry, not its name.
 */
export async function archiveBuckets(source: RandomAccessSource, entries: number): Promise<ArchiveBuckets> {
  const bucketOf = new Int32Array(entries).fill(-1);
  const digests = Buffer.alloc(entries * DIGEST);
  const counts = new Uint32Array(BUCKETS + 1);
  for await (const entry of zipDirectory(source)) {
    if (entry.index >= entries) throw new ZipFormatError('the central directory lists more entries than it counts');
    if (!entry.name.toLowerCase().endsWith('.json')) continue;
    const bucket = bucketOfName(entry.name);
    bucketOf[entry.index] = bucket;
    counts[bucket + 1]! += 1;
    createHash('sha256')
      .update(`${entry.name}\0${entry.crc}\0${entry.size}\0${entry.compressedSize}`)
      .digest()
      .copy(digests, entry.index * DIGEST, 0, DIGEST);
  }
  // The entries of each bucket side by side (a counting sort by bucket), then each bucket's digests sorted.
  for (let bucket = 1; bucket <= BUCKETS; bucket += 1) counts[bucket]! += counts[bucket - 1]!;
  const next = counts.slice(0, BUCKETS);
  const byBucket = new Uint32Array(counts[BUCKETS]!);
  bucketOf.forEach((bucket, index) => {
    if (bucket >= 0) byBucket[next[bucket]!++] = index;
  });
  const fingerprints = Array.from({ length: BUCKETS }, (_, bucket) => {
    const members = Array.from(byBucket.subarray(counts[bucket], counts[bucket + 1]), (index) =>
      digests.subarray(index * DIGEST, (index + 1) * DIGEST),
    ).sort((a, b) => Buffer.compare(a, b));
    const hash = createHash('sha256');
    for (const digest of members) hash.update(digest);
    return hash.digest().subarray(0, 16).toString('base64url');
  });
  return { bucketOf, fingerprints };
}

function itemKeys(scope: string) {
  return Array.from({ length: BUCKETS / PER_ITEM }, (_, part) => keys.corpusArchiveFingerprints(scope, part));
}

/**
 * Which buckets are unchanged since the archive's last complete import: their stored fingerprint equals
 * the computed one, and it was recorded with the package filter if this import keeps one. The stored
 * fingerprints of the buckets that differ are dropped before this import writes any of their records:
 * were it interrupted, a later import of the archive as it was would otherwise skip the records this
 * one changed.
 */
export async function unchangedBuckets(scope: string, current: ArchiveBuckets, filtered: boolean): Promise<Uint8Array> {
  const unchanged = new Uint8Array(BUCKETS);
  const items = await batchGet(itemKeys(scope));
  const dropped: Item[] = [];
  for (const item of items) {
    const part = Number(item.part);
    const stored = String(item.fingerprints);
    const usable = item.format === IMPORT_FORMAT && (!filtered || item.filtered === true);
    let kept = '';
    for (let offset = 0; offset < PER_ITEM; offset += 1) {
      const bucket = part * PER_ITEM + offset;
      const fingerprint = stored.slice(offset * WIDTH, (offset + 1) * WIDTH);
      if (fingerprint === current.fingerprints[bucket]) {
        if (usable) unchanged[bucket] = 1;
        kept += fingerprint;
      } else kept += NONE;
    }
    if (kept !== stored) dropped.push({ ...item, fingerprints: kept });
  }
  if (dropped.length > 0) await batchWrite(dropped);
  return unchanged;
}

/** Stores the fingerprints of an archive whose import just completed; `errorBuckets` get none. */
export async function recordArchiveBuckets(
  scope: string,
  current: ArchiveBuckets,
  filtered: boolean,
  errorBuckets: ReadonlySet<number>,
): Promise<void> {
  const recordedAt = new Date().toISOString();
  await batchWrite(
    itemKeys(scope).map((key, part) => {
      const slice = current.fingerprints.slice(part * PER_ITEM, (part + 1) * PER_ITEM);
      const fingerprints = slice.map((value, offset) => (errorBuckets.has(part * PER_ITEM + offset) ? NONE : value));
      return {
        ...key,
        entity: 'CorpusArchiveFingerprints',
        format: IMPORT_FORMAT,
        part,
        filtered,
        recordedAt,
        fingerprints: fingerprints.join(''),
      };
    }),
  );
}
