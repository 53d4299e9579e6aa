/**
 * Re-evaluating one SBOM after the corpus moved (docs/watch.md "Re-evaluation"): only the components a
 * change names are matched again, against the corpus as it is now; every other finding stays as it was.
 * - a new match is a finding `detected_by: corpus_update` (a resolved one that matches again reopens);
 * - an open finding of a re-matched component that no longer matches is resolved, with why;
 * - KEV listings and scores that moved update the findings of those CVEs (`kev_added_at` on a new listing).
 * Each such change is an event. Events are written first, with ids derived from the finding and the
 * change, then the findings, the SBOM's digest and, in one transaction with the lease, the SBOM's new
 * digest stamp and corpus version: a run cut off anywhere is redone by the journal's retry and writes
 * the same events again, so no change lands without its event.
 * Runs under the SBOM's scan lease, so a scan and a re-evaluation never write one SBOM at once.
 */
import { keys } from '../data/keys';
import { batchWrite, transactWrite, TransactionFailedError, tx, type Item } from '../data/table-client';
import { corpusStore } from '../corpus/corpus-store';
import { severityResolver } from '../corpus/alias-severity';
import { decisionIndex } from '../dispositions/decision-identity';
import { dispositionStore } from '../dispositions/disposition-store';
import { eventId, eventItem, type TeamEvent } from '../events/event-store';
import { isWatched } from '../releases/release-store';
import { sbomStore, type ResolvedSbom } from '../sboms/sbom-store';
import {
  buildFinding,
  changedForReaders,
  resolveFinding,
  scoredCveIds,
  type FindingContext,
} from '../scans/finding-build';
import { findingId, findingItem, findingPointerItem, type Finding } from '../scans/finding-store';
import { findingsDigest } from '../scans/findings-digest';
import { scanLease, type HeldLease } from '../scans/scan-lease';
import { vexStore } from '../vex/vex-store';
import { watchKeysForPackage, watchKeysOf } from './watch-index';
import { CraCaseOpening } from '../cra/case-opening';

export interface CorpusDelta {
  /** Corpus package keys whose advisories were added, modified or withdrawn. */
  packageKeys: ReadonlySet<string>;
  /** CVEs whose KEV listing or scores moved. */
  cveIds: ReadonlySet<string>;
  /** The latest change applied: the SBOM's corpus version afterwards. */
  changeId: string;
}

export interface ReevaluationOutcome {
  status: 'evaluated' | 'not_watched' | 'not_scanned' | 'gone' | 'busy';
  affectedComponents: number;
  detected: number;
  resolved: number;
  updated: number;
  events: number;
  /** Items and objects written: the figure that must grow with the affected components, not the SBOM. */
  writes: number;
}

const WRITE_CONCURRENCY = 8;

function outcome(status: ReevaluationOutcome['status']): ReevaluationOutcome {
  return { status, affectedComponents: 0, detected: 0, resolved: 0, updated: 0, events: 0, writes: 0 };
}

/** Re-evaluates the SBOM for the delta, waiting for a running scan of it until `deadline` (epoch ms). */
export async function reevaluateSbom(
  teamId: string,
  sbomId: string,
  delta: CorpusDelta,
  deadline: number,
): Promise<ReevaluationOutcome> {
  for (;;) {
    const resolved = await sbomStore.resolve(teamId, sbomId);
    if (!resolved) return outcome('gone');
    if (!isWatched(resolved.release)) return outcome('not_watched');
    // Its scan is owed and will read the corpus as it is now.
    if (resolved.sbom.scan.scannedAt === null) return outcome('not_scanned');
    const { sbom, release, product } = resolved;
    const leaseKey = keys.scanLease(teamId, product.id, release.id, sbom.id);
    const taken = await scanLease.take(leaseKey, sbom.id);
    if ('held' in taken) {
      try {
        const result = await reevaluateHolding(resolved, delta, taken.held);
        if (result !== 'lost') return result;
      } catch (error) {
        await taken.held.release().catch(() => undefined);
        throw error;
      }
      continue;
    }
    // A scan (or another re-evaluation) is writing this SBOM: once it is done, evaluate against its result.
    if (!(await scanLease.waitUntilReleased(leaseKey, taken.holder, deadline))) return outcome('busy');
  }
}

async function reevaluateHolding(
  { sbom: staleSbom, release, product }: ResolvedSbom,
  delta: CorpusDelta,
  lease: HeldLease,
): Promise<ReevaluationOutcome | 'lost'> {
  const teamId = staleSbom.teamId;
  // Read again under the lease: a scan that held it before may have stored a newer result.
  const sbom = (await sbomStore.resolve(teamId, staleSbom.id))?.sbom;
  if (!sbom) {
    await lease.release();
    return outcome('gone');
  }
  const matcher = import('../scans/scan-matching');
  matcher.catch(() => undefined);
  const changedKeys = new Set([...delta.packageKeys].flatMap(watchKeysForPackage));
  const [components, existing] = await Promise.all([sbomStore.readInventory(sbom), findingsDigest.read(sbom)]);
  const affected = components.filter((component) => watchKeysOf(component).some((key) => changedKeys.has(key)));
  const affectedRefs = new Set(affected.map((component) => component.ref));
  const { indexForComponents, scanComponents } = await matcher;
  const index = await indexForComponents(affected);
  const result = scanComponents(affected, index);
  const byId = new Map(existing.map((finding) => [finding.id, finding]));
  // Open findings of other components whose CVE's KEV listing or scores moved.
  const rescored = existing.filter(
    (finding) =>
      !finding.noLongerDetected && !affectedRefs.has(finding.componentRef) && delta.cveIds.has(finding.cveId),
  );
  const [severityOf, scores] = await Promise.all([
    severityResolver(result.findings, (id) => index.advisory(id)),
    corpusStore.scores([...scoredCveIds(result.findings), ...rescored.map((finding) => finding.cveId)]),
  ]);
  const now = new Date().toISOString();
  const context: FindingContext = {
    teamId,
    productId: product.id,
    releaseId: release.id,
    sbomId: sbom.id,
    index,
    componentsByRef: new Map(affected.map((component) => [component.ref, component])),
    severityOf,
    scores,
    detectedBy: 'corpus_update',
    now,
  };

  const changed = new Map<string, Finding>();
  const events: TeamEvent[] = [];
  const counts = { detected: 0, resolved: 0, updated: 0 };
  const event = (type: TeamEvent['type'], finding: Finding, data: Record<string, unknown>) =>
    events.push({
      id: eventId(type, finding.id, delta.changeId),
      type,
      occurredAt: now,
      teamId,
      productId: product.id,
      releaseId: release.id,
      sbomId: sbom.id,
      findingId: finding.id,
      advisoryId: finding.advisoryId,
      data: {
        cve_id: finding.cveId,
        component_name: finding.componentName,
        component_version: finding.componentVersion,
        severity: finding.severity,
        is_kev: finding.kev !== null,
        ...data,
      },
    });

  const matched = new Set<string>();
  for (const match of result.findings) {
    const id = findingId(sbom.id, match.componentRef, match.advisoryId);
    matched.add(id);
    const previous = byId.get(id);
    const next = buildFinding(match, context, previous);
    if (!previous || previous.noLongerDetected) {
      counts.detected += 1;
      event('finding.detected', next, { reopened: previous !== undefined });
    } else {
      if (previous.severity !== next.severity)
        event('finding.severity_changed', next, { previous_severity: previous.severity });
      if (previous.kev === null && next.kev !== null) event('finding.kev_added', next, { kev: next.kev });
      if (!changedForReaders(previous, next)) continue;
      counts.updated += 1;
    }
    changed.set(id, next);
  }
  for (const finding of existing) {
    if (finding.noLongerDetected || !affectedRefs.has(finding.componentRef) || matched.has(finding.id)) continue;
    const reason = index.advisory(finding.advisoryId) ? 'no_longer_affected' : 'advisory_withdrawn';
    const next = resolveFinding(finding, reason, now);
    counts.resolved += 1;
    event('finding.resolved', next, { reason });
    changed.set(finding.id, next);
  }
  for (const finding of rescored) {
    const cveScores = scores.get(finding.cveId);
    const kev = cveScores?.kev ?? null;
    const next: Finding = {
      ...finding,
      kev,
      epss: cveScores?.epss ?? null,
      kevAddedAt: kev === null ? null : finding.kev !== null ? (finding.kevAddedAt ?? finding.firstDetectedAt) : now,
    };
    if (!changedForReaders(finding, next)) continue;
    if (finding.kev === null && kev !== null) event('finding.kev_added', next, { kev });
    counts.updated += 1;
    changed.set(finding.id, next);
  }

  if (events.some((each) => each.type === 'finding.detected'))
    events.push(...(await staleDisclosureEvents({ teamId, product, release, sbomId: sbom.id }, changed, now, delta)));

  if (lease.lost) return 'lost';
  const puts: Item[] = [];
  for (const finding of changed.values()) {
    puts.push(findingItem(finding));
    if (!byId.has(finding.id)) puts.push(findingPointerItem(finding));
  }
  await batchWrite(events.map(eventItem), [], { concurrency: WRITE_CONCURRENCY });
  await batchWrite(puts, [], { concurrency: WRITE_CONCURRENCY });
  const stored = [...existing.filter((finding) => !changed.has(finding.id)), ...changed.values()].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  // Nothing changed: the digest stays, only the evaluation time and corpus version move.
  const digestStamp = changed.size > 0 ? findingsDigest.newStamp() : sbom.findingsDigest;
  if (changed.size > 0 && digestStamp !== undefined) await findingsDigest.write(sbom, digestStamp, stored);
  const openCount = stored.filter((finding) => !finding.noLongerDetected).length;
  lease.stop();
  try {
    await transactWrite([
      tx.update(
        keys.sbom(teamId, product.id, release.id, sbom.id),
        'SET #scan.#findingCount = :findingCount, #scan.#lastEvaluatedAt = :now, #scan.#corpusVersion = :version' +
          (digestStamp !== undefined ? ', #findingsDigest = :stamp' : ''),
        {
          '#scan': 'scan',
          '#findingCount': 'findingCount',
          '#lastEvaluatedAt': 'lastEvaluatedAt',
          '#corpusVersion': 'corpusVersion',
          ...(digestStamp !== undefined ? { '#findingsDigest': 'findingsDigest' } : {}),
        },
        {
          ':findingCount': openCount,
          ':now': now,
          ':version': delta.changeId,
          ...(digestStamp !== undefined ? { ':stamp': digestStamp } : {}),
        },
        'attribute_exists(pk)',
      ),
      lease.releaseItem(),
    ]);
  } catch (error) {
    if (error instanceof TransactionFailedError && error.failedAt(1) && !error.failedAt(0)) return 'lost';
    if (error instanceof TransactionFailedError && error.failedAt(0)) {
      await lease.release().catch(() => undefined);
      return outcome('gone');
    }
    throw error;
  }
  if (digestStamp !== undefined && changed.size > 0) findingsDigest.committed(sbom, digestStamp, stored);
  await CraCaseOpening.findingsStored({ product, release, findings: stored, components });
  return {
    status: 'evaluated',
    affectedComponents: affected.length,
    ...counts,
    events: events.length,
    writes: events.length + puts.length + (changed.size > 0 ? 2 : 1),
  };
}

/**
 * `disclosure.stale`: the release has a published disclosure and just gained findings nobody has
 * decided on, so what it tells its readers no longer covers the release. One event per release and change.
 */
async function staleDisclosureEvents(
  where: { teamId: string; product: { id: string }; release: { id: string }; sbomId: string },
  changed: ReadonlyMap<string, Finding>,
  now: string,
  delta: CorpusDelta,
): Promise<TeamEvent[]> {
  const { teamId, product, release } = where;
  const documents = await vexStore.listByRelease(teamId, product.id, release.id);
  const published = documents.filter((document) => document.publishedAt !== null);
  if (published.length === 0) return [];
  const decisionOf = decisionIndex(await dispositionStore.listByRelease(teamId, product.id, release.id));
  const undecided = [...changed.values()].filter(
    (finding) => !finding.noLongerDetected && finding.detectedBy === 'corpus_update' && !decisionOf(finding),
  );
  if (undecided.length === 0) return [];
  return [
    {
      id: eventId('disclosure.stale', release.id, where.sbomId, delta.changeId),
      type: 'disclosure.stale',
      occurredAt: now,
      teamId,
      productId: product.id,
      releaseId: release.id,
      sbomId: where.sbomId,
      data: {
        vex_document_ids: published.map((document) => document.id),
        undecided_finding_ids: undecided.map((finding) => finding.id).slice(0, 100),
        undecided_count: undecided.length,
      },
    },
  ];
}
