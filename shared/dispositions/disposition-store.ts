/** Disposition items (one per vulnerability) and their change history. */
import { keys } from '../data/keys';
import { getItem, queryAll, type Item } from '../data/table-client';
import { resolvePointer } from '../data/id-pointers';

export type DispositionStatus = 'affected' | 'not_affected' | 'fixed' | 'under_investigation';

export const DISPOSITION_FIELDS = ['status', 'justification', 'response', 'detail', 'actionStatement', 'impactStatement', 'assignedTo'] as const;
export type DispositionField = (typeof DISPOSITION_FIELDS)[number];

export interface Disposition {
  id: string;
  teamId: string;
  productId: string;
  releaseId: string;
  vulnerabilityId: string;
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
  const item: Item = { ...keys.disposition(disposition.teamId, disposition.productId, disposition.releaseId, disposition.vulnerabilityId), entity: 'Disposition' };
  for (const [field, value] of Object.entries(disposition)) if (value !== null) item[field] = value;
  return item;
}

export function toDisposition(item: Item): Disposition {
  const nullable = (field: string) => (item[field] as string | undefined) ?? null;
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    productId: String(item.productId),
    releaseId: String(item.releaseId),
    vulnerabilityId: String(item.vulnerabilityId),
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

export function toDispositionView(disposition: Disposition) {
  return {
    id: disposition.id,
    vulnerabilityId: disposition.vulnerabilityId,
    releaseId: disposition.releaseId,
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
    importedFrom: disposition.importedFrom,
  };
}

export const dispositionStore = {
  async findByVulnerability(teamId: string, productId: string, releaseId: string, vulnerabilityId: string): Promise<Disposition | undefined> {
    const item = await getItem(keys.disposition(teamId, productId, releaseId, vulnerabilityId));
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
    const { pk, skPrefix } = keys.dispositionHistoryPrefix(disposition.teamId, disposition.productId, disposition.releaseId, disposition.vulnerabilityId);
    return (await queryAll({ pk, skPrefix })).map((item) => ({
      changeId: String(item.changeId),
      at: String(item.at),
      actor: item.actor as DispositionChange['actor'],
      changes: item.changes as DispositionChange['changes'],
    }));
  },
};
