/**
 * The pieces every state change of a VEX document is built from: the read of the document, the
 * update conditioned on the state and revision it was read in, the approval record, the checks
 * and updates of the release lock it holds or joins, and the errors a failed transition maps to.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import { TransactionFailedError, tx, type TransactItem } from '../data/table-client';
import { ConflictError, NotFoundError } from '../errors';
import { releaseLockedError } from '../releases/release-lock';
import type { Actor } from '../identity/actor';
import type { Release } from '../releases/release-store';
import {
  approvalItem,
  vexItem,
  vexStore,
  type ApprovalAction,
  type ResolvedVex,
  type VexDocumentRecord,
  type WorkflowStatus,
} from './vex-store';

export function wrongState(document: VexDocumentRecord, action: string, expected: WorkflowStatus): ConflictError {
  return new ConflictError(
    `Cannot ${action} a VEX document in state "${document.workflowStatus}"; it must be "${expected}"`,
    'invalid_workflow_state',
  );
}

export function approval(
  document: VexDocumentRecord,
  action: ApprovalAction,
  actor: Actor,
  comment: string | undefined,
  at: string,
): TransactItem {
  return tx.create(
    approvalItem(document, {
      id: randomUUID(),
      vexId: document.id,
      action,
      actorId: actor.id,
      actorName: actor.name,
      comment: comment ?? '',
      createdAt: at,
      documentVersion: document.version,
    }),
  );
}

export function documentUpdate(document: VexDocumentRecord, next: VexDocumentRecord): TransactItem {
  // Replaces the item only if nobody changed it since it was read (state and revision).
  return tx.put(
    vexItem(next),
    '#status = :status AND #revision = :revision',
    { '#status': 'workflowStatus', '#revision': 'revision' },
    { ':status': document.workflowStatus, ':revision': document.revision },
  );
}

export async function resolveDocument(teamId: string, vexId: string): Promise<ResolvedVex> {
  const resolved = await vexStore.resolve(teamId, vexId);
  if (!resolved) throw new NotFoundError('VEX document');
  return resolved;
}

export async function failTransition(
  error: unknown,
  teamId: string,
  vexId: string,
  action: string,
  expected: WorkflowStatus,
): Promise<never> {
  if (error instanceof TransactionFailedError) {
    const latest = await resolveDocument(teamId, vexId);
    if (latest.document.workflowStatus !== expected) throw wrongState(latest.document, action, expected);
    if (error.failedAt(1)) throw await releaseLockedError(teamId, latest.release.lockedBy);
    throw new ConflictError(
      'The document changed while the request ran; read it again and retry',
      'concurrent_modification',
    );
  }
  throw error;
}

/** ConditionCheck for a document joining the lock: still held by the same holder since the same time. */
export function joinLockItem(release: Release): TransactItem {
  return tx.check(
    keys.release(release.teamId, release.productId, release.id),
    'attribute_exists(pk) AND #lockedBy = :holder AND #lockedAt = :at',
    { '#lockedBy': 'lockedBy', '#lockedAt': 'lockedAt' },
    { ':holder': release.lockedBy, ':at': release.lockedAt },
  );
}

/** ConditionCheck that a document rejected beside the holder did not become the holder meanwhile. */
export function notHolderCheck(release: Release, vexId: string): TransactItem {
  return tx.check(
    keys.release(release.teamId, release.productId, release.id),
    'attribute_exists(pk) AND (attribute_not_exists(#lockedBy) OR #lockedBy <> :id)',
    { '#lockedBy': 'lockedBy' },
    { ':id': vexId },
  );
}

/** Moves the lock from the rejected holder to another document under it (the lock time stays: decisions were frozen since). */
export function handOverLockItem(release: Release, from: string, to: VexDocumentRecord): TransactItem {
  return tx.update(
    keys.release(release.teamId, release.productId, release.id),
    'SET #lockedBy = :to',
    { '#lockedBy': 'lockedBy' },
    { ':to': to.id, ':from': from },
    'attribute_exists(pk) AND #lockedBy = :from',
  );
}

/** ConditionCheck that a document is still in the state and revision it was read in. */
export function unchangedCheck(document: VexDocumentRecord): TransactItem {
  return tx.check(
    keys.vexDocument(document.teamId, document.productId, document.releaseId, document.id),
    '#status = :status AND #revision = :revision',
    { '#status': 'workflowStatus', '#revision': 'revision' },
    { ':status': document.workflowStatus, ':revision': document.revision },
  );
}

/** Another document under the same lock that keeps the release locked when its holder is rejected: published first, then approved, then submitted. */
export async function lockSuccessor(
  teamId: string,
  release: Release,
  holderId: string,
): Promise<VexDocumentRecord | undefined> {
  const rank: Partial<Record<WorkflowStatus, number>> = { published: 3, approved: 2, submitted: 1 };
  const candidates = (await vexStore.listByRelease(teamId, release.productId, release.id)).filter(
    (doc) => doc.id !== holderId && rank[doc.workflowStatus] !== undefined && doc.lockedAt === release.lockedAt,
  );
  return candidates.sort((a, b) => rank[b.workflowStatus]! - rank[a.workflowStatus]!)[0];
}
