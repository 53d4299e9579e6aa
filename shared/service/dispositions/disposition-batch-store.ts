/**
 * Disposition batch intents and outcomes. The intent holds the whole request
 * (targets, patch, actor, time), the state, and one mark per chunk applied or
 * rolled back; each mark is set in the same transaction as the chunk's writes,
 * conditioned on not being set yet, so a chunk never applies twice whoever
 * drives the batch. Ending a batch deletes the intent and writes the outcome in
 * one transaction.
 */
import { keys } from '../data/keys';
import { getItem, queryAll, tx, type Item, type TransactItem } from '../data/table-client';
import { auditPut, type AuditEvent } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import type { ImportedFrom } from './disposition-store';
import type { DispositionPatch } from './disposition-writes';

export type BatchState = 'applying' | 'rolling_back';
export type BatchFailure = 'release_locked' | 'concurrent_modification';

export interface BatchTarget {
  vulnerabilityId: string;
  productId: string;
  releaseId: string;
  sbomId: string;
  /** The decision the finding's write lands on; absent in an intent recorded before decisions had keys of their own. */
  decisionKey?: string | undefined;
  /** Index into the intent's `patchTable` when this target has a patch of its own (VEX import); else the batch's `patch` applies. */
  patch?: number;
}

export interface BatchIntent {
  id: string;
  teamId: string;
  actor: Actor;
  createdAt: string;
  patch: DispositionPatch;
  /** Distinct per-target patches (a VEX import decides each finding separately); empty for a plain batch. */
  patchTable: DispositionPatch[];
  /** Provenance every write of the batch records (a VEX import's document). */
  importedFrom: ImportedFrom | null;
  /** Written with the committed outcome, in the same transaction: the one audit entry of an import. */
  completionAudit: AuditEvent | null;
  targets: BatchTarget[];
  releaseIds: string[];
  chunkSize: number;
  state: BatchState;
  reason: BatchFailure | null;
  applied: Set<number>;
  rolledBack: Set<number>;
}

export type BatchOutcome = { state: 'committed'; updated: number } | { state: 'failed'; reason: BatchFailure };

/** Finished batches' outcomes are kept this long for a caller that lost the answer. */
const OUTCOME_RETENTION_SECONDS = 7 * 24 * 3600;

const appliedMark = (chunk: number) => `applied_${chunk}`;
const rolledBackMark = (chunk: number) => `rolledBack_${chunk}`;

export function chunkCount(intent: Pick<BatchIntent, 'targets' | 'chunkSize'>): number {
  return Math.ceil(intent.targets.length / intent.chunkSize);
}

export function chunkTargets(intent: BatchIntent, chunk: number): BatchTarget[] {
  return intent.targets.slice(chunk * intent.chunkSize, (chunk + 1) * intent.chunkSize);
}

export function patchOf(intent: BatchIntent, target: BatchTarget): DispositionPatch {
  return (target.patch !== undefined ? intent.patchTable[target.patch] : undefined) ?? intent.patch;
}

/** Targets stored grouped by SBOM: a 500-id intent stays near 20 KB (it is rewritten with every chunk mark). */
interface TargetGroup {
  productId: string;
  releaseId: string;
  sbomId: string;
  vulnerabilityIds: string[];
  /** Parallel to vulnerabilityIds. */
  decisionKeys?: string[];
  /** Parallel to vulnerabilityIds when the targets have patches of their own. */
  patches?: number[];
}

function groupTargets(targets: BatchTarget[]): TargetGroup[] {
  const groups: TargetGroup[] = [];
  for (const target of targets) {
    const last = groups.at(-1);
    if (
      last &&
      last.productId === target.productId &&
      last.releaseId === target.releaseId &&
      last.sbomId === target.sbomId
    ) {
      last.vulnerabilityIds.push(target.vulnerabilityId);
      last.decisionKeys?.push(target.decisionKey ?? '');
      if (target.patch !== undefined) (last.patches ??= []).push(target.patch);
    } else {
      groups.push({
        productId: target.productId,
        releaseId: target.releaseId,
        sbomId: target.sbomId,
        vulnerabilityIds: [target.vulnerabilityId],
        decisionKeys: [target.decisionKey ?? ''],
        ...(target.patch !== undefined ? { patches: [target.patch] } : {}),
      });
    }
  }
  return groups;
}

function toIntent(item: Item): BatchIntent {
  const targets = (item.targetGroups as TargetGroup[]).flatMap(
    ({ vulnerabilityIds, decisionKeys, patches, ...group }) =>
      vulnerabilityIds.map((vulnerabilityId, index): BatchTarget => ({
        ...group,
        vulnerabilityId,
        decisionKey: decisionKeys?.[index] || undefined,
        ...(patches?.[index] !== undefined ? { patch: patches[index] } : {}),
      })),
  );
  const count = Math.ceil(targets.length / Number(item.chunkSize));
  const marked = (mark: (chunk: number) => string) =>
    new Set(Array.from({ length: count }, (_, chunk) => chunk).filter((chunk) => item[mark(chunk)] !== undefined));
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    actor: item.actor as Actor,
    createdAt: String(item.createdAt),
    patch: item.patch as DispositionPatch,
    patchTable: (item.patchTable as DispositionPatch[] | undefined) ?? [],
    importedFrom: (item.importedFrom as ImportedFrom | undefined) ?? null,
    completionAudit: (item.completionAudit as AuditEvent | undefined) ?? null,
    targets,
    releaseIds: item.releaseIds as string[],
    chunkSize: Number(item.chunkSize),
    state: item.state as BatchState,
    reason: (item.reason as BatchFailure | undefined) ?? null,
    applied: marked(appliedMark),
    rolledBack: marked(rolledBackMark),
  };
}

export const dispositionBatchStore = {
  intentItem(intent: Omit<BatchIntent, 'state' | 'reason' | 'applied' | 'rolledBack'>): Item {
    return {
      ...keys.dispositionBatchPending(intent.teamId, intent.id),
      ...keys.dispositionBatchPendingIndex(intent.teamId, intent.id, intent.createdAt),
      entity: 'DispositionBatch',
      id: intent.id,
      teamId: intent.teamId,
      actor: intent.actor,
      createdAt: intent.createdAt,
      patch: intent.patch,
      targetGroups: groupTargets(intent.targets),
      releaseIds: intent.releaseIds,
      chunkSize: intent.chunkSize,
      state: 'applying' satisfies BatchState,
      ...(intent.patchTable.length > 0 ? { patchTable: intent.patchTable } : {}),
      ...(intent.importedFrom ? { importedFrom: intent.importedFrom } : {}),
      ...(intent.completionAudit ? { completionAudit: intent.completionAudit } : {}),
    };
  },

  async find(teamId: string, batchId: string): Promise<BatchIntent | undefined> {
    const item = await getItem(keys.dispositionBatchPending(teamId, batchId));
    return item ? toIntent(item) : undefined;
  },

  async outcome(teamId: string, batchId: string): Promise<BatchOutcome | undefined> {
    const item = await getItem(keys.dispositionBatchOutcome(teamId, batchId));
    if (!item) return undefined;
    return item.state === 'committed'
      ? { state: 'committed', updated: Number(item.updated) }
      : { state: 'failed', reason: item.reason as BatchFailure };
  },

  /** Pending batches of one team (strongly consistent: a read right after a crash sees them). */
  async pendingOfTeam(teamId: string): Promise<{ id: string; releaseIds: string[] }[]> {
    const { pk, skPrefix } = keys.dispositionBatchPendingPrefix(teamId);
    const items = await queryAll({ pk, skPrefix, projection: ['id', 'releaseIds'] });
    return items.map((item) => ({ id: String(item.id), releaseIds: item.releaseIds as string[] }));
  },

  /** Every team's pending batches, from the sparse index (eventually consistent; the sweep re-reads each intent). */
  async pendingOfAllTeams(): Promise<{ teamId: string; id: string }[]> {
    const items = await queryAll({ ...keys.dispositionBatchPendingIndexPartition(), projection: ['teamId', 'id'] });
    return items.map((item) => ({ teamId: String(item.teamId), id: String(item.id) }));
  },

  /** Marks a chunk applied; fails unless the batch is still applying and the chunk is not yet applied. */
  appliedMarkItem(intent: BatchIntent, chunk: number, at: string): TransactItem {
    return tx.update(
      keys.dispositionBatchPending(intent.teamId, intent.id),
      'SET #mark = :at',
      { '#mark': appliedMark(chunk), '#state': 'state' },
      { ':at': at, ':applying': 'applying' },
      'attribute_exists(pk) AND #state = :applying AND attribute_not_exists(#mark)',
    );
  },

  /** Marks an applied chunk rolled back; fails unless the batch is rolling back and the chunk not yet undone. */
  rolledBackMarkItem(intent: BatchIntent, chunk: number, at: string): TransactItem {
    return tx.update(
      keys.dispositionBatchPending(intent.teamId, intent.id),
      'SET #mark = :at',
      { '#mark': rolledBackMark(chunk), '#state': 'state' },
      { ':at': at, ':rollingBack': 'rolling_back' },
      'attribute_exists(pk) AND #state = :rollingBack AND attribute_not_exists(#mark)',
    );
  },

  /** applying → rolling_back; from then on no chunk can be applied (each apply checks the state). */
  rollBackItem(intent: BatchIntent, reason: BatchFailure): TransactItem {
    return tx.update(
      keys.dispositionBatchPending(intent.teamId, intent.id),
      'SET #state = :rollingBack, #reason = :reason',
      { '#state': 'state', '#reason': 'reason' },
      { ':rollingBack': 'rolling_back', ':reason': reason, ':applying': 'applying' },
      'attribute_exists(pk) AND #state = :applying',
    );
  },

  /** Ends the batch: the intent (and its index entry) goes, the outcome stays for a week. */
  finishItems(intent: BatchIntent, outcome: BatchOutcome, at: string): TransactItem[] {
    const expected = outcome.state === 'committed' ? 'applying' : 'rolling_back';
    return [
      tx.delete(
        keys.dispositionBatchPending(intent.teamId, intent.id),
        'attribute_exists(pk) AND #state = :expected',
        { '#state': 'state' },
        { ':expected': expected },
      ),
      tx.create({
        ...keys.dispositionBatchOutcome(intent.teamId, intent.id),
        entity: 'DispositionBatchOutcome',
        id: intent.id,
        teamId: intent.teamId,
        ...outcome,
        createdAt: intent.createdAt,
        finishedAt: at,
        expiresAtEpoch: Math.floor(Date.parse(at) / 1000) + OUTCOME_RETENTION_SECONDS,
      }),
      ...(outcome.state === 'committed' && intent.completionAudit
        ? [auditPut(intent.teamId, intent.actor, intent.completionAudit, at)]
        : []),
    ];
  },
};
