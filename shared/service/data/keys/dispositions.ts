/**
 * Keys of triage decisions: dispositions and their history per release, the product's carry-over
 * index, and the intents and outcomes of disposition batches.
 */
import { productPk, releasePrefix, teamPk, type Key } from './partitions';

export const dispositionKeys = {
  /**
   * One decision per (release, package at version, advisory): `decisionKey` is
   * shared/service/dispositions/decision-identity.ts's key, so every SBOM of the release meets it.
   */
  disposition: (teamId: string, productId: string, releaseId: string, decisionKey: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}DISPOSITION#${decisionKey}`,
  }),
  dispositionPrefix: (teamId: string, productId: string, releaseId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: `${releasePrefix(releaseId)}DISPOSITION#`,
  }),
  dispositionHistory: (
    teamId: string,
    productId: string,
    releaseId: string,
    decisionKey: string,
    at: string,
    changeId: string,
  ): Key => ({
    pk: productPk(teamId, productId),
    sk: `${releasePrefix(releaseId)}DISPOSITION_HISTORY#${decisionKey}#${at}#${changeId}`,
  }),
  dispositionHistoryPrefix: (teamId: string, productId: string, releaseId: string, decisionKey: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: `${releasePrefix(releaseId)}DISPOSITION_HISTORY#${decisionKey}#`,
  }),
  /**
   * The product's carry-over index: the latest counted decision on each (package at version, advisory)
   * in any release of the product, written in the same transaction as the decision. A scan reads this
   * one prefix instead of every earlier release (docs/triage-continuity.md).
   */
  decisionCarry: (teamId: string, productId: string, decisionKey: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `CARRY#${decisionKey}`,
  }),
  decisionCarryPrefix: (teamId: string, productId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: 'CARRY#',
  }),

  /**
   * A disposition batch's intent while it is being applied or rolled back (team partition,
   * spans releases). Deleted when the batch ends, so the pending ones are one cheap prefix query.
   */
  dispositionBatchPending: (teamId: string, batchId: string): Key => ({
    pk: teamPk(teamId),
    sk: `DISPOSITION_BATCH_PENDING#${batchId}`,
  }),
  dispositionBatchPendingPrefix: (teamId: string) => ({ pk: teamPk(teamId), skPrefix: 'DISPOSITION_BATCH_PENDING#' }),
  /** Sparse gsi1 entry on a pending intent: the recovery sweep finds every team's pending batches without a Scan. */
  dispositionBatchPendingIndex: (teamId: string, batchId: string, createdAt: string) => ({
    gsi1pk: 'DISPOSITION_BATCH_PENDING',
    gsi1sk: `${createdAt}#${teamId}#${batchId}`,
  }),
  dispositionBatchPendingIndexPartition: () => ({
    pk: 'DISPOSITION_BATCH_PENDING',
    indexName: 'gsi1' as const,
    pkAttribute: 'gsi1pk',
    skAttribute: 'gsi1sk',
  }),
  /** How a finished batch ended (committed or failed), kept for a while after its intent is gone. */
  dispositionBatchOutcome: (teamId: string, batchId: string): Key => ({
    pk: teamPk(teamId),
    sk: `DISPOSITION_BATCH#${batchId}`,
  }),
} as const;
