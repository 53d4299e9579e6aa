/**
 * Disposition items, one per (release, package at version, advisory) — keyed by
 * `decisionKey` (decision-identity.ts) — and their change history.
 */
import { keys } from '../data/keys';
import { getItem, queryAll, type Item } from '../data/table-client';
import { resolvePointer } from '../data/id-pointers';
import { decisionState } from './decision-identity';

export type DispositionStatus = 'affected' | 'not_affected' | 'fixed' | 'under_investigation';

/** The fields a member writes (and history and audit diff); `expiresAt` included. */
export const DISPOSITION_FIELDS = ['status', 'justification', 'response', 'detail', 'actionStatement', 'impactStatement', 'assignedTo', 'expiresAt'] as const;
export type DispositionField = (typeof DISPOSITION_FIELDS)[number];

export interface Disposition {
  id: string;
  teamId: string;
  productId: string;
  releaseId: string;
  /** The finding named when the decision was created (spec field); the decision itself is on `decisionKey`. */
  vulnerabilityId: string;
  /** What the decision is about: (package at version, advisory) within the release. */
  decisionKey: string;
  advisoryId: string;
  packageIdentity: string;
  /** The package without its version: what `any_version` carry-over matches on. */
  packageWithoutVersion: string;
  status: DispositionStatus;
  justification: string | null;
  response: string | null;
  detail: string | null;
  actionStatement: string | null;
  impactStatement: string | null;
  assignedTo: string | null;
  /** When the disposition first became final (the SLA clock stops here); null while it is not final. */
  decidedAt: string | null;
  createdAt: string;
  updatedAt: string;
  updatedBy: { id: string; name: string };
  revision: number;
  /** After this instant the decision counts as undecided (issue 13 item 5); null = no expiry. */
  expiresAt: string | null;
  /** A decision carried from another package version waits for a member's confirmation; it counts as undecided until then. */
  reviewRequired: boolean;
  /** Where a carried decision came from; null for a decision made in this release. */
  carriedFrom: CarriedFrom | null;
  /** The VEX document an import took this decision from (issue 13 item 4); null once a member changes the decision. */
  importedFrom: ImportedFrom | null;
}

export interface ImportedFrom {
  documentSha256: string;
  author: string | null;
  format: 'cyclonedx_vex' | 'openvex' | 'csaf';
  importedAt: string;
}

export interface CarriedFrom {
  releaseId: string;
  releaseVersion: string;
  dispositionId: string;
  decidedBy: { id: string; name: string };
  decidedAt: string;
}

export interface DispositionChange {
  changeId: string;
  at: string;
  actor: { id: string; name: string; email: string | null };
  changes: Record<string, { from: unknown; to: unknown }>;
}

export function dispositionItem(disposition: Disposition): Item {
  const item: Item = { ...keys.disposition(disposition.teamId, disposition.productId, disposition.releaseId, disposition.decisionKey), entity: 'Disposition' };
  for (const [field, value] of Object.entries(disposition)) if (value !== null) item[field] = value;
  return item;
}

export function toDisposition(item: Item): Disposition {
  const nullable = (field: string) => (item[field] as string | undefined) ?? null;
  const text = (field: string) => nullable(field) ?? '';
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    productId: String(item.productId),
    releaseId: String(item.releaseId),
    vulnerabilityId: String(item.vulnerabilityId),
    // Absent only on an item the decision-key migration has not moved yet.
    decisionKey: text('decisionKey'),
    advisoryId: text('advisoryId'),
    packageIdentity: text('packageIdentity'),
    packageWithoutVersion: text('packageWithoutVersion'),
    status: item.status as DispositionStatus,
    justification: nullable('justification'),
    response: nullable('response'),
    detail: nullable('detail'),
    actionStatement: nullable('actionStatement'),
    impactStatement: nullable('impactStatement'),
    assignedTo: nullable('assignedTo'),
    decidedAt: nullable('decidedAt'),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    updatedBy: item.updatedBy as Disposition['updatedBy'],
    revision: Number(item.revision ?? 1),
    expiresAt: nullable('expiresAt'),
    reviewRequired: item.reviewRequired === true,
    carriedFrom: (item.carriedFrom as CarriedFrom | undefined) ?? null,
    importedFrom: (item.importedFrom as ImportedFrom | undefined) ?? null,
  };
}

export function toDispositionView(disposition: Disposition, now = new Date().toISOString()) {
  const carried = disposition.carriedFrom;
  return {
    id: disposition.id,
    vulnerabilityId: disposition.vulnerabilityId,
    releaseId: disposition.releaseId,
    advisory_id: disposition.advisoryId,
    package: disposition.packageIdentity,
    status: disposition.status,
    justification: disposition.justification,
    response: disposition.response,
    detail: disposition.detail,
    actionStatement: disposition.actionStatement,
    impactStatement: disposition.impactStatement,
    assignedTo: disposition.assignedTo,
    decided_at: disposition.decidedAt,
    created_at: disposition.createdAt,
    updated_at: disposition.updatedAt,
    updated_by: disposition.updatedBy,
    expires_at: disposition.expiresAt,
    review_required: disposition.reviewRequired,
    carried_from: carried
      ? { release_id: carried.releaseId, release_version: carried.releaseVersion, disposition_id: carried.dispositionId, decided_by: carried.decidedBy, decided_at: carried.decidedAt }
      : null,
    imported_from: importedFromView(disposition.importedFrom),
    /** Whether it counts: `expired` and `review_required` count as undecided. */
    decision_state: decisionState(disposition, now),
  };
}

/**
 * A finding's decision as the vulnerability lists show it: `decision_state` says
 * why a decision does not count (`expired`, `review_required`) or that it was `carried`.
 */
export function toFindingDecisionView(disposition: Disposition, now = new Date().toISOString()) {
  return {
    id: disposition.id, status: disposition.status, response: disposition.response, justification: disposition.justification,
    decision_state: decisionState(disposition, now), expires_at: disposition.expiresAt, review_required: disposition.reviewRequired,
    carried_from: disposition.carriedFrom ? { release_id: disposition.carriedFrom.releaseId, release_version: disposition.carriedFrom.releaseVersion, disposition_id: disposition.carriedFrom.dispositionId } : null,
    imported_from: importedFromView(disposition.importedFrom),
  };
}

function importedFromView(imported: ImportedFrom | null) {
  return imported ? { document_sha256: imported.documentSha256, author: imported.author, format: imported.format, imported_at: imported.importedAt } : null;
}

export const dispositionStore = {
  async findByDecision(teamId: string, productId: string, releaseId: string, decisionKey: string): Promise<Disposition | undefined> {
    const item = await getItem(keys.disposition(teamId, productId, releaseId, decisionKey));
    return item ? toDisposition(item) : undefined;
  },

  async resolve(teamId: string, dispositionId: string): Promise<Disposition | undefined> {
    const pointer = await resolvePointer(teamId, dispositionId, 'disposition');
    if (!pointer) return undefined;
    const item = await getItem(pointer.target);
    return item ? toDisposition(item) : undefined;
  },

  async listByRelease(teamId: string, productId: string, releaseId: string): Promise<Disposition[]> {
    const { pk, skPrefix } = keys.dispositionPrefix(teamId, productId, releaseId);
    return (await queryAll({ pk, skPrefix })).map(toDisposition);
  },

  async history(disposition: Disposition): Promise<DispositionChange[]> {
    const { pk, skPrefix } = keys.dispositionHistoryPrefix(disposition.teamId, disposition.productId, disposition.releaseId, disposition.decisionKey);
    return (await queryAll({ pk, skPrefix })).map((item) => ({
      changeId: String(item.changeId),
      at: String(item.at),
      actor: item.actor as DispositionChange['actor'],
      changes: item.changes as DispositionChange['changes'],
    }));
  },
};
