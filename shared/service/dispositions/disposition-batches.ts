/**
 * POST /api/dispositions/batch across transactions, recoverable after a crash.
 *
 * Up to 500 dispositions need more than one transaction (DynamoDB: 100 items
 * each). The request is first recorded as an intent; then each chunk is one
 * transaction that also marks the chunk applied on the intent, conditioned on
 * the batch still applying and the chunk not applied yet. Whoever finds the
 * intent — the request itself, a later read of one of its releases, or the
 * recovery sweep — drives it on from the marks: forward to the end (the user
 * asked for those writes), or, once a release lock stops a chunk, back through
 * the applied chunks. A compensation only touches a disposition that is still
 * exactly what this batch wrote (its marker and revision), so writes made by
 * others in between are never undone. Several drivers at once are safe: each
 * mark can be set once, the loser re-reads the intent.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import { getItems, transactWrite, TransactionFailedError, tx, type Item } from '../data/table-client';
import type { Actor } from '../identity/actor';
import { toFinding, type Finding } from '../scans/finding-store';
import { DispositionTransaction, dispositionKey, toDisposition } from './disposition-store';
import {
  batchMarkerOf,
  compensationItems,
  firstIndexWrite,
  plan,
  writeItems,
  type DispositionPatch,
  type PlannedWrite,
} from './disposition-writes';
import type { AuditEvent } from '../audit/audit-log';
import type { ImportedFrom } from './disposition-store';
import {
  chunkCount,
  chunkTargets,
  dispositionBatchStore,
  patchOf,
  type BatchFailure,
  type BatchIntent,
  type BatchOutcome,
  type BatchTarget,
} from './disposition-batch-store';
import { decisionKey } from './decision-identity';

/** 1 intent mark + at most 16 release checks + 16 × 5 items (with the carry-over index entry) = 97, under DynamoDB's 100 per transaction. */
const CHUNK_SIZE = 16;
/** A chunk whose dispositions keep changing under it (concurrent single writes) is re-planned this often before the batch gives up. */
const MAX_CHUNK_ATTEMPTS = 8;

type Driver = 'owner' | 'helper';
type ChunkResult = 'done' | 'stale' | 'locked' | 'conflict';

const now = () => new Date().toISOString();

function pick(chunks: number[], driver: Driver): number | undefined {
  if (chunks.length === 0) return undefined;
  // The request walks its chunks in order; helpers start elsewhere so they rarely race it for the same chunk.
  return driver === 'owner' ? chunks[0] : chunks[Math.floor(Math.random() * chunks.length)];
}

/** Findings the driver already holds (the request resolved them all); others are read with the chunk. */
type KnownFindings = ReadonlyMap<string, Finding>;

/** The chunk's findings (a finding removed since the request, its product deleted, has nothing left to triage). */
async function findingsOf(
  intent: BatchIntent,
  targets: BatchTarget[],
  known: KnownFindings,
): Promise<Map<string, Finding>> {
  const unknown = targets.filter((target) => !known.has(target.vulnerabilityId));
  const read = await getItems(
    unknown.map((target) =>
      keys.finding(intent.teamId, target.productId, target.releaseId, target.sbomId, target.vulnerabilityId),
    ),
  );
  const found = new Map<string, Finding>();
  for (const target of targets) {
    const finding = known.get(target.vulnerabilityId);
    if (finding) found.set(target.vulnerabilityId, finding);
  }
  unknown.forEach((target, index) => {
    const item = read[index];
    if (item) found.set(target.vulnerabilityId, toFinding(item));
  });
  return found;
}

/** Each target's decision key: recorded in the intent, else (an older intent) from its finding. */
function decisionKeyOf(target: BatchTarget, finding: Finding | undefined): string | undefined {
  return target.decisionKey ?? (finding ? decisionKey(finding) : undefined);
}

async function applyChunk(intent: BatchIntent, chunk: number, known: KnownFindings): Promise<ChunkResult> {
  const targets = chunkTargets(intent, chunk);
  const releases = [
    ...new Map(
      targets.map((target) => [
        target.releaseId,
        { teamId: intent.teamId, productId: target.productId, releaseId: target.releaseId },
      ]),
    ).values(),
  ];
  const findings = await findingsOf(intent, targets, known);
  // Findings of one decision (the same package and advisory in two SBOMs of a release) are one write.
  // The first target of a decision names its patch (a VEX import has already picked one statement per decision).
  const decisions = new Map<string, { finding: Finding; target: BatchTarget }>();
  for (const target of targets) {
    const finding = findings.get(target.vulnerabilityId);
    const key = decisionKeyOf(target, finding);
    if (finding && key && !decisions.has(`${finding.releaseId}#${key}`))
      decisions.set(`${finding.releaseId}#${key}`, { finding, target });
  }
  const planned = [...decisions.values()];
  for (let attempt = 1; ; attempt += 1) {
    const stored = await getItems(planned.map(({ finding }) => dispositionKey(finding, decisionKey(finding))));
    const at = now();
    const writes: PlannedWrite[] = [];
    const firstIndex = firstIndexWrite();
    planned.forEach(({ finding, target }, index) => {
      const existing = stored[index];
      // Written by this batch already (an earlier chunk held another finding of the same decision, or a driver's retry).
      if (existing && batchMarkerOf(existing)?.batchId === intent.id) return;
      writes.push(
        plan(
          finding,
          existing ? toDisposition(existing) : undefined,
          patchOf(intent, target),
          intent.actor,
          at,
          intent.importedFrom ?? undefined,
        ),
      );
    });
    // Each release's unlock condition rides on its dispositions version move.
    const transaction = new DispositionTransaction().add(dispositionBatchStore.appliedMarkItem(intent, chunk, at));
    const releaseItems = releases.map((release) => transaction.moveVersion(release, { unlocked: true }));
    for (const write of writes)
      writeItems(transaction, write, intent.actor, at, intent.id, { index: firstIndex(write.after) });
    try {
      await transactWrite(transaction.items());
      return 'done';
    } catch (error) {
      if (!(error instanceof TransactionFailedError)) throw error;
      if (error.failedAt(0)) return 'stale';
      if (releaseItems.some((index) => error.failedAt(index))) return 'locked';
      if (attempt >= MAX_CHUNK_ATTEMPTS) return 'conflict';
    }
  }
}

async function rollBackChunk(intent: BatchIntent, chunk: number): Promise<ChunkResult> {
  const targets = chunkTargets(intent, chunk);
  const findings = targets.some((target) => !target.decisionKey)
    ? await findingsOf(intent, targets, new Map())
    : new Map<string, Finding>();
  const dispositionKeys = [
    ...new Map(
      targets.flatMap((target) => {
        const key = decisionKeyOf(target, findings.get(target.vulnerabilityId));
        return key
          ? [
              [
                `${target.releaseId}#${key}`,
                dispositionKey(
                  { teamId: intent.teamId, productId: target.productId, releaseId: target.releaseId },
                  key,
                ),
              ] as const,
            ]
          : [];
      }),
    ).values(),
  ];
  const releases = [
    ...new Map(
      targets.map((target) => [
        target.releaseId,
        { teamId: intent.teamId, productId: target.productId, releaseId: target.releaseId },
      ]),
    ).values(),
  ];
  for (let attempt = 1; ; attempt += 1) {
    const stored = await getItems(dispositionKeys);
    const at = now();
    const firstIndex = firstIndexWrite();
    const transaction = new DispositionTransaction().add(dispositionBatchStore.rolledBackMarkItem(intent, chunk, at));
    // A rollback runs whatever the lock (it undoes what the lock stopped): the version moves unconditioned,
    // for the releases that still exist (a deleted release has no readers left).
    const live = await getItems(
      releases.map((release) => keys.release(release.teamId, release.productId, release.releaseId)),
    );
    const liveIds = new Set(
      releases.filter((_release, index) => live[index] !== undefined).map((release) => release.releaseId),
    );
    for (const release of releases)
      if (liveIds.has(release.releaseId)) transaction.moveVersion(release, { unlocked: false });
    stored.forEach((item: Item | undefined) => {
      const marker = item ? batchMarkerOf(item) : undefined;
      if (item && marker?.batchId === intent.id && liveIds.has(String(item.releaseId)))
        compensationItems(transaction, item, marker, intent.actor, at, { index: firstIndex(toDisposition(item)) });
    });
    try {
      await transactWrite(transaction.items());
      return 'done';
    } catch (error) {
      if (!(error instanceof TransactionFailedError)) throw error;
      if (error.failedAt(0)) return 'stale';
      // A disposition changed since it was read: it is no longer ours to undo; read again and leave it out.
      if (attempt >= MAX_CHUNK_ATTEMPTS)
        throw new Error(`batch ${intent.id}: chunk ${chunk} kept changing during its rollback`, { cause: error });
    }
  }
}

/** Commits a transaction that may lose a race with another driver; false means "read the intent again". */
async function tryTransact(items: Parameters<typeof transactWrite>[0]): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (error instanceof TransactionFailedError) return false;
    throw error;
  }
}

/** Drives one batch to its end from whatever state it is in; returns how it ended. */
async function drive(
  teamId: string,
  batchId: string,
  driver: Driver,
  known: KnownFindings = new Map(),
): Promise<BatchOutcome> {
  let intent = await dispositionBatchStore.find(teamId, batchId);
  while (intent) {
    const current: BatchIntent = intent;
    let stale = false;
    if (current.state === 'applying') {
      const chunk = pick(
        Array.from({ length: chunkCount(current) }, (_, index) => index).filter((index) => !current.applied.has(index)),
        driver,
      );
      if (chunk === undefined) {
        const outcome: BatchOutcome = { state: 'committed', updated: current.targets.length };
        if (await tryTransact(dispositionBatchStore.finishItems(current, outcome, now()))) return outcome;
        stale = true;
      } else {
        const result = await applyChunk(current, chunk, known);
        if (result === 'done') current.applied.add(chunk);
        else if (result === 'stale') stale = true;
        else {
          const reason: BatchFailure = result === 'locked' ? 'release_locked' : 'concurrent_modification';
          if (await tryTransact([dispositionBatchStore.rollBackItem(current, reason)]))
            Object.assign(current, { state: 'rolling_back', reason });
          else stale = true;
        }
      }
    } else {
      const chunk = pick(
        [...current.applied].filter((index) => !current.rolledBack.has(index)).sort((a, b) => a - b),
        driver,
      );
      if (chunk === undefined) {
        const outcome: BatchOutcome = { state: 'failed', reason: current.reason ?? 'release_locked' };
        if (await tryTransact(dispositionBatchStore.finishItems(current, outcome, now()))) return outcome;
        stale = true;
      } else if ((await rollBackChunk(current, chunk)) === 'done') current.rolledBack.add(chunk);
      else stale = true;
    }
    if (stale) intent = await dispositionBatchStore.find(teamId, batchId);
  }
  const outcome = await dispositionBatchStore.outcome(teamId, batchId);
  if (!outcome) throw new Error(`disposition batch ${batchId} has neither an intent nor an outcome`);
  return outcome;
}

/** A batch whose findings each get their own patch (a VEX import), with the provenance and audit entry it records. */
export interface PlannedBatch {
  writes: Array<{ finding: Finding; patch: DispositionPatch }>;
  importedFrom: ImportedFrom | null;
  completionAudit: AuditEvent | null;
}

async function recordIntent(
  teamId: string,
  actor: Actor,
  findings: Finding[],
  patch: DispositionPatch,
  planned?: PlannedBatch,
): Promise<string> {
  const id = randomUUID();
  // Equal patches are stored once: an import of many statements has few distinct decisions.
  const patchTable: DispositionPatch[] = [];
  const indexOf = new Map<string, number>();
  const patchIndex = (own: DispositionPatch): number => {
    const key = JSON.stringify(own);
    let index = indexOf.get(key);
    if (index === undefined) indexOf.set(key, (index = patchTable.push(own) - 1));
    return index;
  };
  const targets = findings.map((finding, index) => {
    const own = planned?.writes[index]?.patch;
    return {
      vulnerabilityId: finding.id,
      productId: finding.productId,
      releaseId: finding.releaseId,
      sbomId: finding.sbomId,
      decisionKey: decisionKey(finding),
      ...(own ? { patch: patchIndex(own) } : {}),
    };
  });
  const item = dispositionBatchStore.intentItem({
    id,
    teamId,
    actor,
    createdAt: now(),
    patch,
    chunkSize: CHUNK_SIZE,
    targets,
    patchTable,
    importedFrom: planned?.importedFrom ?? null,
    completionAudit: planned?.completionAudit ?? null,
    releaseIds: [...new Set(findings.map((finding) => finding.releaseId))],
  });
  await transactWrite([tx.create(item)]);
  return id;
}

export const DispositionBatches = {
  /** Records the intent, then applies it; the answer is the outcome as stored. */
  async run(teamId: string, actor: Actor, findings: Finding[], patch: DispositionPatch): Promise<BatchOutcome> {
    return drive(
      teamId,
      await DispositionBatches.record(teamId, actor, findings, patch),
      'owner',
      new Map(findings.map((finding) => [finding.id, finding])),
    );
  },

  /** The same all-or-nothing path with a patch per finding; the completion audit entry commits with the outcome. */
  async runEach(teamId: string, actor: Actor, batch: PlannedBatch): Promise<BatchOutcome> {
    const findings = batch.writes.map((write) => write.finding);
    const id = await recordIntent(teamId, actor, findings, {}, batch);
    return drive(teamId, id, 'owner', new Map(findings.map((finding) => [finding.id, finding])));
  },

  /** Step 1 alone: the intent, durable before any disposition is written. Returns the batch id. */
  async record(teamId: string, actor: Actor, findings: Finding[], patch: DispositionPatch): Promise<string> {
    return recordIntent(teamId, actor, findings, patch);
  },

  /** Before a release's dispositions are read: finish any batch of the team still pending on that release. */
  async settleRelease(teamId: string, releaseId: string): Promise<void> {
    const pending = (await dispositionBatchStore.pendingOfTeam(teamId)).filter((batch) =>
      batch.releaseIds.includes(releaseId),
    );
    for (const batch of pending) await drive(teamId, batch.id, 'helper');
  },

  /** As `settleRelease` for every release of the team at once: one read of its pending batches (the dashboard). */
  async settleTeam(teamId: string): Promise<void> {
    for (const batch of await dispositionBatchStore.pendingOfTeam(teamId)) await drive(teamId, batch.id, 'helper');
  },

  /**
   * The sweep: finishes every team's pending batches (after a crash nothing else
   * would, until someone reads the release). Locally it runs at start before the
   * server answers; on AWS the scheduled corpus refresh runs it.
   */
  async recoverPending(): Promise<{ recovered: { teamId: string; id: string; outcome: BatchOutcome }[] }> {
    const recovered: { teamId: string; id: string; outcome: BatchOutcome }[] = [];
    for (const { teamId, id } of await dispositionBatchStore.pendingOfAllTeams()) {
      // The index may name an intent that is no longer there (it lags on AWS): only a recorded batch is driven.
      if (!(await dispositionBatchStore.find(teamId, id)) && !(await dispositionBatchStore.outcome(teamId, id)))
        continue;
      recovered.push({ teamId, id, outcome: await drive(teamId, id, 'owner') });
    }
    return { recovered };
  },
};
