/**
 * The scheduled corpus refresh (functions/corpus-refresh): download every configured
 * feed, check each one is whole, and only then import them. A failed or partial
 * download (HTTP error, connection reset, truncated zip or gzip, a body shorter than
 * its Content-Length) fails the refresh before anything is written, so the corpus
 * stays exactly as it was and the next scheduled run tries again.
 *
 * Feeds are written to a private temporary directory as they arrive, not held in
 * memory: OSV's npm all.zip alone is a few hundred megabytes. Each file is read back
 * only for its own check and its own import.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { unzipSync } from 'fflate';
import { logger } from '../logger';
import { importAdvisories, importEpss, importKev } from './import';
import { parseEpssCsv, type EpssScores } from './parse/epss';
import { parseKevCatalog, type KevCatalog } from './parse/kev';
import { readOsvZip } from './parse/osv-archive';

/** Where the refresh downloads from; an empty list or undefined URL skips that source. */
export interface CorpusFeeds {
  /** OSV per-ecosystem `all.zip` URLs. */
  osv: readonly string[];
  /** CISA KEV catalog JSON. */
  kev: string | undefined;
  /** FIRST EPSS daily scores, CSV or CSV.gz. */
  epss: string | undefined;
}

/** One download may take this long (the function's timeout is 900 s). */
const DOWNLOAD_TIMEOUT_MS = 300_000;

export class FeedDownloadError extends Error {
  constructor(
    readonly url: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${url}: ${message}`, options);
    this.name = 'FeedDownloadError';
  }
}

/** Streams `url` to `file`; fails on an HTTP error, a broken connection or a body of the wrong length. */
async function download(url: string, file: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (error) {
    throw new FeedDownloadError(url, `request failed: ${(error as Error).message}`, { cause: error });
  }
  if (!response.ok || !response.body) throw new FeedDownloadError(url, `HTTP ${response.status}`);
  const expected = response.headers.get('content-length');
  // GCS (OSV) sends `x-goog-hash: crc32c=…,md5=<base64>`: when present, the bytes must match it.
  const md5 = /(?:^|,)\s*md5=([A-Za-z0-9+/=]+)/.exec(response.headers.get('x-goog-hash') ?? '')?.[1];
  const hash = createHash('md5');
  let received = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body), count, createWriteStream(file, { mode: 0o600 }));
  } catch (error) {
    throw new FeedDownloadError(url, `download broken off after ${received} bytes: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (expected !== null && Number(expected) !== received)
    throw new FeedDownloadError(url, `received ${received} of ${expected} bytes`);
  if (md5 !== undefined && hash.digest('base64') !== md5)
    throw new FeedDownloadError(url, 'content does not match its x-goog-hash md5');
}

/** A downloaded feed, checked whole and ready to import. */
type CheckedFeed =
  | { source: 'osv'; url: string; file: string; entries: number }
  | { source: 'kev'; url: string; catalog: KevCatalog }
  | { source: 'epss'; url: string; scores: EpssScores };

/** Reads the zip's central directory (at its end, so a truncated archive has none) without inflating anything. */
function osvZipEntries(url: string, zip: Uint8Array): number {
  let entries = 0;
  try {
    unzipSync(zip, {
      filter: () => {
        entries += 1;
        return false;
      },
    });
  } catch (error) {
    throw new FeedDownloadError(url, `not a complete zip archive: ${(error as Error).message}`, { cause: error });
  }
  return entries;
}

async function check(source: 'osv' | 'kev' | 'epss', url: string, file: string): Promise<CheckedFeed> {
  const bytes = await readFile(file);
  try {
    switch (source) {
      case 'osv':
        return { source, url, file, entries: osvZipEntries(url, bytes) };
      case 'kev':
        return { source, url, catalog: parseKevCatalog(bytes) };
      case 'epss':
        // A truncated gzip fails to inflate here; the scores are parsed once, before any write.
        return { source, url, scores: parseEpssCsv(bytes) };
    }
  } catch (error) {
    if (error instanceof FeedDownloadError) throw error;
    throw new FeedDownloadError(url, `unreadable ${source} feed: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Downloads and checks every feed, then imports them (OSV first, so KEV and EPSS
 * annotate advisories that exist). Throws, having written nothing, when any feed
 * cannot be downloaded whole.
 */
export async function refreshCorpus(feeds: CorpusFeeds): Promise<Record<string, unknown>> {
  const directory = await mkdtemp(join(tmpdir(), 'vexdesk-feeds-'));
  try {
    const wanted: Array<{ source: 'osv' | 'kev' | 'epss'; url: string }> = [
      ...feeds.osv.map((url) => ({ source: 'osv' as const, url })),
      ...(feeds.kev ? [{ source: 'kev' as const, url: feeds.kev }] : []),
      ...(feeds.epss ? [{ source: 'epss' as const, url: feeds.epss }] : []),
    ];
    const checked: CheckedFeed[] = [];
    for (const [index, feed] of wanted.entries()) {
      const file = join(directory, `${index}-${feed.source}`);
      await download(feed.url, file);
      checked.push(await check(feed.source, feed.url, file));
    }

    const results: Record<string, unknown> = {};
    for (const feed of checked) {
      switch (feed.source) {
        case 'osv':
          results[feed.url] = {
            entries: feed.entries,
            ...(await importAdvisories(readOsvZip(await readFile(feed.file)))),
          };
          break;
        case 'kev':
          results.kev = await importKev(feed.catalog, { removeUnlisted: true });
          break;
        case 'epss':
          results.epss = await importEpss(feed.scores);
          break;
      }
    }
    logger.info('corpus refreshed', { results });
    return results;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
