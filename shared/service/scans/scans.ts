/**
 * The CVE scan (spec "Scan rules"): match an SBOM's components against the
 * corpus and store the findings. Reads grow with the components (one batched
 * read per distinct package, never a corpus scan). Finding ids are derived
 * from (SBOM, component, advisory), so a rescan or a corpus refresh keeps ids
 * and dispositions; a finding that stops matching is deleted unless a
 * disposition refers to it, in which case it is kept and flagged
 * `no_longer_detected`. Only findings new or changed are written (one the same
 * but for `lastSeenAt` keeps its item). Decisions are per (release, package, advisory), so a
 * re-upload meets the release's decisions as is; pairs still undecided take
 * earlier releases' decisions (carry-over, shared/service/dispositions/carry-over.ts).
 */
import { keys } from '../data/keys';
import { batchWrite, transactWrite, TransactionFailedError, tx, type Item } from '../data/table-client';
import { auditPut } from '../audit/audit-log';
import { scanCompletedEvent } from '../events/change-events';
import type { Actor } from '../identity/actor';
import { corpusStore } from '../corpus/corpus-store';
import { severityResolver } from '../corpus/alias-severity';
import { dispositionStore } from '../dispositions/disposition-store';
import { decisionIndex } from '../dispositions/decision-identity';
import { CarryOver, type CarryOverResult } from '../dispositions/carry-over';
import { TeamSettingsService } from '../identity/team-settings';
import { Sboms } from '../sboms/sboms';
import { sbomItem, sbomStore, type ResolvedSbom, type ScanSummary } from '../sboms/sbom-store';
import { sbomRecovery } from '../sboms/sbom-recovery';
import { findingId, findingItem, findingPointerItem, findingStore, type Finding } from './finding-store';
import { buildFinding, changedForReaders, resolveFinding, scoredCveIds, type FindingContext } from './finding-build';
import { corpusChanges } from '../watch/corpus-changes';
import { findingsDigest } from './findings-digest';
import type { ScanJob } from './scan-dispatch';
import { SCAN_MAX_RECOVERIES } from './scan-retries';
import { scanLease, type HeldLease } from './scan-lease';
import { ScanNotReadyError } from './vulnerabilities';
import { logger } from '../logger';
import { ScanLaps } from './scan-laps';
import { watchIndexWrites } from '../watch/watch-index';
import { CraCaseOpening } from '../cra/case-opening';

/** Batch writes in flight: 2,000 findings and their id pointers are 160 BatchWriteItem calls. */
const WRITE_CONCURRENCY = 16;

/** A joiner gives up this long before its caller's deadline, leaving time to answer. */
const JOIN_ANSWER_MARGIN_MS = 1000;

const PAST_DEADLINE = Symbol('past deadline');

/**
 * The work's result, or PAST_DEADLINE when `deadline` (epoch ms) comes first; the work itself goes
 * on. A lease read or an SBOM read still in flight at the deadline must not keep the answer
 * past it: on a loaded machine one such read took the request past the function's timeout (a 500).
 */
async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | typeof PAST_DEADLINE> {
  if (deadline === Number.POSITIVE_INFINITY) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<typeof PAST_DEADLINE>((resolve) => {
    timer = setTimeout(() => resolve(PAST_DEADLINE), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, timeUp]);
  } finally {
    clearTimeout(timer);
  }
}

/** The scan proper, run while holding the SBOM's lease; 'lost' when the lease was taken over before the result was stored. */
async function scanHolding(
  { sbom, release, product }: ResolvedSbom,
  actor: Actor,
  lease: HeldLease,
): Promise<ScanSummary | 'lost'> {
  const teamId = sbom.teamId;
  const laps = new ScanLaps();
  // Read before any corpus read: the findings reflect at least this version (Scans.run compares it after the result).
  const corpusVersionRead = corpusChanges.version();
  corpusVersionRead.catch(() => undefined);
  // The matcher (version schemes, advisory index: ~80 KB) loads while the scan's first reads run:
  // the functions that list findings never load it, and a scan's cold start overlaps it with I/O.
  const matcher = import('./scan-matching');
  // Awaited below, where a failure surfaces; this keeps it from being unhandled if a read throws first.
  matcher.catch(() => undefined);
  // Marked before any work: a process that dies from here on leaves the SBOM in the pending-scan index.
  await sbomRecovery.markScanRunning(sbom, actor, lease.state.startedAt);
  laps.lap('markRunning');
  const components = await sbomStore.readInventory(sbom);
  laps.lap('inventory');
  // Once per SBOM: its components do not change (watchIndexedAt is set with the result below). Its
  // reads of the stored presence items run beside the matching.
  const indexWrites = sbom.watchIndexedAt
    ? Promise.resolve([])
    : watchIndexWrites({ ...sbom, productId: product.id, releaseId: release.id }, components);
  indexWrites.catch(() => undefined); // awaited with the writes below
  const { indexForComponents, scanComponents } = await matcher;
  const index = await indexForComponents(components);
  laps.lap('advisoryIndex');
  const result = scanComponents(components, index);
  laps.lap('matching');
  const byRef = new Map(components.map((component) => [component.ref, component]));
  // Spec "Vulnerability": the highest-fidelity score, borrowed from an aliased record when the advisory has none.
  const [severityOf, scores, settings, corpusVersion] = await Promise.all([
    severityResolver(result.findings, (id) => index.advisory(id)),
    corpusStore.scores(scoredCveIds(result.findings)),
    TeamSettingsService.get(teamId),
    corpusVersionRead,
  ]);
  laps.lap('severityAndScores');
  const existing = new Map(
    (await findingStore.listBySbom(teamId, product.id, release.id, sbom.id)).map((finding) => [finding.id, finding]),
  );
  laps.lap('existingFindings');
  const now = new Date().toISOString();

  const context: FindingContext = {
    teamId,
    productId: product.id,
    releaseId: release.id,
    sbomId: sbom.id,
    index,
    componentsByRef: byRef,
    severityOf,
    scores,
    detectedBy: 'scan',
    now,
  };
  const current = new Map<string, Finding>();
  /** Findings new or changed: the only finding items written. */
  const rewritten = new Set<string>();
  for (const match of result.findings) {
    const id = findingId(sbom.id, match.componentRef, match.advisoryId);
    const previous = existing.get(id);
    const built = buildFinding(match, context, previous);
    // Changed in nothing but `lastSeenAt`: the stored item stays as it is, as after a re-evaluation.
    if (previous && !changedForReaders(previous, built)) current.set(id, previous);
    else {
      current.set(id, built);
      rewritten.add(id);
    }
  }

  const vanished = [...existing.values()].filter((finding) => !current.has(finding.id));
  const newlyResolved = vanished.filter((finding) => !finding.noLongerDetected).length;
  laps.lap('buildFindings');
  const decisionOf = decisionIndex(await dispositionStore.listByRelease(teamId, product.id, release.id));
  laps.lap('releaseDispositions');
  const puts: Item[] = [];
  for (const finding of current.values()) {
    if (rewritten.has(finding.id)) puts.push(findingItem(finding));
    if (!existing.has(finding.id)) puts.push(findingPointerItem(finding));
  }
  const indexItems = await indexWrites;
  puts.push(...indexItems);
  /** What the SBOM's finding items are once the writes are done: the digest holds the same. */
  const stored = [...current.values()];
  // A finding no longer matched is kept, resolved, with its decision: the history of what was shipped stays.
  for (const finding of vanished) {
    if (finding.noLongerDetected) {
      stored.push(finding);
      continue;
    }
    const resolved = resolveFinding(
      finding,
      index.advisory(finding.advisoryId) ? 'no_longer_affected' : 'advisory_withdrawn',
      now,
    );
    puts.push(findingItem(resolved));
    stored.push(resolved);
  }
  if (lease.lost) return 'lost';
  // The digest is written beside the items; it becomes the SBOM's only with the result's transaction below.
  const digestStamp = findingsDigest.newStamp();
  const findingWrites = laps.span('findingWrites');
  const carryOver = laps.span('carryOver');
  // Carried decisions are written beside the findings (distinct items; a disposition does not need
  // its finding item to exist), and before the scan reads as completed: a CI gate that sees the
  // result sees them. A crash in between is a retry's to finish (the SBOM's findings are rewritten
  // with the same ids, an open carry-over bracket is repaired). All of them end before the scan
  // goes on or fails: nothing of this scan may still be writing once its lease is given up.
  const [carryOutcome, ...writeOutcomes] = await Promise.allSettled([
    CarryOver.apply({
      release,
      findings: current.values(),
      decided: decisionOf,
      setting: settings.carryOver,
      actor,
      now,
      writerId: sbom.id,
      laps,
    }).finally(carryOver),
    batchWrite(puts, [], { concurrency: WRITE_CONCURRENCY }).finally(findingWrites),
    findingsDigest.write(sbom, digestStamp, stored),
  ]);
  for (const outcome of [carryOutcome, ...writeOutcomes]) if (outcome.status === 'rejected') throw outcome.reason;
  const carried = (carryOutcome as PromiseFulfilledResult<CarryOverResult>).value;
  laps.lap('writes');

  const summary: ScanSummary = {
    status: 'completed',
    scannedAt: now,
    findingCount: current.size,
    matchedComponentCount: result.matches.filter((match) => match.findings.length > 0).length,
    unmatchedComponentCount: result.unmatchedCount,
    lastEvaluatedAt: now,
    corpusVersion,
  };
  if (lease.lost) return 'lost';
  // Before the result, which releases the lease: a caller that joined this scan and is answered once the lease is
  // gone finds the CRA cases it opened and the fixes it recorded too. A failure leaves the scan owed, retried.
  await CraCaseOpening.findingsStored({ product, release, findings: stored, components });
  laps.lap('craCases');
  lease.stop();
  try {
    // The lease goes with the result: a joiner that sees it gone finds the findings stored.
    await transactWrite([
      tx.put(
        sbomItem({ ...sbom, scan: summary, findingsDigest: digestStamp, watchIndexedAt: sbom.watchIndexedAt ?? now }),
        'attribute_exists(pk)',
      ),
      auditPut(
        teamId,
        actor,
        {
          action: 'scan',
          entityType: 'sbom',
          entityId: sbom.id,
          entityName: sbom.fileName ?? `${product.name} ${release.version} SBOM`,
          changes: {
            findingCount: summary.findingCount,
            added: [...current.keys()].filter((id) => !existing.has(id)).length,
            noLongerDetected: newlyResolved,
            unmatchedComponents: summary.unmatchedComponentCount,
            corpusAdvisoriesConsidered: index.size,
            decisionsCarried: carried.carried,
            carriedForReview: carried.reviewRequired,
          },
        },
        now,
      ),
      lease.releaseItem(),
      scanCompletedEvent(
        sbom,
        {
          ...summary,
          added: [...current.keys()].filter((id) => !existing.has(id)).length,
          noLongerDetected: vanished.length,
        },
        now,
      ),
    ]);
  } catch (error) {
    if (error instanceof TransactionFailedError && error.failedAt(2) && !error.failedAt(0)) return 'lost';
    throw error;
  }
  laps.lap('result');
  findingsDigest.committed(sbom, digestStamp, stored);
  laps.log({
    sbomId: sbom.id,
    components: components.length,
    findings: current.size,
    writes: puts.length,
    indexWrites: indexItems.length,
    carried: carried.carried,
  });
  return summary;
}

export const Scans = {
  /**
   * Scans an SBOM, or joins the scan of it already running: a caller that finds the lease held waits for that scan's result and
   * returns it. When the holder fails or dies instead, the caller scans
   * itself. A caller that cannot wait past `deadline` (epoch ms) gets
   * 409 scan_pending, the answer the vulnerability list gives meanwhile.
   * With `answerByDeadline` (an API request: the function's timeout would
   * answer a 5xx for it) that holds for the caller's own scan too: the scan
   * goes on, the request answers 409 scan_pending (docs/scanning.md
   * "Bounded by the caller").
   */
  async run(
    teamId: string,
    actor: Actor,
    sbomId: string,
    options: { deadline?: number; answerByDeadline?: boolean } = {},
  ): Promise<ScanSummary> {
    const deadline = (options.deadline ?? Number.POSITIVE_INFINITY) - JOIN_ANSWER_MARGIN_MS;
    // A corpus change recorded while this scan read the corpus, and applied before the scan's index entries
    // existed, would pass this SBOM by: the scan runs once more when the corpus version moved meanwhile.
    let rescanned = false;
    for (;;) {
      const resolved = await Sboms.resolve(teamId, sbomId);
      const { sbom, release, product } = resolved;
      const pending = () => new ScanNotReadyError({ ...sbom.scan, status: 'running' });
      const leaseKey = keys.scanLease(teamId, product.id, release.id, sbom.id);
      const taken = await scanLease.take(leaseKey, sbom.id);
      if ('held' in taken) {
        const scanning = scanHolding(resolved, actor, taken.held).catch(async (error: unknown) => {
          await taken.held.release().catch(() => undefined); // joiners take over at once instead of waiting for expiry
          throw error;
        });
        const outcome = options.answerByDeadline ? await beforeDeadline(scanning, deadline) : await scanning;
        if (outcome === PAST_DEADLINE) {
          // Nobody awaits it any more. Should it fail, the SBOM stays owed (marked running before any
          // work): the next POST /api/cve-scan or the recovery sweep runs it again.
          scanning.catch((error: unknown) => logger.error('scan failed after its request answered', error as Error));
          throw pending();
        }
        if (outcome !== 'lost') {
          if (!rescanned && (outcome.corpusVersion ?? null) !== (await corpusChanges.version())) {
            rescanned = true;
            continue;
          }
          return outcome;
        }
        continue; // stalled past the lease: whoever took it over finishes the scan; join that one
      }
      if ((await beforeDeadline(scanLease.waitUntilReleased(leaseKey, taken.holder, deadline), deadline)) !== true)
        throw pending();
      const after = await beforeDeadline(Sboms.resolve(teamId, sbomId), deadline);
      if (after === PAST_DEADLINE) throw pending();
      const scan = after.sbom.scan;
      if (scan.status === 'completed' && scan.scannedAt !== null && scan.scannedAt >= taken.holder.startedAt)
        return scan;
      // The holder failed or died without a result: this caller scans (POST /api/cve-scan retries a failed scan).
    }
  },

  /** A scan that will not be retried: the SBOM shows `failed` instead of staying queued. */
  async recordFailure(teamId: string, sbomId: string, error: unknown): Promise<void> {
    const resolved = await sbomStore.resolve(teamId, sbomId);
    if (!resolved) return;
    const { sbom } = resolved;
    await sbomRecovery.markScanFailed(
      keys.sbom(teamId, sbom.productId, sbom.releaseId, sbom.id),
      error instanceof Error ? error.message : String(error),
    );
  },

  /**
   * Re-dispatches every scan owed since before `dueBefore`: an upload whose
   * dispatch was lost, a scan cut off by a crash, a queue message that went to
   * the dead-letter queue. Each claim counts a recovery; past
   * SCAN_MAX_RECOVERIES the SBOM is marked failed (a scan that kills its
   * process every time must not loop forever). `keepGoing` bounds a run that
   * has a deadline; what it leaves stays owed for the next one.
   */
  async resumePending(
    dueBefore: string,
    dispatch: (job: ScanJob) => Promise<unknown>,
    keepGoing: () => boolean = () => true,
    leasesAbandonedBefore?: number,
  ): Promise<{ resumed: number; failed: number }> {
    const result = { resumed: 0, failed: 0 };
    for (const pending of await sbomRecovery.pendingScans(dueBefore)) {
      if (!keepGoing()) break;
      if (pending.request.recoveries >= SCAN_MAX_RECOVERIES) {
        await sbomRecovery.markScanFailed(
          pending.key,
          `the scan did not complete after ${SCAN_MAX_RECOVERIES + 1} attempts`,
        );
        result.failed += 1;
      } else if (await sbomRecovery.claimPendingScan(pending, new Date().toISOString())) {
        if (leasesAbandonedBefore !== undefined) {
          const resolved = await sbomStore.resolve(pending.teamId, pending.sbomId);
          if (resolved)
            await scanLease.breakAbandoned(
              keys.scanLease(pending.teamId, resolved.sbom.productId, resolved.sbom.releaseId, pending.sbomId),
              leasesAbandonedBefore,
            );
        }
        await dispatch({ teamId: pending.teamId, sbomId: pending.sbomId, actor: pending.request.actor });
        result.resumed += 1;
      }
    }
    return result;
  },
};
