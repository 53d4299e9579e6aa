/**
 * The transaction items of one disposition change, shared by single writes and
 * batches: the disposition (conditioned on the revision it was planned from),
 * its history entry and its audit entry, so revision = history = audit per
 * disposition. A batch write also leaves a `batchWrite` marker on the item
 * holding what it replaced; any other write replaces the whole item and so
 * drops the marker, which is what lets a rollback touch only items it wrote.
 */
import { randomUUID } from 'node:crypto';
import { keys, type Key } from '../data/keys';
import { tx, type Item, type TransactItem } from '../data/table-client';
import { pointerPut } from '../data/id-pointers';
import { auditPut, diffChanges } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import type { Finding } from '../scans/finding-store';
import { isFinalDecision } from './rules';
import { DISPOSITION_FIELDS, dispositionItem, toDisposition, type Disposition, type ImportedFrom } from './disposition-store';

export type DispositionPatch = Partial<Record<(typeof DISPOSITION_FIELDS)[number], string | null>>;

export interface PlannedWrite {
  finding: Finding;
  before: Disposition | undefined;
  after: Disposition;
  /** Id of the history entry this write adds. */
  changeId: string;
}

/** What a batch left on a disposition it wrote: enough to undo exactly that write. */
export interface BatchWriteMarker {
  batchId: string;
  at: string;
  changeId: string;
  /** The disposition as it was before the batch; null when the batch created it. */
  before: Disposition | null;
}

export function fieldsOf(disposition: Pick<Disposition, (typeof DISPOSITION_FIELDS)[number]>): Record<string, unknown> {
  return Object.fromEntries(DISPOSITION_FIELDS.map((field) => [field, disposition[field]]));
}

/** The fields that make the decision; a member changing one of them makes an imported decision theirs. */
const DECISION_FIELDS = ['status', 'justification', 'response'] as const;

export function plan(finding: Finding, existing: Disposition | undefined, patch: DispositionPatch, actor: Actor, at: string, importedFrom?: ImportedFrom): PlannedWrite {
  const base: Disposition = existing ?? {
    id: randomUUID(), teamId: finding.teamId, productId: finding.productId, releaseId: finding.releaseId, vulnerabilityId: finding.id,
    status: 'under_investigation', justification: null, response: null, detail: null, actionStatement: null, impactStatement: null, assignedTo: null, decidedAt: null,
    createdAt: at, updatedAt: at, updatedBy: { id: actor.id, name: actor.name }, revision: 0,
    expiresAt: null, reviewRequired: false, carriedFrom: null, importedFrom: null,
  };
  const after: Disposition = { ...base, updatedAt: at, updatedBy: { id: actor.id, name: actor.name }, revision: base.revision + 1 };
  for (const field of DISPOSITION_FIELDS) {
    const value = patch[field];
    if (value !== undefined) (after as unknown as Record<string, unknown>)[field] = value;
  }
  if (importedFrom) after.importedFrom = importedFrom;
  else if (DECISION_FIELDS.some((field) => after[field] !== base[field])) after.importedFrom = null;
  // The SLA measures detection → the first final decision; later edits of a final decision do not move it.
  after.decidedAt = isFinalDecision(after) ? (existing && isFinalDecision(existing) ? existing.decidedAt ?? at : at) : null;
  return { finding, before: existing, after, changeId: randomUUID() };
}

function historyItem(disposition: Disposition, actor: Actor, at: string, changeId: string, changes: Record<string, unknown>): Item {
  return {
    ...keys.dispositionHistory(disposition.teamId, disposition.productId, disposition.releaseId, disposition.vulnerabilityId, at, changeId), entity: 'DispositionChange',
    // The revision it produced: history, revision and audit count the same writes.
    changeId, at, revision: disposition.revision, actor: { id: actor.id, name: actor.name, email: actor.email }, changes,
  };
}

export function writeItems(write: PlannedWrite, actor: Actor, at: string, batchId?: string): TransactItem[] {
  const { after, before, finding, changeId } = write;
  const changes: Record<string, unknown> = diffChanges(before ? fieldsOf(before) : {}, fieldsOf(after));
  // Provenance of an imported decision in its history and audit entries: the document's SHA-256.
  const importedFrom = { from: before?.importedFrom?.documentSha256 ?? null, to: after.importedFrom?.documentSha256 ?? null };
  if (importedFrom.from !== importedFrom.to) changes.importedFrom = importedFrom;
  const item = dispositionItem(after);
  if (batchId) item.batchWrite = { batchId, at, changeId, before: before ?? null } satisfies BatchWriteMarker;
  const items: TransactItem[] = [
    before ? tx.put(item, '#revision = :expected', { '#revision': 'revision' }, { ':expected': before.revision }) : tx.create(item),
    tx.create(historyItem(after, actor, at, changeId, changes)),
    auditPut(after.teamId, actor, {
      action: before ? 'update' : 'create', entityType: 'disposition', entityId: after.id, entityName: `${finding.cveId} in ${finding.componentName}`,
      changes: { vulnerabilityId: after.vulnerabilityId, ...changes },
    }, at),
  ];
  if (!before) {
    items.push(pointerPut(after.teamId, after.id, {
      entityType: 'disposition', target: keys.disposition(after.teamId, after.productId, after.releaseId, after.vulnerabilityId),
      productId: after.productId, releaseId: after.releaseId, vulnerabilityId: after.vulnerabilityId,
    }));
  }
  return items;
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
export function compensationItems(stored: Item, marker: BatchWriteMarker, actor: Actor, at: string): TransactItem[] {
  const current = toDisposition(stored);
  const key: Key = keys.disposition(current.teamId, current.productId, current.releaseId, current.vulnerabilityId);
  const unchanged = { condition: '#revision = :revision AND #marker.#batchId = :batchId', names: { '#revision': 'revision', '#marker': 'batchWrite', '#batchId': 'batchId' }, values: { ':revision': current.revision, ':batchId': marker.batchId } };
  const entityName = current.vulnerabilityId;
  if (!marker.before) {
    return [
      tx.delete(key, unchanged.condition, unchanged.names, unchanged.values),
      tx.delete(keys.idPointer(current.teamId, current.id)),
      tx.delete(keys.dispositionHistory(current.teamId, current.productId, current.releaseId, current.vulnerabilityId, marker.at, marker.changeId)),
      auditPut(current.teamId, actor, { action: 'rollback', entityType: 'disposition', entityId: current.id, entityName, changes: { batchId: marker.batchId, ...diffChanges(fieldsOf(current), {}) } }, at),
    ];
  }
  const restored: Disposition = {
    ...marker.before, updatedAt: at, updatedBy: { id: actor.id, name: actor.name }, revision: current.revision + 1,
  };
  const changes = diffChanges(fieldsOf(current), fieldsOf(restored));
  const changeId = randomUUID();
  return [
    tx.put(dispositionItem(restored), unchanged.condition, unchanged.names, unchanged.values),
    tx.create(historyItem(restored, actor, at, changeId, { ...changes })),
    auditPut(current.teamId, actor, { action: 'rollback', entityType: 'disposition', entityId: current.id, entityName, changes: { batchId: marker.batchId, ...changes } }, at),
  ];
}
