/**
 * A whole-archive OSV refresh in resumable units (docs/corpus-at-scale.md "Units"). The downloaded
 * all.zip is checked (its central directory read), copied to the SBOM bucket and its cursor stored in
 * the ecosystem's feed state; then units import it from the staged copy, read by range, each from the
 * entry index the last checkpoint stored, and stop at the first checkpoint after their time is up. The
 * next invocation (the continuation schedule, the hourly run, a retry) resumes there, from any
 * invocation: nothing of a unit lives in the function's /tmp.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { config } from '../config';
import { getObject, putObject } from '../aws-s3';
import { keys } from '../data/keys';
import type { FeedValidators } from './feed-download';
import { FeedDownloadError } from './feed-download';
import { importOsvArchive, type ArchiveUnitResult, type OsvImportOptions } from './osv-import';
import { fileSource, zipEntryCount, type RandomAccessSource } from './parse/zip-entries';

/** An archive import under way: where its staged copy is, how far it got, and what the ecosystem's state becomes when it is done. */
export interface ArchiveImportState {
  objectKey: string;
  size: number;
  entries: number;
  /** The entry index the next unit starts at. */
  next: number;
  /** Buckets of the archive with an unreadable entry so far: they get no fingerprint (archive-fingerprints.ts). */
  errorBuckets?: number[];
  startedAt: string;
  reason: string;
  /** The listing's mark and validators at the download: the ecosystem's once the import is done. */
  cursor?: string;
  validators?: FeedValidators;
}

/** An S3 object read by byte range (GetObject with `Range`). */
export function s3Source(bucket: string, key: string, size: number): RandomAccessSource {
  return {
    size,
    async read(offset, length) {
      const end = Math.min(size, offset + length) - 1;
      if (end < offset) return Buffer.alloc(0);
      const object = await getObject({ Bucket: bucket, Key: key, Range: `bytes=${offset}-${end}` });
      // GetObject always has a Body on success.
      return Buffer.from(await object.Body!.transformToByteArray());
    },
  };
}

/**
 * Checks a downloaded all.zip (a truncated or damaged archive has no readable central directory and
 * fails here, before anything is staged or imported) and stages it for the units.
 */
export async function stageArchive(
  url: string,
  ecosystem: string,
  file: string,
  fields: Pick<ArchiveImportState, 'reason' | 'cursor' | 'validators' | 'startedAt'>,
): Promise<ArchiveImportState> {
  const local = await fileSource(file);
  let entries: number;
  try {
    entries = await zipEntryCount(local);
  } catch (error) {
    throw new FeedDownloadError(url, `not a complete zip archive: ${(error as Error).message}`, { cause: error });
  } finally {
    await local.close?.();
  }
  const { size } = await stat(file);
  const objectKey = keys.corpusArchiveObject(ecosystem);
  await putObject({
    Bucket: config().sbomBucket,
    Key: objectKey,
    Body: createReadStream(file),
    ContentLength: size,
    ContentType: 'application/zip',
  });
  return {
    objectKey,
    size,
    entries,
    next: 0,
    ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
  } as ArchiveImportState;
}

/** One unit of the staged archive's import, from its stored cursor; `save` persists each checkpoint. */
export async function importArchiveUnit(
  archive: ArchiveImportState,
  options: OsvImportOptions & {
    shouldStop: () => boolean;
    save: (archive: ArchiveImportState) => Promise<void>;
    checkpointRecords?: number | undefined;
  },
): Promise<ArchiveUnitResult & { from: number }> {
  const source = s3Source(config().sbomBucket, archive.objectKey, archive.size);
  const unit = await importOsvArchive(source, {
    ...options,
    from: archive.next,
    scope: archive.objectKey,
    errorBuckets: archive.errorBuckets ?? [],
    checkpoint: (next, errorBuckets) => options.save({ ...archive, next, errorBuckets }),
  });
  return { ...unit, from: archive.next };
}
