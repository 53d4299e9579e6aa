/**
 * The two recovery records an SBOM has (see docs/architecture/background-work.md, "Recovery after a crash"): the
 * pending-scan index on the SBOM item, which a scan's start and end move, and the staging item
 * written before an upload's S3 objects (or by a delete, for the files it leaves); and the
 * pre-signed upload sessions past their discard time.
 */
import { keys, type Key } from '../data/keys';
import { tableDefinition } from '../data/table-definition';
import {
  queryAll,
  transactWrite,
  TransactionFailedError,
  tx,
  type Item,
  type TransactItem,
} from '../data/table-client';
import type { Actor } from '../identity/actor';
import type { Sbom } from './sbom-store';

/** Who asked for the scan that is still owed, and how often recovery has re-dispatched it. */
export interface ScanRequest {
  actor: Actor;
  requestedAt: string;
  recoveries: number;
}

/** An SBOM whose scan is owed, as the pending-scan index lists it. */
export interface PendingScan {
  teamId: string;
  sbomId: string;
  key: Key;
  indexKey: string;
  request: ScanRequest;
}

const GSI1 = tableDefinition.globalIndexes[0];
/** Staging records outlive any sweep interval by far; TTL only drops records a broken sweep left behind. */
const STAGING_TTL_SECONDS = 7 * 24 * 3600;

/**
 * What an SBOM leaves outside its item: the objects an upload writes before the transaction that
 * creates the SBOM item, or, written by a delete's transaction, the files and findings of the SBOM
 * it removed. Once the SBOM item is gone the sweep may remove all of it.
 */
export interface SbomStaging {
  teamId: string;
  sbomId: string;
  sbomKey: Key;
  objectKeys: string[];
  stagedAt: string;
  /** The key range of the SBOM's findings (a delete's record only). */
  findings?: { pk: string; skPrefix: string };
  /** The SBOM's inventory (a delete's record only): its package-index entries are found from it. */
  inventoryKey?: string;
}

function stagingItem(staging: SbomStaging): Item {
  return {
    ...keys.sbomStaging(staging.teamId, staging.sbomId),
    ...keys.sbomStagingIndex(staging.stagedAt, staging.sbomId),
    entity: 'SbomStaging',
    ...staging,
    expiresAtEpoch: Math.floor(Date.parse(staging.stagedAt) / 1000) + STAGING_TTL_SECONDS,
  };
}

async function dueIndexEntries(partition: string, dueBefore: string): Promise<Item[]> {
  // Sort keys are `<ISO time>#<id>`: everything before the cutoff's own prefix is due.
  return queryAll({
    pk: partition,
    indexName: GSI1.indexName,
    pkAttribute: GSI1.partitionKey,
    skAttribute: GSI1.sortKey,
    skBetween: ['', dueBefore],
  });
}

export const sbomRecovery = {
  /**
   * A scan starts (or restarts): status `running`, and the item (re)enters the
   * pending-scan index so a scan cut off by a crash is found and re-run.
   */
  async markScanRunning(sbom: Sbom, actor: Actor, at: string): Promise<void> {
    const index = keys.pendingScanIndex(at, sbom.id);
    await transactWrite([
      tx.update(
        keys.sbom(sbom.teamId, sbom.productId, sbom.releaseId, sbom.id),
        'SET #scan.#status = :running, #gpk = :gpk, #gsk = :gsk, #request = if_not_exists(#request, :request)',
        {
          '#scan': 'scan',
          '#status': 'status',
          '#gpk': GSI1.partitionKey,
          '#gsk': GSI1.sortKey,
          '#request': 'scanRequest',
        },
        {
          ':running': 'running',
          ':gpk': index.gsi1pk,
          ':gsk': index.gsi1sk,
          ':request': { actor, requestedAt: at, recoveries: 0 } satisfies ScanRequest,
        },
        'attribute_exists(pk)',
      ),
    ]);
  },

  /** The scan gave up: the SBOM says so (keeping the last completed scan's counts) and leaves the pending index. */
  async markScanFailed(key: Key, message: string): Promise<void> {
    try {
      await transactWrite([
        tx.update(
          key,
          'SET #scan.#status = :failed, #scan.#error = :error REMOVE #gpk, #gsk, #request',
          {
            '#scan': 'scan',
            '#status': 'status',
            '#error': 'error',
            '#gpk': GSI1.partitionKey,
            '#gsk': GSI1.sortKey,
            '#request': 'scanRequest',
          },
          { ':failed': 'failed', ':error': message },
          'attribute_exists(pk)',
        ),
      ]);
    } catch (error) {
      if (!(error instanceof TransactionFailedError)) throw error; // the SBOM was deleted meanwhile: nothing to record
    }
  },

  /** SBOMs whose scan was owed before `dueBefore` (ISO time), oldest first. */
  async pendingScans(dueBefore: string): Promise<PendingScan[]> {
    return (await dueIndexEntries(keys.pendingScanPartition().gsi1pk, dueBefore)).map((item) => ({
      teamId: String(item.teamId),
      sbomId: String(item.id),
      key: { pk: String(item.pk), sk: String(item.sk) },
      indexKey: String(item[GSI1.sortKey]),
      request: item.scanRequest as ScanRequest,
    }));
  },

  /**
   * Claims a pending scan for one more attempt: moves it to the back of the
   * index and counts the recovery. False when someone else claimed or finished it.
   */
  async claimPendingScan(pending: PendingScan, at: string): Promise<boolean> {
    const index = keys.pendingScanIndex(at, pending.sbomId);
    try {
      await transactWrite([
        tx.update(
          pending.key,
          'SET #gsk = :gsk, #scan.#status = :queued, #request.#recoveries = #request.#recoveries + :one',
          {
            '#gsk': GSI1.sortKey,
            '#scan': 'scan',
            '#status': 'status',
            '#request': 'scanRequest',
            '#recoveries': 'recoveries',
          },
          { ':gsk': index.gsi1sk, ':old': pending.indexKey, ':queued': 'queued', ':one': 1 },
          '#gsk = :old',
        ),
      ]);
      return true;
    } catch (error) {
      if (error instanceof TransactionFailedError) return false;
      throw error;
    }
  },

  /** Recorded before an upload writes its S3 objects; `stagingDone` removes it with the SBOM item's creation. */
  async stage(staging: SbomStaging): Promise<void> {
    await transactWrite([tx.create(stagingItem(staging))]);
  },

  /** A delete's leftovers record, written in the transaction that removes the SBOM item. */
  leftoversPut(staging: SbomStaging): TransactItem {
    return tx.put(stagingItem(staging));
  },

  stagingDone(teamId: string, sbomId: string): TransactItem {
    return tx.delete(keys.sbomStaging(teamId, sbomId));
  },

  async unstage(teamId: string, sbomId: string): Promise<void> {
    await transactWrite([tx.delete(keys.sbomStaging(teamId, sbomId))]);
  },

  /** Staging records older than `dueBefore`: uploads that never reached (or lost) their transaction. */
  async staleStaging(dueBefore: string): Promise<SbomStaging[]> {
    return (await dueIndexEntries(keys.sbomStagingPartition().gsi1pk, dueBefore)).map((item) => ({
      teamId: String(item.teamId),
      sbomId: String(item.sbomId),
      sbomKey: item.sbomKey as Key,
      objectKeys: item.objectKeys as string[],
      stagedAt: String(item.stagedAt),
      ...(item.findings ? { findings: item.findings as SbomStaging['findings'] } : {}),
    }));
  },

  /** Pre-signed upload sessions due for discarding before `dueBefore` (their URL expired long ago). */
  async expiredUploadSessions(dueBefore: string): Promise<{ teamId: string; uploadId: string; objectKey: string }[]> {
    return (await dueIndexEntries(keys.sbomUploadPartition().gsi1pk, dueBefore)).map((item) => ({
      teamId: String(item.teamId),
      uploadId: String(item.id),
      objectKey: String(item.objectKey),
    }));
  },

  async discardUploadSession(teamId: string, uploadId: string): Promise<void> {
    await transactWrite([tx.delete(keys.sbomUpload(teamId, uploadId))]);
  },
};
