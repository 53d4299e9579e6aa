/**
 * Work the deployed stack does outside API requests, run in-process locally:
 * the scan worker (SQS + Lambda on AWS), the first-start load of the bundled
 * sample corpus, and recovery after a crash (docs/architecture/background-work.md, "Recovery
 * after a crash"). It all runs before the server serves, so nothing of this
 * process is in flight yet: every pending record found is left over from a
 * previous process. stop() waits for running scans so a shutdown never cuts
 * one in half.
 */
import { AsyncResource } from 'node:async_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { runAsFunction } from '../service/aws-call-log';
import { completeCorpusImport } from '../service/corpus/import';
import { DispositionBatches } from '../service/dispositions/disposition-batches';
import { dispatchScan, registerInProcessScanWorker } from '../service/scans/scan-dispatch';
import { Scans } from '../service/scans/scans';
import { NO_GRACE, sweepUnfinishedWork } from '../service/scans/recovery-sweep';
import { applyCorpusChanges } from '../service/watch/watch';
import { checkCraDeadlines } from '../service/cra/deadline-check';
import { checkApiKeyExpiry } from '../service/identity/key-expiry';
import { Dispatch, type PassScope } from '../service/notifications/dispatch';
import { observeWrites } from '../service/data/table-client';
import { notificationWorkOf, notifyShards, type NotificationWork } from '../service/data/keys/notifications';

export interface BackgroundWork {
  stop(): Promise<void>;
}

export const SAMPLE_CORPUS_DIR = fileURLToPath(new URL('../service/corpus/sample/', import.meta.url));

/** The bundled sample corpus, per source (an absent file is skipped). */
export function sampleCorpusSources(directory = SAMPLE_CORPUS_DIR) {
  return [
    { source: 'osv' as const, path: join(directory, 'osv') },
    { source: 'kev' as const, path: join(directory, 'kev', 'known_exploited_vulnerabilities.json') },
  ].filter((entry) => existsSync(entry.path));
}

/** How often the local runtime looks for corpus changes another process (the admin CLI) recorded. */
const WATCH_POLL_MS = Number(process.env.VEXDESK_WATCH_POLL_MS ?? 5000);

/** How often the local runtime checks CRA deadlines and expiring API keys (on AWS the scan worker's sweep, every 15 minutes). */
const CRA_CHECK_MS = Number(process.env.VEXDESK_CRA_CHECK_MS ?? 60_000);

/**
 * Applies recorded corpus changes now and then: the admin CLI applies its own import's changes, and
 * this picks up whatever one cut off left (on AWS the corpus refresh and the scan worker's sweep do).
 */
function watchCorpusChanges(log: (line: Record<string, unknown>) => void): { stop(): Promise<void> } {
  let current: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let craCheckedAt = 0;
  const checkCra = async () => {
    if (Date.now() - craCheckedAt < CRA_CHECK_MS) return;
    craCheckedAt = Date.now();
    const result = await runAsFunction('scan-worker', () => checkCraDeadlines());
    if (result.events > 0) log({ type: 'cra', message: 'CRA deadline events', result });
    const expiring = await runAsFunction('scan-worker', () => checkApiKeyExpiry());
    if (expiring.events > 0) log({ type: 'keys', message: 'apikey.expiring events', result: expiring });
  };
  const tick = () => {
    current = runAsFunction('corpus-refresh', () => applyCorpusChanges({ stopping: () => stopped }))
      .then(async (summary) => {
        if (summary.changes > 0) log({ type: 'watch', message: 'corpus changes applied', result: summary });
        await checkCra();
      })
      .catch((error: unknown) => log({ type: 'watch', error: (error as Error).message }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, WATCH_POLL_MS).unref();
      });
  };
  let timer = setTimeout(tick, 0).unref();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}

/**
 * How often the local runtime reads every outbox shard (AWS: every minute), for events another process wrote (the
 * admin CLI, a test), if the engines counted a write of another process since the last such read: an idle server
 * makes no query for it. Events this process writes wake the dispatcher at once, retries it scheduled at their time.
 */
const NOTIFY_POLL_MS = Number(process.env.VEXDESK_NOTIFY_POLL_MS ?? 1000);
/**
 * How often it also reads the due index and the digest entries: retries another process scheduled and digests whose
 * hour came. Neither needs the second of the outbox's poll, and both are most of an idle pass's queries.
 */
const NOTIFY_SWEEP_MS = Number(process.env.VEXDESK_NOTIFY_SWEEP_MS ?? 5000);
/** Owed times are kept in steps of this: a burst of retries owed within one step needs one pass. */
const OWED_STEP_MS = 50;

/**
 * The notification worker's passes, in-process (functions/notify-worker on AWS). A pass reads every outbox shard
 * every NOTIFY_POLL_MS and the due index and digests every NOTIFY_SWEEP_MS; in between, a pass runs as soon as this
 * process wrote an event, and reads only the outbox shards it wrote to, and at the times retries it scheduled are
 * owed, reading only the due index: an idle look costs a query per shard and index, and a busy server writes events
 * many times a second. After a pass that filled an outbox page, or a poll that found events (another process may be
 * writing a burst), the next reads every outbox shard at once: a burst is sent as fast as it is
 * written.
 */
function dispatchNotifications(
  log: (line: Record<string, unknown>) => void,
  foreignWrites: () => number,
): {
  wake(work: NotificationWork): void;
  stop(): Promise<void>;
} {
  let current: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let passRunning = false;
  let timer: NodeJS.Timeout | undefined;
  /** When the timer fires (epoch ms). */
  let timerAt = Infinity;
  /** When the next pass over every outbox shard is owed (epoch ms). */
  let everyShardAt = Date.now();
  /** When the next pass over the due index and the digests is owed (epoch ms). */
  let sweepAt = Date.now();
  /** Outbox shards this process wrote events to since the last pass started. */
  const wokenShards = new Set<number>();
  /** Whether the next pass reads every outbox shard (the last filled a page, or read every shard and found events). */
  let readEveryShard = false;
  /** The count of other processes' writes when a poll last read the outbox: until it moves, a poll has nothing to find. */
  let foreignWritesPolled: number | undefined;
  /** When retries this process scheduled are owed (epoch ms, in 50-ms steps): a pass that starts after one covers it. */
  const owed = new Set<number>();
  const owe = (at: number) => owed.add(Math.ceil(at / OWED_STEP_MS) * OWED_STEP_MS);
  const schedule = (at: number) => {
    if (stopped || at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(tickOutsideRequests, Math.max(0, at - Date.now())).unref();
  };
  const nextPassAt = () =>
    readEveryShard || wokenShards.size > 0 ? Date.now() : Math.min(everyShardAt, sweepAt, ...owed);
  const tick = () => {
    timerAt = Infinity;
    passRunning = true;
    const startedAt = Date.now();
    let polled = startedAt >= everyShardAt;
    if (polled) {
      everyShardAt = startedAt + NOTIFY_POLL_MS;
      // Events of other processes reach the table only through the engines' front, which counts their writes.
      const foreign = foreignWrites();
      polled = foreign !== foreignWritesPolled;
      foreignWritesPolled = foreign;
    }
    const sweep = startedAt >= sweepAt;
    if (sweep) sweepAt = startedAt + NOTIFY_SWEEP_MS;
    const outboxShards = polled || readEveryShard ? notifyShards : [...wokenShards];
    const scope: PassScope = {
      outboxShards,
      dueIndex: sweep || [...owed].some((at) => at <= startedAt),
      digests: sweep,
    };
    wokenShards.clear();
    readEveryShard = false;
    const passEnded = () => {
      passRunning = false;
      for (const at of owed) if (at <= startedAt) owed.delete(at);
      schedule(nextPassAt());
    };
    if (outboxShards.length === 0 && !scope.dueIndex && !scope.digests) return passEnded();
    current = runAsFunction('notify-worker', () => Dispatch.runOnce(scope))
      .then((pass) => {
        // Events the poll found came from another process, which may be writing more: read again at once.
        readEveryShard = pass.moreEvents || (polled && pass.events > 0);
        if (pass.nextRetryAt !== undefined) owe(pass.nextRetryAt);
        if (pass.attempted > 0) log({ type: 'notify', result: pass });
      })
      .catch((error: unknown) => log({ type: 'notify', error: (error as Error).message }))
      .finally(passEnded);
  };
  // `wake` is called from within requests: a timer set there would run the pass in that request's context, as its
  // team (shared/service/request-context.ts). Passes run in the context the dispatcher started in.
  const tickOutsideRequests = AsyncResource.bind(tick);
  schedule(Date.now());
  return {
    wake: (work) => {
      if (work.kind === 'outbox') wokenShards.add(work.shard);
      else owe(Math.max(work.at, Date.now()));
      if (!passRunning) schedule(nextPassAt());
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}

export async function startLocalBackgroundWork(options: {
  dataDir: string;
  log: (line: Record<string, unknown>) => void;
  /** How many writes other processes have made through the engines (EmbeddedEngines.foreignWrites). */
  foreignWrites: () => number;
}): Promise<BackgroundWork> {
  // The recovery below is the code of the corpus-refresh and scan-worker functions on AWS (their
  // scheduled runs), so the call recorder attributes it to them (shared/service/aws-call-log.ts).
  const batches = await runAsFunction('corpus-refresh', () => DispositionBatches.recoverPending());
  if (batches.recovered.length > 0)
    options.log({ type: 'recovery', message: 'pending disposition batches finished before serving', result: batches });
  // Each source is marked complete only at its end, so a start that died mid-import finishes the rest now.
  const corpus = await runAsFunction('corpus-refresh', () => completeCorpusImport(sampleCorpusSources()));
  if (corpus.imported.length > 0) options.log({ type: 'corpus', message: 'sample corpus loaded', result: corpus });

  const running = new Set<Promise<unknown>>();
  const watch = watchCorpusChanges(options.log);
  const notifications = dispatchNotifications(options.log, options.foreignWrites);
  // Events and owed attempts this process writes wake the dispatcher, instead of waiting for its poll.
  const stopObserving = observeWrites((items) => {
    for (const item of items) {
      const work = notificationWorkOf(item);
      if (work) notifications.wake(work);
    }
  });
  registerInProcessScanWorker((job) => {
    const scan = runAsFunction('scan-worker', () => Scans.run(job.teamId, job.actor, job.sbomId))
      .then((summary) => options.log({ type: 'scan', sbomId: job.sbomId, findingCount: summary.findingCount }))
      .catch(async (error: unknown) => {
        options.log({ type: 'scan', sbomId: job.sbomId, error: (error as Error).message });
        // No queue retries in-process: the SBOM says failed (POST /api/cve-scan retries) instead of staying queued.
        await runAsFunction('scan-worker', () => Scans.recordFailure(job.teamId, job.sbomId, error)).catch(
          () => undefined,
        );
      })
      .finally(() => running.delete(scan));
    running.add(scan);
  });
  // The scan worker's scheduled sweep, with no grace: files of uploads that never got their item go, and
  // scans acknowledged (201) or started by a previous process that never finished run again.
  const { swept, resumed } = await runAsFunction('scan-worker', () =>
    sweepUnfinishedWork({ grace: NO_GRACE, runScan: dispatchScan }),
  );
  if (swept.staging.removed + swept.uploadSessions > 0)
    options.log({ type: 'recovery', message: 'removed files of unfinished uploads', result: swept });
  if (resumed.resumed + resumed.failed > 0)
    options.log({ type: 'recovery', message: 'resumed interrupted scans', result: resumed });
  return {
    stop: async () => {
      await watch.stop();
      stopObserving();
      await notifications.stop();
      registerInProcessScanWorker(undefined);
      await Promise.allSettled([...running]);
    },
  };
}
