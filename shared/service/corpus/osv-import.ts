/**
 * OSV import: records are read as a stream (a directory, a zip read by random access, the records
 * a refresh downloaded), cut into chunks of 5,000 (advisory-chunk.ts) whose package and advisory
 * items are written a window of chunks at a time (package-write-window.ts), so memory holds a chunk
 * and a window, never the archive. A window rewrites every package item its records touch: a busy
 * package is in nearly every chunk, so a window of several chunks writes it fewer times.
 *
 * A zip is imported in resumable units (`importOsvArchive`): every `CHECKPOINT_RECORDS` entries the
 * window is written, the package filter gains the keys read since it was last stored and the caller
 * persists the entry index to start from; a unit stops at the first checkpoint after its time is up.
 * A unit killed between checkpoints is redone from the last one: its records already written are found
 * unchanged by content hash (their advisory items are written last), so nothing is duplicated or skipped.
 *
 * With a `scope`, an archive import reads only the entries of the buckets that changed since the
 * archive's last complete import (archive-fingerprints.ts); the others count as unchanged.
 */
import { logger } from '../logger';
import type { Advisory } from './parse/advisory';
import { emptyImportSummary, importChunk, packageKeysOf, type AdvisoryImportSummary } from './advisory-chunk';
import { readZipEntries, zipEntryCount, type RandomAccessSource } from './parse/zip-entries';
import { parseOsvAdvisory } from './parse/osv';
import type { OsvReadResult } from './parse/osv-archive';
import { PackageFilter, packageFilterStore } from './package-filter';
import { CHECKPOINT_RECORDS } from './import-units';
import { PackageItemCache } from './package-item-cache';
import { PackageWriteWindow } from './package-write-window';
import { completedSources, recordImport } from './source-imports';
import { archiveBuckets, recordArchiveBuckets, unchangedBuckets } from './archive-fingerprints';

export type { AdvisoryImportSummary } from './advisory-chunk';

const CHUNK = 5_000;

export interface ImportProgress {
  /** Records read so far (unreadable ones included). */
  read: number;
  /** Records in the source, when known (a zip's central directory says). */
  total: number | undefined;
  summary: AdvisoryImportSummary;
}

export interface OsvImportOptions {
  /** Called after each chunk. */
  onProgress?: (progress: ImportProgress) => void;
}

/** One import run: its chunk, its summary and the package filter keys not yet stored. */
class OsvImportRun {
  readonly summary: AdvisoryImportSummary = emptyImportSummary();
  private chunk: Advisory[] = [];
  /** The chunks' package and advisory items not yet written; the package items this run wrote, so that later chunks need not read them back. */
  private readonly window = new PackageWriteWindow(new PackageItemCache());
  private chunkIds = new Set<string>();
  private readCount = 0;
  /** Records not read: their bucket of the archive is unchanged since its last complete import. */
  skipped = 0;

  private constructor(
    private filter: PackageFilter | undefined,
    private readonly total: number | undefined,
    private readonly options: OsvImportOptions,
  ) {}

  /**
   * Every package an import names goes into the filter, unchanged ones included. A corpus that had
   * OSV data before the filter existed gets none: this import alone cannot list the packages earlier
   * imports wrote.
   */
  static async start(total: number | undefined, options: OsvImportOptions): Promise<OsvImportRun> {
    const filtered = (await packageFilterStore.exists()) || !(await completedSources()).has('osv');
    return new OsvImportRun(filtered ? new PackageFilter() : undefined, total, options);
  }

  /** The package filter gains every package this import names. */
  get filtered(): boolean {
    return this.filter !== undefined;
  }

  /** Counts a record of an unchanged bucket as read and unchanged, without reading it. */
  skip(): void {
    this.readCount += 1;
    this.skipped += 1;
    this.summary.read += 1;
    this.summary.unchanged += 1;
    if (this.skipped % CHUNK === 0)
      this.options.onProgress?.({ read: this.readCount, total: this.total, summary: this.summary });
  }

  /** Takes one record; writes the chunk when it is full. */
  async add(result: OsvReadResult): Promise<void> {
    this.readCount += 1;
    if ('error' in result) {
      this.summary.errors += 1;
      logger.warn('skipped an OSV record', { source: result.source, error: result.error });
      return;
    }
    // One advisory per chunk: a duplicate id in one chunk would race with itself.
    if (this.chunkIds.has(result.advisory.id)) return;
    this.chunkIds.add(result.advisory.id);
    this.summary.read += 1;
    if (this.filter) for (const key of packageKeysOf(result.advisory)) this.filter.add(key);
    this.chunk.push(result.advisory);
    if (this.chunk.length >= CHUNK) await this.flush();
  }

  /** Imports the chunk into the window, and writes the window once it is full. */
  async flush(): Promise<void> {
    if (this.chunk.length > 0) await importChunk(this.chunk, this.summary, this.window);
    this.chunk = [];
    this.chunkIds = new Set();
    if (this.window.full) await this.writeWindow();
    this.options.onProgress?.({ read: this.readCount, total: this.total, summary: this.summary });
  }

  /**
   * Stores the filter keys read so far, then writes the window. The filter goes first because the window's
   * journal item starts the watch: a re-evaluation that read the filter without the window's new packages
   * would match nothing and take the change out of the journal. A key stored early costs a scan one empty read.
   */
  private async writeWindow(): Promise<void> {
    if (this.filter) {
      await packageFilterStore.add(this.filter);
      this.filter = new PackageFilter();
    }
    await this.window.flush();
    this.summary.packagesWritten = this.window.packagesWritten;
  }

  /** Writes everything pending. */
  async checkpoint(): Promise<void> {
    await this.flush();
    await this.writeWindow();
  }

  /** The whole source was imported: the completion record goes last. */
  async complete(): Promise<AdvisoryImportSummary> {
    await this.checkpoint();
    await recordImport('osv', { importedAt: new Date().toISOString() });
    return this.summary;
  }
}

export async function importAdvisories(
  source: Iterable<OsvReadResult> | AsyncIterable<OsvReadResult>,
  options: OsvImportOptions & { total?: number } = {},
): Promise<AdvisoryImportSummary> {
  const run = await OsvImportRun.start(options.total, options);
  for await (const result of source) await run.add(result);
  return run.complete();
}

export interface ArchiveUnitOptions extends OsvImportOptions {
  /** The entry index to start at (a checkpoint of an earlier unit); 0 = the first. */
  from?: number;
  /** Asked at each checkpoint: true ends the unit there. */
  shouldStop?: () => boolean;
  /**
   * Persists the entry index the next unit starts at, once the entries before it are written, and the
   * buckets with an unreadable entry so far (passed back as `errorBuckets`).
   */
  checkpoint?: (next: number, errorBuckets: number[]) => Promise<void>;
  /** Names the archive whose bucket fingerprints let unchanged entries be skipped; none: every entry is read. */
  scope?: string;
  /** Buckets with an unreadable entry found by the earlier units of this import. */
  errorBuckets?: readonly number[];
  /** Records between checkpoints (`CHECKPOINT_RECORDS`; tests make it small). */
  checkpointRecords?: number;
}

export interface ArchiveUnitResult extends AdvisoryImportSummary {
  /** Of `unchanged`, the records not read: their bucket's fingerprint was unchanged. */
  unchangedByFingerprint: number;
  /** Buckets with an unreadable entry so far: the next unit's `errorBuckets`. */
  errorBuckets: number[];
  /** Entries in the archive. */
  entries: number;
  /** Where the next unit starts; `entries` when the archive is done. */
  next: number;
  done: boolean;
}

/** Imports an OSV all.zip from entry `from` on, until its end or the first checkpoint after `shouldStop()`. */
export async function importOsvArchive(
  source: RandomAccessSource,
  options: ArchiveUnitOptions = {},
): Promise<ArchiveUnitResult> {
  const entries = await zipEntryCount(source);
  const from = options.from ?? 0;
  const run = await OsvImportRun.start(entries, options);
  const { scope } = options;
  const buckets = scope === undefined ? undefined : await archiveBuckets(source, entries);
  const unchanged = scope !== undefined && buckets ? await unchangedBuckets(scope, buckets, run.filtered) : undefined;
  const errorBuckets = new Set(options.errorBuckets);
  /** Whether to read an entry: a record whose bucket changed (every record without fingerprints). */
  const include = (index: number): boolean => {
    if (!buckets || !unchanged) return true;
    const bucket = buckets.bucketOf[index]!;
    if (bucket < 0) return false;
    if (unchanged[bucket] !== 1) return true;
    run.skip();
    return false;
  };
  const result = (next: number, done: boolean) => ({
    ...run.summary,
    unchangedByFingerprint: run.skipped,
    errorBuckets: [...errorBuckets],
    entries,
    next,
    done,
  });
  let sinceCheckpoint = 0;
  for await (const entry of readZipEntries(source, from, include)) {
    if (entry.name.toLowerCase().endsWith('.json')) {
      const record = parseEntry(entry.name, entry.bytes);
      if ('error' in record && buckets) errorBuckets.add(buckets.bucketOf[entry.index]!);
      await run.add(record);
      sinceCheckpoint += 1;
    }
    if (sinceCheckpoint >= (options.checkpointRecords ?? CHECKPOINT_RECORDS)) {
      sinceCheckpoint = 0;
      const next = entry.index + 1;
      await run.checkpoint();
      await options.checkpoint?.(next, [...errorBuckets]);
      if (next < entries && options.shouldStop?.()) return result(next, false);
    }
  }
  await run.complete();
  // Only a complete import vouches for its buckets: an interrupted one records nothing.
  if (scope !== undefined && buckets) await recordArchiveBuckets(scope, buckets, run.filtered, errorBuckets);
  await options.checkpoint?.(entries, [...errorBuckets]);
  return result(entries, true);
}

const decoder = new TextDecoder('utf-8');

function parseEntry(source: string, bytes: Uint8Array): OsvReadResult {
  try {
    return { source, advisory: parseOsvAdvisory(JSON.parse(decoder.decode(bytes)) as unknown) };
  } catch (error) {
    return { source, error: error instanceof Error ? error.message : String(error) };
  }
}
