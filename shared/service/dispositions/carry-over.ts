/**
 * Carry-over (docs/triage-continuity.md): when a release's scan
 * completes, each (package, advisory) pair it found that has no decision in the
 * release takes the product's latest decision on it from an earlier release:
 * - the same package version: applied as is;
 * - another version (team setting `any_version` only): applied with
 *   `reviewRequired`, which counts as undecided until a member confirms or changes it.
 * Candidates come from the product's carry-over index (carry-index.ts), so they
 * never cross products or teams. Each carried disposition records `carriedFrom`,
 * has its own history entry and a `carry` audit entry. The dispositions are created
 * in bulk, conditioned on the release being unlocked and on no decision having been
 * made on the pair meanwhile; their side items follow in batches (`carry` below).
 */
import { createHash } from 'node:crypto';
import { keys } from '../data/keys';
import { batchWrite, getItem, transactWrite, TransactionFailedError, type Item } from '../data/table-client';
import { pointerItem } from '../data/id-pointers';
import { auditItem, auditKeys, diffChanges } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import type { Release } from '../releases/release-store';
import { releaseStore } from '../releases/release-store';
import type { Finding } from '../scans/finding-store';
import { carryIndex, carryIndexItem, type CarryEntry } from './carry-index';
import { decisionKey } from './decision-identity';
import {
  dispositionBulk,
  dispositionStore,
  DispositionTransaction,
  type Disposition,
  type ReleaseRef,
} from './disposition-store';
import { isFinalDecision } from './rules';
import {
  dispositionPointer,
  fieldsOf,
  historyItem,
  newDisposition,
  targetOfFinding,
  type PlannedWrite,
} from './disposition-writes';

import type { CarryOverSetting } from './carry-over-setting';
import type { ScanLaps } from '../scans/scan-laps';

/** 1 release check + 99 conditional creates: DynamoDB's 100 items per transaction. */
const CHUNK_SIZE = 99;
/** Transactions in flight. */
const CONCURRENCY = 4;
/** A chunk that keeps meeting new decisions (members triaging during the scan) is re-planned this often. */
const MAX_CHUNK_ATTEMPTS = 5;
/** BatchWriteItem calls in flight for one chunk's side items (history, audit, pointer, index): 4 chunks at a time make 16. */
const SIDE_WRITE_CONCURRENCY = 4;
/**
 * How long a carry-over's bracket keeps readers from caching the release's dispositions if its
 * process dies: Lambda's longest timeout, after which nothing of that run can still be writing.
 */
const BULK_WINDOW_MS = 15 * 60_000;

export interface CarryOverResult {
  carried: number;
  reviewRequired: number;
  /** True when the release was locked and nothing more was carried. */
  locked: boolean;
}

/** The candidate for a pair: the same version first; else (any_version) the latest decision on another version. */
function pickSource(
  finding: Finding,
  key: string,
  byKey: Map<string, CarryEntry>,
  byPackage: Map<string, CarryEntry[]>,
  setting: CarryOverSetting,
): { entry: CarryEntry; reviewRequired: boolean } | undefined {
  const same = byKey.get(key);
  if (same) return { entry: same, reviewRequired: false };
  if (setting !== 'any_version') return undefined;
  const target = targetOfFinding(finding).identity;
  const others = byPackage.get(`${target.packageWithoutVersion}\u0000${finding.advisoryId}`) ?? [];
  const latest = others.reduce<CarryEntry | undefined>(
    (best, entry) => (!best || entry.decidedAt > best.decidedAt ? entry : best),
    undefined,
  );
  return latest ? { entry: latest, reviewRequired: true } : undefined;
}

/** A UUID (v4 layout) derived from `name`: the same carry planned again gets the same ids. */
function derivedId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function planCarry(
  finding: Finding,
  source: { entry: CarryEntry; reviewRequired: boolean },
  from: Release,
  actor: Actor,
  at: string,
): PlannedWrite {
  const target = targetOfFinding(finding);
  const { entry } = source;
  const id = derivedId(
    `carry\u0000${target.teamId}\u0000${target.releaseId}\u0000${target.identity.decisionKey}\u0000${entry.dispositionId}`,
  );
  const after: Disposition = {
    ...newDisposition(target, actor, at),
    id,
    status: entry.status,
    justification: entry.justification,
    response: entry.response,
    detail: entry.detail,
    actionStatement: entry.actionStatement,
    impactStatement: entry.impactStatement,
    assignedTo: entry.assignedTo,
    expiresAt: entry.expiresAt,
    revision: 1,
    reviewRequired: source.reviewRequired,
    carriedFrom: {
      releaseId: from.id,
      releaseVersion: from.version,
      dispositionId: entry.dispositionId,
      decidedBy: entry.decidedBy,
      decidedAt: entry.decidedAt,
    },
  };
  // In this release the SLA clock stops when the decision arrives here.
  after.decidedAt = isFinalDecision(after) ? at : null;
  return { target, before: undefined, after, changeId: derivedId(`${id}\u0000change`), action: 'carry' };
}

/**
 * What a carried disposition's creation leaves besides the item: its history entry, its `carry`
 * audit entry, its id pointer and (unless it waits for review) the product's carry-over index entry.
 * Every key and value derives from the stored disposition, so writing them again is harmless.
 */
function sideItems(disposition: Disposition, actor: Actor, label: string, options: { index: boolean }): Item[] {
  const at = disposition.createdAt;
  const changes: Record<string, unknown> = {
    ...diffChanges({}, fieldsOf(disposition)),
    carriedFrom: { from: null, to: disposition.carriedFrom },
  };
  const auditId = derivedId(`${disposition.id}\u0000audit`);
  const audit = auditItem(
    disposition.teamId,
    actor,
    {
      action: 'carry',
      entityType: 'disposition',
      entityId: disposition.id,
      entityName: label,
      changes: { vulnerabilityId: disposition.vulnerabilityId, decisionKey: disposition.decisionKey, ...changes },
    },
    at,
  );
  return [
    historyItem(disposition, actor, at, derivedId(`${disposition.id}\u0000change`), changes),
    {
      ...audit,
      ...auditKeys(disposition.teamId, { id: auditId, timestamp: at, entityType: 'disposition', action: 'carry' }),
      id: auditId,
    },
    pointerItem(disposition.teamId, disposition.id, dispositionPointer(disposition)),
    ...(options.index && !disposition.reviewRequired ? [carryIndexItem(disposition)] : []),
  ];
}

/**
 * Creates a chunk's dispositions in one transaction, conditioned on the release being unlocked
 * (and the bracket open) and on each pair having no decision yet: a member who decided meanwhile wins.
 */
async function commitChunk(
  release: ReleaseRef,
  writerId: string,
  writes: PlannedWrite[],
): Promise<{ written: PlannedWrite[]; locked: boolean }> {
  let pending = writes;
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    const transaction = new DispositionTransaction();
    const check = transaction.underBulk(release, writerId);
    for (const write of pending) transaction.create(write.after);
    try {
      await transactWrite(transaction.items());
      return { written: pending, locked: false };
    } catch (error) {
      if (!(error instanceof TransactionFailedError)) throw error;
      if (error.failedAt(check)) return { written: [], locked: true };
      if (attempt >= MAX_CHUNK_ATTEMPTS)
        throw new Error(`carry-over into release ${release.releaseId} kept meeting concurrent decisions`, {
          cause: error,
        });
      // Decided meanwhile (their condition failed), or a retry of a carry that had committed this pair: leave those.
      pending = pending.filter((_write, index) => !error.failedAt(check + 1 + index));
    }
  }
  return { written: [], locked: false };
}

/**
 * A carry-over of this SBOM cut off between its dispositions and their side items (its bracket is
 * still open): writes the side items of every carried disposition of the SBOM's findings not
 * changed since (revision 1). The index is left as it is (it still holds the source decision).
 */
async function repair(release: ReleaseRef, findings: ReadonlyMap<string, Finding>, actor: Actor): Promise<void> {
  const dispositions = await dispositionStore.listByRelease(release.teamId, release.productId, release.releaseId);
  const carried = dispositions.filter(
    (disposition) =>
      disposition.carriedFrom !== null && disposition.revision === 1 && findings.has(disposition.vulnerabilityId),
  );
  await batchWrite(
    carried.flatMap((disposition) =>
      sideItems(disposition, actor, labelOf(findings.get(disposition.vulnerabilityId)!), { index: false }),
    ),
    [],
    { concurrency: SIDE_WRITE_CONCURRENCY },
  );
}

const labelOf = (finding: Finding) => `${finding.cveId} in ${finding.componentName}`;

export const CarryOver = {
  /**
   * Carries earlier releases' decisions onto `findings` (one scan's findings) that have none in the release.
   * `decided` is the release's decision join as the scan read it.
   */
  async apply(input: {
    release: Release;
    findings: Iterable<Finding>;
    decided: (finding: Finding) => Disposition | undefined;
    setting: CarryOverSetting;
    actor: Actor;
    now: string;
    /** The scan's SBOM: one carry-over per SBOM at a time (its scan lease), so a bracket of this id left open is a dead run's. */
    writerId: string;
    /** The scan's stage timer. */
    laps?: ScanLaps;
  }): Promise<CarryOverResult> {
    const result: CarryOverResult = { carried: 0, reviewRequired: 0, locked: false };
    const lookup = input.laps?.span('carryLookup');
    const ref: ReleaseRef = {
      teamId: input.release.teamId,
      productId: input.release.productId,
      releaseId: input.release.id,
    };
    const findings = new Map([...input.findings].map((finding) => [finding.id, finding]));
    if (
      dispositionBulk.leftOpen(await getItem(keys.release(ref.teamId, ref.productId, ref.releaseId)), input.writerId)
    ) {
      await repair(ref, findings, input.actor);
      await transactWrite([dispositionBulk.end(ref, input.writerId)]);
    }
    if (input.setting === 'off') return result;
    const undecided = new Map<string, Finding>();
    for (const finding of findings.values()) {
      if (input.decided(finding)) continue;
      const key = decisionKey(finding);
      if (!undecided.has(key)) undecided.set(key, finding);
    }
    if (undecided.size === 0) return result;

    const { release } = input;
    const [entries, releases] = await Promise.all([
      carryIndex.listByProduct(release.teamId, release.productId),
      releaseStore.listByProduct(release.teamId, release.productId),
    ]);
    // Only earlier releases that still exist; an expired decision has nothing left to carry.
    const earlier = new Map(
      releases
        .filter((other) => other.id !== release.id && other.createdAt < release.createdAt)
        .map((other) => [other.id, other]),
    );
    const usable = entries.filter(
      (entry) => earlier.has(entry.releaseId) && (entry.expiresAt === null || entry.expiresAt > input.now),
    );
    if (usable.length === 0) return result;
    const byKey = new Map(usable.map((entry) => [entry.decisionKey, entry]));
    const byPackage = new Map<string, CarryEntry[]>();
    for (const entry of usable) {
      const group = `${entry.packageWithoutVersion}\u0000${entry.advisoryId}`;
      byPackage.set(group, [...(byPackage.get(group) ?? []), entry]);
    }

    const at = new Date().toISOString();
    const writes: PlannedWrite[] = [];
    for (const [key, finding] of undecided) {
      const source = pickSource(finding, key, byKey, byPackage, input.setting);
      const from = source ? earlier.get(source.entry.releaseId) : undefined;
      if (source && from) writes.push(planCarry(finding, source, from, input.actor, at));
    }
    lookup?.();
    if (writes.length === 0) return result;
    return carry(ref, input.writerId, writes, input.actor, result, input.laps);
  },
};

/**
 * The bulk write: one transaction opens the bracket (the lock check; the version moves and the
 * release is marked so no reader caches a half-written set), then the dispositions go in
 * parallel transactions of 99 conditional creates, each followed at once by its side items in
 * batches, and the bracket closes with another version move.
 */
async function carry(
  ref: ReleaseRef,
  writerId: string,
  writes: PlannedWrite[],
  actor: Actor,
  result: CarryOverResult,
  laps?: ScanLaps,
): Promise<CarryOverResult> {
  try {
    await transactWrite([dispositionBulk.start(ref, writerId, new Date(Date.now() + BULK_WINDOW_MS).toISOString())]);
  } catch (error) {
    if (error instanceof TransactionFailedError && error.failedAt(0)) return { ...result, locked: true };
    throw error;
  }
  const chunks: PlannedWrite[][] = Array.from({ length: Math.ceil(writes.length / CHUNK_SIZE) }, (_, index) =>
    writes.slice(index * CHUNK_SIZE, (index + 1) * CHUNK_SIZE),
  );
  const written: PlannedWrite[] = [];
  const worker = async () => {
    for (let chunk = chunks.shift(); chunk && !result.locked; chunk = chunks.shift()) {
      const dispositions = laps?.span('carryDispositions');
      const outcome = await commitChunk(ref, writerId, chunk);
      dispositions?.();
      if (outcome.locked) result.locked = true;
      written.push(...outcome.written);
      // A committed chunk's side items go at once, beside the chunks still committing (the engine,
      // or DynamoDB's partitions, stay busy). One pair's index entry per product: each write here
      // is a distinct pair of one release.
      const side = laps?.span('carrySideItems');
      await batchWrite(
        outcome.written.flatMap((write) => sideItems(write.after, actor, write.target.label, { index: true })),
        [],
        { concurrency: SIDE_WRITE_CONCURRENCY },
      );
      side?.();
    }
  };
  // Every worker ends before this returns or throws: nothing of the carry-over writes after it.
  for (const outcome of await Promise.allSettled(
    Array.from({ length: Math.min(CONCURRENCY, chunks.length) }, worker),
  )) {
    if (outcome.status === 'rejected') throw outcome.reason;
  }
  await transactWrite([dispositionBulk.end(ref, writerId)]);
  result.carried += written.length;
  result.reviewRequired += written.filter((write) => write.after.reviewRequired).length;
  return result;
}
