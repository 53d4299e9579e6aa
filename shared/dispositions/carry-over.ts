/**
 * Carry-over (issue 13 item 2, docs/triage-continuity.md): when a release's scan
 * completes, each (package, advisory) pair it found that has no decision in the
 * release takes the product's latest decision on it from an earlier release:
 * - the same package version: applied as is;
 * - another version (team setting `any_version` only): applied with
 *   `reviewRequired`, which counts as undecided until a member confirms or changes it.
 * Candidates come from the product's carry-over index (carry-index.ts), so they
 * never cross products or teams. Each carried disposition records `carriedFrom`,
 * has its own history entry and a `carry` audit entry, and is written like any
 * other disposition: conditioned on the release being unlocked and on no
 * decision having been made on the pair meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import { getItems, transactWrite, TransactionFailedError } from '../data/table-client';
import type { Actor } from '../identity/actor';
import type { Release } from '../releases/release-store';
import { releaseStore } from '../releases/release-store';
import type { Finding } from '../scans/finding-store';
import { carryIndex, type CarryEntry } from './carry-index';
import { decisionKey } from './decision-identity';
import type { Disposition } from './disposition-store';
import { isFinalDecision } from './rules';
import { newDisposition, targetOfFinding, writeItems, type PlannedWrite } from './disposition-writes';

import type { CarryOverSetting } from './carry-over-setting';

/** 1 release check + 19 × (disposition, history, audit, index, pointer) = 96, under DynamoDB's 100. */
const CHUNK_SIZE = 19;
/** Transactions in flight: 1,000 carried decisions are 53 transactions. */
const CONCURRENCY = 8;
/** A chunk that keeps meeting new decisions (members triaging during the scan) is re-planned this often. */
const MAX_CHUNK_ATTEMPTS = 5;

export interface CarryOverResult {
  carried: number;
  reviewRequired: number;
  /** True when the release was locked and nothing more was carried. */
  locked: boolean;
}

/** The candidate for a pair: the same version first; else (any_version) the latest decision on another version. */
function pickSource(
  finding: Finding, key: string, byKey: Map<string, CarryEntry>, byPackage: Map<string, CarryEntry[]>, setting: CarryOverSetting,
): { entry: CarryEntry; reviewRequired: boolean } | undefined {
  const same = byKey.get(key);
  if (same) return { entry: same, reviewRequired: false };
  if (setting !== 'any_version') return undefined;
  const target = targetOfFinding(finding).identity;
  const others = byPackage.get(`${target.packageWithoutVersion}\u0000${finding.advisoryId}`) ?? [];
  const latest = others.reduce<CarryEntry | undefined>((best, entry) => (!best || entry.decidedAt > best.decidedAt ? entry : best), undefined);
  return latest ? { entry: latest, reviewRequired: true } : undefined;
}

function planCarry(finding: Finding, source: { entry: CarryEntry; reviewRequired: boolean }, from: Release, actor: Actor, at: string): PlannedWrite {
  const target = targetOfFinding(finding);
  const { entry } = source;
  const after: Disposition = {
    ...newDisposition(target, actor, at),
    status: entry.status, justification: entry.justification, response: entry.response, detail: entry.detail,
    actionStatement: entry.actionStatement, impactStatement: entry.impactStatement, assignedTo: entry.assignedTo, expiresAt: entry.expiresAt,
    revision: 1, reviewRequired: source.reviewRequired,
    carriedFrom: { releaseId: from.id, releaseVersion: from.version, dispositionId: entry.dispositionId, decidedBy: entry.decidedBy, decidedAt: entry.decidedAt },
  };
  // In this release the SLA clock stops when the decision arrives here.
  after.decidedAt = isFinalDecision(after) ? at : null;
  return { target, before: undefined, after, changeId: randomUUID(), action: 'carry' };
}

async function commitChunk(release: Release, writes: PlannedWrite[], actor: Actor): Promise<{ written: PlannedWrite[]; locked: boolean }> {
  let pending = writes;
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    const at = pending[0]?.after.createdAt ?? new Date().toISOString();
    try {
      await transactWrite([releaseStore.unlockedCheck(release), ...pending.flatMap((write) => writeItems(write, actor, at))]);
      return { written: pending, locked: false };
    } catch (error) {
      if (!(error instanceof TransactionFailedError)) throw error;
      if (error.failedAt(0)) return { written: [], locked: true };
      if (attempt >= MAX_CHUNK_ATTEMPTS) throw new Error(`carry-over into release ${release.id} kept meeting concurrent decisions`, { cause: error });
      // A member decided some of these pairs meanwhile: their decision stands, carry the rest.
      const stored = await getItems(pending.map(({ after }) => keys.disposition(after.teamId, after.productId, after.releaseId, after.decisionKey)));
      pending = pending.filter((_write, index) => stored[index] === undefined);
    }
  }
  return { written: [], locked: false };
}

export const CarryOver = {
  /**
   * Carries earlier releases' decisions onto `findings` (one scan's findings) that have none in the release.
   * `decided` is the release's decision join as the scan read it.
   */
  async apply(input: {
    release: Release; findings: Iterable<Finding>; decided: (finding: Finding) => Disposition | undefined; setting: CarryOverSetting; actor: Actor; now: string;
  }): Promise<CarryOverResult> {
    const result: CarryOverResult = { carried: 0, reviewRequired: 0, locked: false };
    if (input.setting === 'off') return result;
    const undecided = new Map<string, Finding>();
    for (const finding of input.findings) {
      if (input.decided(finding)) continue;
      const key = decisionKey(finding);
      if (!undecided.has(key)) undecided.set(key, finding);
    }
    if (undecided.size === 0) return result;

    const { release } = input;
    const [entries, releases] = await Promise.all([carryIndex.listByProduct(release.teamId, release.productId), releaseStore.listByProduct(release.teamId, release.productId)]);
    // Only earlier releases that still exist; an expired decision has nothing left to carry.
    const earlier = new Map(releases.filter((other) => other.id !== release.id && other.createdAt < release.createdAt).map((other) => [other.id, other]));
    const usable = entries.filter((entry) => earlier.has(entry.releaseId) && (entry.expiresAt === null || entry.expiresAt > input.now));
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
    const chunks = Array.from({ length: Math.ceil(writes.length / CHUNK_SIZE) }, (_, index) => writes.slice(index * CHUNK_SIZE, (index + 1) * CHUNK_SIZE));
    const worker = async () => {
      for (let chunk = chunks.shift(); chunk && !result.locked; chunk = chunks.shift()) {
        const { written, locked } = await commitChunk(release, chunk, input.actor);
        if (locked) result.locked = true;
        result.carried += written.length;
        result.reviewRequired += written.filter((write) => write.after.reviewRequired).length;
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, chunks.length) }, worker));
    return result;
  },
};
