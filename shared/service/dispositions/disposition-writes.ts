/**
 * The transaction items of one disposition change, shared by single writes and
 * batches: the disposition (conditioned on the revision it was planned from),
 * its history entry and its audit entry, so revision = history = audit per
 * disposition. A batch write also leaves a `batchWrite` marker on the item
 * holding what it replaced; any other write replaces the whole item and so
 * drops the marker, which is what lets a rollback touch only items it wrote.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import { tx, type Item } from '../data/table-client';
import { pointerPut } from '../data/id-pointers';
import { auditPut, diffChanges } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import type { Finding } from '../scans/finding-store';
import { isFinalDecision } from './rules';
import {
  DISPOSITION_FIELDS,
  dispositionKey,
  toDisposition,
  type Disposition,
  type DispositionTransaction,
  type ImportedFrom,
} from './disposition-store';
import { decisionIdentity, type DecisionIdentity } from './decision-identity';
import { carryIndexDelete, carryIndexPut } from './carry-index';

export type DispositionPatch = Partial<Record<(typeof DISPOSITION_FIELDS)[number], string | null>>;

/** What a write decides on: the release, the (package, advisory) and the finding that names it. */
export interface DecisionTarget {
  teamId: string;
  productId: string;
  releaseId: string;
  /** The finding named at creation (`vulnerabilityId`). */
  vulnerabilityId: string;
  identity: DecisionIdentity;
  /** How the audit log names it. */
  label: string;
}

export function targetOfFinding(finding: Finding): DecisionTarget {
  return {
    teamId: finding.teamId,
    productId: finding.productId,
    releaseId: finding.releaseId,
    vulnerabilityId: finding.id,
    identity: decisionIdentity(finding),
    label: `${finding.cveId} in ${finding.componentName}`,
  };
}

/** The target of a stored disposition (its finding may be gone: a deleted SBOM does not take the release's decision along). */
export function targetOfDisposition(disposition: Disposition): DecisionTarget {
  const { decisionKey, advisoryId, packageIdentity, packageWithoutVersion } = disposition;
  return {
    teamId: disposition.teamId,
    productId: disposition.productId,
    releaseId: disposition.releaseId,
    vulnerabilityId: disposition.vulnerabilityId,
    identity: { decisionKey, advisoryId, packageIdentity, packageWithoutVersion },
    label: `${advisoryId} in ${packageIdentity}`,
  };
}

export interface PlannedWrite {
  target: DecisionTarget;
  before: Disposition | undefined;
  after: Disposition;
  /** Id of the history entry this write adds. */
  changeId: string;
  /** The audit action; default create/update. Carry-over and confirmation have their own. */
  action?: 'carry' | 'confirm';
}

/** What a batch left on a disposition it wrote: enough to undo exactly that write. */
export interface BatchWriteMarker {
  batchId: string;
  at: string;
  changeId: string;
  /** The disposition as it was before the batch; null when the batch created it. */
  before: Disposition | null;
}

/** The fields history and audit diff: what a member writes, and whether a carried decision waits for review. */
export function fieldsOf(
  disposition: Pick<Disposition, (typeof DISPOSITION_FIELDS)[number] | 'reviewRequired'>,
): Record<string, unknown> {
  return {
    ...Object.fromEntries(DISPOSITION_FIELDS.map((field) => [field, disposition[field]])),
    reviewRequired: disposition.reviewRequired,
  };
}

/** A new disposition on the target, before any field is applied. */
export function newDisposition(target: DecisionTarget, actor: Pick<Actor, 'id' | 'name'>, at: string): Disposition {
  return {
    id: randomUUID(),
    teamId: target.teamId,
    productId: target.productId,
    releaseId: target.releaseId,
    vulnerabilityId: target.vulnerabilityId,
    ...target.identity,
    status: 'under_investigation',
    justification: null,
    response: null,
    detail: null,
    actionStatement: null,
    impactStatement: null,
    assignedTo: null,
    decidedAt: null,
    createdAt: at,
    updatedAt: at,
    updatedBy: { id: actor.id, name: actor.name },
    revision: 0,
    expiresAt: null,
    reviewRequired: false,
    carriedFrom: null,
    importedFrom: null,
  };
}

/** The fields that make the decision; a member changing one of them makes an imported decision theirs. */
const DECISION_FIELDS = ['status', 'justification', 'response'] as const;

/**
 * A member's write (or a VEX import's, with `importedFrom`): applies the patch; any such write
 * also settles a carried decision's review.
 */
export function plan(
  subject: Finding | DecisionTarget,
  existing: Disposition | undefined,
  patch: DispositionPatch,
  actor: Actor,
  at: string,
  importedFrom?: ImportedFrom,
): PlannedWrite {
  const target = 'identity' in subject ? subject : targetOfFinding(subject);
  const base: Disposition = existing ?? newDisposition(target, actor, at);
  const after: Disposition = {
    ...base,
    updatedAt: at,
    updatedBy: { id: actor.id, name: actor.name },
    revision: base.revision + 1,
    reviewRequired: false,
  };
  for (const field of DISPOSITION_FIELDS) {
    const value = patch[field];
    if (value !== undefined) (after as unknown as Record<string, unknown>)[field] = value;
  }
  if (importedFrom) after.importedFrom = importedFrom;
  else if (DECISION_FIELDS.some((field) => after[field] !== base[field])) after.importedFrom = null;
  // The SLA measures detection → the first final decision; later edits of a final decision do not move it.
  after.decidedAt = isFinalDecision(after)
    ? existing && isFinalDecision(existing)
      ? (existing.decidedAt ?? at)
      : at
    : null;
  return { target, before: existing, after, changeId: randomUUID() };
}

export function historyItem(
  disposition: Disposition,
  actor: Actor,
  at: string,
  changeId: string,
  changes: Record<string, unknown>,
): Item {
  return {
    ...keys.dispositionHistory(
      disposition.teamId,
      disposition.productId,
      disposition.releaseId,
      disposition.decisionKey,
      at,
      changeId,
    ),
    entity: 'DispositionChange',
    // The revision it produced: history, revision and audit count the same writes.
    changeId,
    at,
    revision: disposition.revision,
    actor: { id: actor.id, name: actor.name, email: actor.email },
    changes,
  };
}

/**
 * Adds the disposition, its history entry, its audit entry, the product's carry-over
 * index entry (a decision waiting for review is not carried on) and, for a new
 * disposition, its id pointer — always last (callers find a lost create race there).
 * The transaction must move the release's dispositions version (DispositionTransaction checks it).
 * Returns the index of the disposition item.
 */
export function writeItems(
  transaction: DispositionTransaction,
  write: PlannedWrite,
  actor: Actor,
  at: string,
  batchId?: string,
  options: { index?: boolean } = {},
): number {
  const { after, before, target, changeId } = write;
  const changes: Record<string, unknown> = diffChanges(before ? fieldsOf(before) : {}, fieldsOf(after));
  if (write.action === 'carry') changes.carriedFrom = { from: null, to: after.carriedFrom };
  // Provenance of an imported decision in its history and audit entries: the document's SHA-256.
  const importedFrom = {
    from: before?.importedFrom?.documentSha256 ?? null,
    to: after.importedFrom?.documentSha256 ?? null,
  };
  if (importedFrom.from !== importedFrom.to) changes.importedFrom = importedFrom;
  const marker = batchId
    ? { batchWrite: { batchId, at, changeId, before: before ?? null } satisfies BatchWriteMarker }
    : {};
  const index = before
    ? transaction.put(after, marker, {
        expression: '#revision = :expected',
        names: { '#revision': 'revision' },
        values: { ':expected': before.revision },
      })
    : transaction.put(after, marker, { expression: 'attribute_not_exists(pk)' });
  transaction.add(
    tx.create(historyItem(after, actor, at, changeId, changes)),
    auditPut(
      after.teamId,
      actor,
      {
        action: write.action ?? (before ? 'update' : 'create'),
        entityType: 'disposition',
        entityId: after.id,
        entityName: target.label,
        changes: { vulnerabilityId: after.vulnerabilityId, decisionKey: after.decisionKey, ...changes },
      },
      at,
    ),
  );
  // `index: false` when another write of the same transaction holds the product's entry (one pair, two releases).
  if (!after.reviewRequired && options.index !== false) transaction.add(carryIndexPut(after));
  if (!before) transaction.add(pointerPut(after.teamId, after.id, dispositionPointer(after)));
  return index;
}

/** True the first time a (product, decision key) is seen: a transaction may touch the product's carry-over entry once. */
export function firstIndexWrite(): (disposition: Pick<Disposition, 'productId' | 'decisionKey'>) => boolean {
  const seen = new Set<string>();
  return ({ productId, decisionKey }) =>
    !seen.has(`${productId}#${decisionKey}`) && Boolean(seen.add(`${productId}#${decisionKey}`));
}

export function dispositionPointer(disposition: Disposition) {
  return {
    entityType: 'disposition' as const,
    target: dispositionKey(disposition, disposition.decisionKey),
    productId: disposition.productId,
    releaseId: disposition.releaseId,
    vulnerabilityId: disposition.vulnerabilityId,
  };
}

/** The batch marker of a stored disposition item, if its last write came from a batch. */
export function batchMarkerOf(item: Item): BatchWriteMarker | undefined {
  const marker = item.batchWrite as BatchWriteMarker | undefined;
  return marker && typeof marker.batchId === 'string' ? marker : undefined;
}

/**
 * Undoes one batch write, only if the stored item is still exactly what the batch
 * wrote (its marker and revision): a write by anyone else since then stays.
 * An update is reverted by a new revision (history and audit say so); a creation
 * is removed with its pointer and its one history entry.
 */
export function compensationItems(
  transaction: DispositionTransaction,
  stored: Item,
  marker: BatchWriteMarker,
  actor: Actor,
  at: string,
  options: { index?: boolean } = {},
): void {
  const current = toDisposition(stored);
  const unchanged = {
    expression: '#revision = :revision AND #marker.#batchId = :batchId',
    names: { '#revision': 'revision', '#marker': 'batchWrite', '#batchId': 'batchId' },
    values: { ':revision': current.revision, ':batchId': marker.batchId },
  };
  const entityName = current.vulnerabilityId;
  if (!marker.before) {
    transaction.delete(current, dispositionKey(current, current.decisionKey), unchanged);
    transaction.add(
      tx.delete(keys.idPointer(current.teamId, current.id)),
      tx.delete(
        keys.dispositionHistory(
          current.teamId,
          current.productId,
          current.releaseId,
          current.decisionKey,
          marker.at,
          marker.changeId,
        ),
      ),
      // A missed carry is safer than carrying a decision that was undone.
      ...(options.index === false ? [] : [carryIndexDelete(current)]),
      auditPut(
        current.teamId,
        actor,
        {
          action: 'rollback',
          entityType: 'disposition',
          entityId: current.id,
          entityName,
          changes: { batchId: marker.batchId, ...diffChanges(fieldsOf(current), {}) },
        },
        at,
      ),
    );
    return;
  }
  const restored: Disposition = {
    ...marker.before,
    updatedAt: at,
    updatedBy: { id: actor.id, name: actor.name },
    revision: current.revision + 1,
  };
  const changes = diffChanges(fieldsOf(current), fieldsOf(restored));
  const changeId = randomUUID();
  transaction.put(restored, {}, unchanged);
  transaction.add(
    tx.create(historyItem(restored, actor, at, changeId, { ...changes })),
    auditPut(
      current.teamId,
      actor,
      {
        action: 'rollback',
        entityType: 'disposition',
        entityId: current.id,
        entityName,
        changes: { batchId: marker.batchId, ...changes },
      },
      at,
    ),
    ...(options.index === false
      ? []
      : [restored.reviewRequired ? carryIndexDelete(restored) : carryIndexPut(restored)]),
  );
}
