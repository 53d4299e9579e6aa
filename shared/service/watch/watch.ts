/**
 * Applying recorded corpus changes to the watched SBOMs (docs/watch.md): the journal's pending changes
 * are read in batches, the package index names the SBOMs (of every team) that contain a changed
 * package, and each of those is re-evaluated for exactly those packages. A batch leaves the journal
 * only when every SBOM it names is done; a run cut off, or an SBOM busy past the deadline, leaves it
 * for the next run (every step is idempotent). Callers: the corpus refresh after its imports (AWS),
 * the admin CLI's `corpus import`, and the local runtime's background poll.
 */
import { inParallel } from '../concurrency';
import { packagesOfCves } from '../corpus/cve-packages';
import { logger } from '../logger';
import { runAsTeam } from '../request-context';
import { corpusChanges, type CorpusChange } from './corpus-changes';
import { Dashboard } from './dashboard';
import { reevaluateSbom, type ReevaluationOutcome } from './reevaluation';
import { anySbomWatched, sbomsContaining, watchKeysForPackage } from './watch-index';

/** Journal items per batch: their SBOMs are re-evaluated once for all of them. */
const BATCH_ITEMS = 50;
/** SBOMs re-evaluated at once. */
const CONCURRENCY = 4;

export interface WatchRunSummary {
  /** Journal items applied. */
  changes: number;
  packageKeys: number;
  cveIds: number;
  sboms: number;
  outcomes: Partial<Record<ReevaluationOutcome['status'], number>>;
  affectedComponents: number;
  detected: number;
  resolved: number;
  updated: number;
  events: number;
  writes: number;
  /** False when changes were left for the next run (deadline, or an SBOM busy throughout). */
  complete: boolean;
}

export interface WatchRunOptions {
  /** Epoch ms: no SBOM is started, and no dashboard snapshot taken, after it. */
  deadline?: number;
  batchItems?: number;
  stopping?: () => boolean;
}

function emptySummary(): WatchRunSummary {
  return {
    changes: 0,
    packageKeys: 0,
    cveIds: 0,
    sboms: 0,
    outcomes: {},
    affectedComponents: 0,
    detected: 0,
    resolved: 0,
    updated: 0,
    events: 0,
    writes: 0,
    complete: true,
  };
}

/**
 * Applies pending corpus changes until none are left, `deadline` (epoch ms) is near, or `stopping()`
 * says the process is shutting down (checked between SBOMs: what is left stays in the journal). Then
 * stores today's dashboard counts of every team whose findings it changed, unless that day has them, so
 * a day whose findings changed has a trend point even if nobody opened the dashboard.
 */
export async function applyCorpusChanges(options: WatchRunOptions = {}): Promise<WatchRunSummary> {
  const touchedTeams = new Set<string>();
  const summary = await applyPending(options, touchedTeams);
  for (const teamId of touchedTeams) {
    if (Date.now() >= (options.deadline ?? Number.POSITIVE_INFINITY) || options.stopping?.()) break;
    // The trend point is a convenience: a failure costs that day's point, never the applied changes.
    await runAsTeam(teamId, () => Dashboard.snapshot(teamId)).catch((error: unknown) =>
      logger.warn('dashboard snapshot failed', { teamId, error: (error as Error).message }),
    );
  }
  return summary;
}

async function applyPending(options: WatchRunOptions, touchedTeams: Set<string>): Promise<WatchRunSummary> {
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  const stopping = options.stopping ?? (() => false);
  const summary = emptySummary();
  while (Date.now() < deadline && !stopping()) {
    const batch: CorpusChange[] = await corpusChanges.pending(options.batchItems ?? BATCH_ITEMS);
    if (batch.length === 0) return summary;
    // No SBOM was ever indexed (the corpus a first start loads): nothing can be affected.
    if (!(await anySbomWatched())) {
      await corpusChanges.applied(batch);
      summary.changes += batch.length;
      continue;
    }
    const cveIds = [...new Set(batch.flatMap((change) => change.cveIds))];
    const packageKeys = new Set(batch.flatMap((change) => change.packageKeys));
    // A CVE's KEV listing changes the findings of every record naming it (the CVEs' alias items).
    for (const key of await packagesOfCves(cveIds)) packageKeys.add(key);
    const changeId = batch.reduce((latest, change) => (change.changeId > latest ? change.changeId : latest), '');
    const watched = await sbomsContaining([...packageKeys].flatMap(watchKeysForPackage));
    let leftOver = false;
    await inParallel(watched, CONCURRENCY, async (sbom) => {
      if (stopping()) {
        leftOver = true;
        return;
      }
      const result = await reevaluateSbom(
        sbom.teamId,
        sbom.sbomId,
        { packageKeys, cveIds: new Set(cveIds), changeId },
        deadline,
      );
      summary.outcomes[result.status] = (summary.outcomes[result.status] ?? 0) + 1;
      if (result.detected + result.resolved + result.updated > 0) touchedTeams.add(sbom.teamId);
      if (result.status === 'busy') leftOver = true;
      summary.affectedComponents += result.affectedComponents;
      summary.detected += result.detected;
      summary.resolved += result.resolved;
      summary.updated += result.updated;
      summary.events += result.events;
      summary.writes += result.writes;
    });
    summary.sboms += watched.length;
    summary.packageKeys += packageKeys.size;
    summary.cveIds += cveIds.length;
    if (leftOver) {
      summary.complete = false;
      logger.info('corpus changes left for the next run: an SBOM stayed busy, or the run was stopped', {
        items: batch.length,
      });
      return summary;
    }
    await corpusChanges.applied(batch);
    summary.changes += batch.length;
  }
  summary.complete = false;
  return summary;
}
