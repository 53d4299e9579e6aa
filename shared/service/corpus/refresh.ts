/**
 * The scheduled corpus refresh (functions/corpus-refresh, hourly on AWS): each feed fetches only
 * what changed since its last success, is checked whole, and only then imported.
 *
 * - OSV, per ecosystem: `modified_id.csv` names the records modified since the last success; only
 *   those are downloaded (osv-feed.ts). The whole `all.zip` on the first run, after a gap longer
 *   than the horizon, or when more records changed than the threshold.
 * - KEV: the catalog (small) is fetched whole and imported only when its catalogVersion moved; the
 *   import diffs it by entry.
 * - EPSS: not downloaded again while the server says it is unchanged (ETag / Last-Modified) or the
 *   URL's date is the score date already imported; the import skips a score date it has.
 *
 * Feeds fail alone: a failed download or check of one feed (an ecosystem, KEV, EPSS) imports none of
 * it and leaves its mark where it was, so the next run fetches the same changes again; the other
 * feeds go on. The run then throws, so the function's `Errors` metric counts it. Each feed's state
 * (feed-state.ts) says when it last succeeded, when it was last tried and why it failed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logger } from '../logger';
import { importAdvisories, importEpss, importKev } from './import';
import { downloadBytes, downloadToFile, FeedDownloadError } from './feed-download';
import { feedName, readFeedStates, writeFeedStates, type FeedId, type FeedState } from './feed-state';
import { refreshLease } from './refresh-lease';
import {
  DEFAULT_OSV_LIMITS,
  fetchOsvRecords,
  osvEcosystemUrl,
  parseModifiedIds,
  planOsvRefresh,
  type OsvRefreshLimits,
} from './osv-feed';
import { parseEpssCsv } from './parse/epss';
import { parseKevCatalog } from './parse/kev';
import { importArchiveUnit, stageArchive, type ArchiveImportState } from './osv-archive-refresh';

export { FeedDownloadError } from './feed-download';

/** Where the refresh downloads from; no ecosystems or an undefined URL skips that source. */
export interface CorpusFeeds {
  /** OSV's export bucket (or a mirror with its layout) and the ecosystems to keep. */
  osv: { baseUrl: string; ecosystems: readonly string[] };
  /** CISA KEV catalog JSON. */
  kev: string | undefined;
  /** FIRST EPSS daily scores, CSV or CSV.gz. */
  epss: string | undefined;
}

export interface RefreshOptions {
  now?: () => Date;
  osvLimits?: OsvRefreshLimits;
  /**
   * When this run's import work ends (epoch ms): an archive import stops at its first checkpoint after
   * it, and feeds not begun by then wait for the next run. None = run everything to the end.
   */
  workDeadline?: number;
  /** Only continue whole-archive imports under way (the continuation schedule); the feeds wait for the hourly run. */
  continuationOnly?: boolean;
  /** Records between two checkpoints of an archive import (import-units.ts `CHECKPOINT_RECORDS`). */
  checkpointRecords?: number;
}

/** One or more feeds failed; the others were refreshed. */
export class CorpusRefreshError extends Error {
  constructor(
    readonly failures: Record<string, string>,
    readonly results: Record<string, unknown>,
  ) {
    super(`corpus refresh failed for ${Object.keys(failures).join(', ')}: ${Object.values(failures).join('; ')}`);
    this.name = 'CorpusRefreshError';
  }
}

interface FeedOutcome {
  result: Record<string, unknown>;
  /** What the next run starts from. */
  state: Pick<FeedState, 'records' | 'cursor' | 'lastFullAt' | 'validators' | 'version' | 'archive'>;
  /** An archive import stopped at a checkpoint: the feed is not refreshed yet, the next run goes on. */
  pending?: boolean;
}

interface FeedContext {
  previous: FeedState | undefined;
  directory: string;
  now: () => Date;
  osvLimits: OsvRefreshLimits;
  shouldStop: () => boolean;
  checkpointRecords: number | undefined;
  /** Stores the feed's state now (an archive's cursor at each checkpoint), keeping the rest of it. */
  save: (state: Partial<FeedState>) => Promise<void>;
}

function unreadable(url: string, source: string, error: unknown): FeedDownloadError {
  return new FeedDownloadError(url, `unreadable ${source} feed: ${(error as Error).message}`, { cause: error });
}

/** The next unit of an archive import; when it reaches the end, the ecosystem's state becomes the download's. */
async function continueArchive(archive: ArchiveImportState, context: FeedContext): Promise<FeedOutcome> {
  const unit = await importArchiveUnit(archive, {
    shouldStop: context.shouldStop,
    checkpointRecords: context.checkpointRecords,
    save: (next) => context.save({ archive: next }),
  });
  const { next, done, from, errorBuckets, ...summary } = unit;
  const result = { mode: 'full', reason: archive.reason, from, ...summary };
  if (!done)
    return { result: { ...result, next }, state: { archive: { ...archive, next, errorBuckets } }, pending: true };
  return {
    result,
    state: {
      cursor: archive.cursor,
      validators: archive.validators,
      records: unit.entries,
      lastFullAt: context.now().toISOString(),
      archive: undefined,
    },
  };
}

async function refreshOsv(baseUrl: string, ecosystem: string, context: FeedContext): Promise<FeedOutcome> {
  const { previous, now, osvLimits } = context;
  if (previous?.archive) return continueArchive(previous.archive, context);
  const listingUrl = osvEcosystemUrl(baseUrl, ecosystem, 'modified_id.csv');
  const recent =
    previous?.lastSuccessAt !== undefined &&
    previous.cursor !== undefined &&
    now().getTime() - new Date(previous.lastSuccessAt).getTime() <= osvLimits.fullRefreshAfterMs;
  // The listing is fetched first, also for a full refresh: its newest time becomes the cursor, so a
  // record modified while all.zip downloads is fetched again next run rather than missed.
  const listingDownload = await downloadBytes(listingUrl, recent ? previous.validators : undefined);
  if (listingDownload.notModified) return { result: { mode: 'unchanged', records: 0 }, state: { records: 0 } };
  const listing = parseModifiedIds(listingUrl, listingDownload.body.toString('utf8'));
  const listed = listing.reduce<string | undefined>(
    (max, entry) => (max === undefined || entry.modified > max ? entry.modified : max),
    undefined,
  );

  const plan = await planOsvRefresh(previous, listing, now(), osvLimits);
  // After a whole archive the listing's newest time is the mark (a mirror may be behind the old one);
  // after changes the mark only moves forward.
  const cursor =
    plan.kind === 'full' || previous?.cursor === undefined || (listed !== undefined && listed > previous.cursor)
      ? (listed ?? previous?.cursor)
      : previous.cursor;
  const state = { cursor, validators: listingDownload.validators };
  if (plan.kind === 'full') {
    const zipUrl = osvEcosystemUrl(baseUrl, ecosystem, 'all.zip');
    const file = join(context.directory, `osv-${encodeURIComponent(ecosystem)}.zip`);
    await downloadToFile(zipUrl, file);
    const archive = await stageArchive(zipUrl, ecosystem, file, {
      reason: plan.reason,
      cursor: state.cursor,
      validators: state.validators,
      startedAt: now().toISOString(),
    });
    // Stored before the first unit: a run killed from here on resumes the staged copy, not a new download.
    await context.save({ archive });
    return continueArchive(archive, context);
  }
  if (plan.entries.length === 0) return { result: { mode: 'changes', records: 0 }, state: { ...state, records: 0 } };
  const records = await fetchOsvRecords(baseUrl, ecosystem, plan.entries);
  const summary = await importAdvisories(records);
  return {
    result: { mode: 'changes', records: records.length, ...summary },
    state: { ...state, records: records.length },
  };
}

async function refreshKev(url: string, context: FeedContext): Promise<FeedOutcome> {
  const { previous } = context;
  const downloaded = await downloadBytes(url, previous?.lastSuccessAt ? previous.validators : undefined);
  if (downloaded.notModified) return { result: { unchanged: true }, state: { records: previous?.records } };
  let catalog;
  try {
    catalog = parseKevCatalog(JSON.parse(downloaded.body.toString('utf8')) as unknown);
  } catch (error) {
    throw unreadable(url, 'kev', error);
  }
  const state = { records: catalog.entries.size, validators: downloaded.validators, version: catalog.catalogVersion };
  if (previous?.lastSuccessAt && catalog.catalogVersion !== '' && catalog.catalogVersion === previous.version)
    return { result: { entries: catalog.entries.size, unchanged: true }, state };
  // The feed is the whole catalog: an entry CISA dropped leaves KEV.
  return { result: await importKev(catalog, { removeUnlisted: true }), state };
}

/** `…/epss_scores-2026-12-06.csv.gz`: the score date, when the URL names one. */
const DATE_IN_URL = /(\d{4}-\d{2}-\d{2})(?:\.csv)?(?:\.gz)?$/;

async function refreshEpss(url: string, context: FeedContext): Promise<FeedOutcome> {
  const { previous } = context;
  const dated = DATE_IN_URL.exec(new URL(url).pathname)?.[1];
  if (previous?.lastSuccessAt && dated !== undefined && previous.version?.startsWith(dated))
    return { result: { skipped: true }, state: { records: previous.records, version: previous.version } };
  const file = join(context.directory, 'epss');
  const downloaded = await downloadToFile(url, file, previous?.lastSuccessAt ? previous.validators : undefined);
  if (downloaded.notModified)
    return { result: { skipped: true }, state: { records: previous?.records, version: previous?.version } };
  let scores;
  try {
    // A truncated gzip fails to inflate here; the scores are parsed once, before any write.
    scores = parseEpssCsv(await readFile(file));
  } catch (error) {
    throw unreadable(url, 'epss', error);
  }
  return {
    result: await importEpss(scores),
    state: { records: scores.scores.size, validators: downloaded.validators, version: scores.scoreDate ?? undefined },
  };
}

/** What a failure says in the status endpoint: the checks' own messages; anything else stays in the log. */
function publicError(error: unknown): string {
  if (error instanceof FeedDownloadError) return error.message;
  return "the import failed; the corpus-refresh function's log has the details";
}

/**
 * Refreshes every configured feed in turn (OSV first, so KEV and EPSS annotate advisories that
 * exist). Returns what each did; throws `CorpusRefreshError` after the run when any feed failed.
 */
export async function refreshCorpus(
  feeds: CorpusFeeds,
  options: RefreshOptions = {},
): Promise<Record<string, unknown>> {
  const now = options.now ?? (() => new Date());
  const osvLimits = options.osvLimits ?? DEFAULT_OSV_LIMITS;
  const wanted: Array<FeedId & { run: (context: FeedContext) => Promise<FeedOutcome> }> = [
    ...feeds.osv.ecosystems.map((ecosystem) => ({
      source: 'osv' as const,
      ecosystem,
      run: (context: FeedContext) => refreshOsv(feeds.osv.baseUrl, ecosystem, context),
    })),
    ...(feeds.kev ? [{ source: 'kev' as const, run: (context: FeedContext) => refreshKev(feeds.kev!, context) }] : []),
    ...(feeds.epss
      ? [{ source: 'epss' as const, run: (context: FeedContext) => refreshEpss(feeds.epss!, context) }]
      : []),
  ];
  const allIds = wanted.map(({ source, ecosystem }): FeedId =>
    ecosystem === undefined ? { source } : { source, ecosystem },
  );
  const states = await readFeedStates(allIds);
  // A continuation run goes on with the archive imports under way and leaves the feeds to the hourly run.
  const chosen = wanted
    .map((feed, index) => ({ feed, id: allIds[index]! }))
    .filter(({ id }) => !options.continuationOnly || states.get(feedName(id))?.archive !== undefined);
  if (chosen.length === 0) return {};
  const attemptedAt = now().toISOString();

  const shouldStop = () => options.workDeadline !== undefined && Date.now() >= options.workDeadline;
  const directory = await mkdtemp(join(tmpdir(), 'vexdesk-feeds-'));
  const results: Record<string, unknown> = {};
  const failures: Record<string, string> = {};
  const pending: string[] = [];
  try {
    for (const { feed, id } of chosen) {
      const name = feedName(id);
      if (shouldStop()) {
        // Out of time before this feed began: the next run (a continuation) takes it.
        results[name] = { deferred: true };
        pending.push(name);
        continue;
      }
      const lease = await refreshLease.take(name, now());
      if (!lease) {
        results[name] = { skipped: 'another run is refreshing this feed' };
        continue;
      }
      // Read again under the lease: a run that held it until now may have moved the feed on.
      const previous = (await readFeedStates([id])).get(name);
      let current: FeedState = { ...previous, ...id, lastAttemptAt: attemptedAt };
      const save = async (state: Partial<FeedState>) => {
        current = { ...current, ...state };
        await writeFeedStates([current]);
      };
      // Marked as tried before the work: a run cut off by the function's timeout still shows when it started.
      await save({});
      // Each feed's files go when it is done: /tmp holds one ecosystem's all.zip at a time.
      const feedDirectory = await mkdtemp(join(directory, 'feed-'));
      try {
        const outcome = await feed.run({
          previous,
          directory: feedDirectory,
          now,
          osvLimits,
          shouldStop,
          checkpointRecords: options.checkpointRecords,
          save,
        });
        results[name] = outcome.result;
        if (outcome.pending) pending.push(name);
        await save({
          ...outcome.state,
          ...(outcome.pending ? {} : { lastSuccessAt: now().toISOString() }),
          lastError: undefined,
        });
      } catch (error) {
        failures[name] = (error as Error).message;
        logger.error('corpus feed refresh failed', { feed: name, error });
        await save({ lastError: publicError(error) });
      } finally {
        await rm(feedDirectory, { recursive: true, force: true });
        await refreshLease.release(lease);
      }
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  if (pending.length > 0) results.pending = pending;
  logger.info('corpus refreshed', { results, failures });
  if (Object.keys(failures).length > 0) throw new CorpusRefreshError(failures, results);
  return results;
}
