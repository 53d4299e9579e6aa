/**
 * The product's carry-over index (docs/triage-continuity.md): one small item per
 * (package at version, advisory) decided in any release of the product, holding
 * the latest counted decision on it. It is written in the same transaction as
 * the disposition, so a scan finds every earlier decision of the product with
 * one prefix Query instead of reading each release. It lives in the product's
 * collection: a product delete takes it along, and it never spans products or teams.
 */
import { keys } from '../data/keys';
import { queryAll, tx, type Item, type TransactItem } from '../data/table-client';
import type { Disposition, DISPOSITION_FIELDS } from './disposition-store';

/** The decision as the index keeps it: what a carried copy needs, and where it came from. */
export type CarryEntry = Pick<
  Disposition,
  | 'decisionKey'
  | 'advisoryId'
  | 'packageIdentity'
  | 'packageWithoutVersion'
  | 'releaseId'
  | (typeof DISPOSITION_FIELDS)[number]
  | 'expiresAt'
> & {
  dispositionId: string;
  /** Who made the decision and when; for a carried decision, the original decider. */
  decidedBy: { id: string; name: string };
  decidedAt: string;
};

function entryOf(disposition: Disposition): CarryEntry {
  return {
    decisionKey: disposition.decisionKey,
    advisoryId: disposition.advisoryId,
    packageIdentity: disposition.packageIdentity,
    packageWithoutVersion: disposition.packageWithoutVersion,
    releaseId: disposition.releaseId,
    dispositionId: disposition.id,
    status: disposition.status,
    justification: disposition.justification,
    response: disposition.response,
    detail: disposition.detail,
    actionStatement: disposition.actionStatement,
    impactStatement: disposition.impactStatement,
    assignedTo: disposition.assignedTo,
    expiresAt: disposition.expiresAt,
    decidedBy: disposition.carriedFrom?.decidedBy ?? disposition.updatedBy,
    decidedAt: disposition.carriedFrom?.decidedAt ?? disposition.updatedAt,
  };
}

/** Latest writer wins: the index holds the product's most recent decision on the pair. */
export function carryIndexPut(disposition: Disposition): TransactItem {
  return tx.put(carryIndexItem(disposition));
}

export function carryIndexItem(disposition: Disposition): Item {
  return {
    ...keys.decisionCarry(disposition.teamId, disposition.productId, disposition.decisionKey),
    entity: 'DecisionCarry',
    entry: entryOf(disposition),
  };
}

export function carryIndexDelete(disposition: Pick<Disposition, 'teamId' | 'productId' | 'decisionKey'>): TransactItem {
  return tx.delete(keys.decisionCarry(disposition.teamId, disposition.productId, disposition.decisionKey));
}

export const carryIndex = {
  async listByProduct(teamId: string, productId: string): Promise<CarryEntry[]> {
    const { pk, skPrefix } = keys.decisionCarryPrefix(teamId, productId);
    return (await queryAll({ pk, skPrefix, projection: ['entry'] })).map((item) => item.entry as CarryEntry);
  },
};
