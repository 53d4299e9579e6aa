/**
 * SBOM items and files: conversion, resolution by id, the stored inventory,
 * and the two recovery records an SBOM has (see docs/architecture.md,
 * "Recovery after a crash"): the pending-scan index on the SBOM item, and the
 * staging item written before an upload's S3 objects.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { getObject, putObject } from '../aws-s3';
import { config } from '../config';
import { keys, type Key } from '../data/keys';
import { tableDefinition } from '../data/table-definition';
import {
  getItem,
  queryAll,
  transactWrite,
  TransactionFailedError,
  tx,
  type Item,
  type TransactItem,
} from '../data/table-client';
import type { Actor } from '../identity/actor';
import type { Product } from '../products/product-store';
import { resolveUnderRelease, type Release } from '../releases/release-store';
import { sbomMediaType } from '../sbom/media-type';
import {
  sbomComponentSchema,
  type SbomComponent,
  type SbomEncoding,
  type SbomFormat,
  type SkippedEntries,
} from '../sbom/model';

export interface ScanSummary {
  status: 'queued' | 'running' | 'completed' | 'failed';
  scannedAt: string | null;
  findingCount: number;
  matchedComponentCount: number;
  /** Components that could not be mapped to any ecosystem (no usable purl, CPE or name evidence). */
  unmatchedComponentCount: number;
  error?: string;
}

export interface Sbom {
  id: string;
  teamId: string;
  productId: string;
  releaseId: string;
  format: SbomFormat;
  /** json / xml / tag-value: the original file's encoding, which decides its download Content-Type. */
  encoding: SbomEncoding;
  specVersion: string;
  toolName: string | null;
  subject: { name: string; version?: string } | null;
  /** CycloneDX serialNumber + version of the uploaded BOM (VEX BOM-Links name them); absent for SPDX and BOMs without a serial. */
  bomIdentity?: { serialNumber: string; version: number };
  componentCount: number;
  /** Entries of the file that are not in the inventory, by reason (docs/sbom-formats.md). */
  skipped: SkippedEntries[];
  fileHash: string;
  fileName: string | null;
  fileSize: number;
  objectKey: string;
  inventoryKey: string;
  createdAt: string;
  scan: ScanSummary;
  /**
   * Stamp of the findings digest the last completed scan wrote (shared/service/scans/findings-digest.ts),
   * set in the same transaction as that scan's result; absent before the first digest.
   */
  findingsDigest?: string;
}

export function toSbom(item: Item): Sbom {
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    productId: String(item.productId),
    releaseId: String(item.releaseId),
    format: item.format as SbomFormat,
    // SBOMs stored before XML and tag-value were accepted are JSON.
    encoding: (item.encoding as SbomEncoding | undefined) ?? 'json',
    specVersion: String(item.specVersion),
    toolName: (item.toolName as string | undefined) ?? null,
    subject: (item.subject as Sbom['subject'] | undefined) ?? null,
    ...(item.bomIdentity !== undefined && item.bomIdentity !== null
      ? { bomIdentity: item.bomIdentity as NonNullable<Sbom['bomIdentity']> }
      : {}),
    componentCount: Number(item.componentCount),
    skipped: (item.skipped as SkippedEntries[] | undefined) ?? [],
    fileHash: String(item.fileHash),
    fileName: (item.fileName as string | undefined) ?? null,
    fileSize: Number(item.fileSize),
    objectKey: String(item.objectKey),
    inventoryKey: String(item.inventoryKey),
    createdAt: String(item.createdAt),
    scan: (item.scan as ScanSummary | undefined) ?? {
      status: 'queued',
      scannedAt: null,
      findingCount: 0,
      matchedComponentCount: 0,
      unmatchedComponentCount: 0,
    },
    ...(typeof item.findingsDigest === 'string' ? { findingsDigest: item.findingsDigest } : {}),
  };
}

/** Who asked for the scan that is still owed, and how often recovery has re-dispatched it. */
export interface ScanRequest {
  actor: Actor;
  requestedAt: string;
  recoveries: number;
}

/**
 * The SBOM item. With `pending`, the item also sits in the pending-scan index
 * until a scan completes or fails; an item written without it (the scan's
 * result) leaves the index.
 */
export function sbomItem(sbom: Sbom, pending?: ScanRequest): Item {
  const item: Item = { ...keys.sbom(sbom.teamId, sbom.productId, sbom.releaseId, sbom.id), entity: 'Sbom' };
  for (const [field, value] of Object.entries(sbom)) if (value !== null) item[field] = value;
  if (pending) Object.assign(item, keys.pendingScanIndex(pending.requestedAt, sbom.id), { scanRequest: pending });
  return item;
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

export function toSbomView(sbom: Sbom) {
  return {
    id: sbom.id,
    releaseId: sbom.releaseId,
    format: sbom.format,
    spec_version: sbom.specVersion,
    tool_name: sbom.toolName,
    component_count: sbom.componentCount,
    skipped: sbom.skipped,
    media_type: sbomMediaType(sbom),
    file_hash: sbom.fileHash,
    file_name: sbom.fileName,
    file_size: sbom.fileSize,
    created_at: sbom.createdAt,
    scan: {
      status: sbom.scan.status,
      scanned_at: sbom.scan.scannedAt,
      finding_count: sbom.scan.findingCount,
      matched_component_count: sbom.scan.matchedComponentCount,
      unmatched_component_count: sbom.scan.unmatchedComponentCount,
      ...(sbom.scan.status === 'failed' && sbom.scan.error ? { error: sbom.scan.error } : {}),
    },
  };
}

/**
 * The claim that makes a release hold one SBOM per file content (docs/api.md "Duplicate uploads"),
 * created in the SBOM's own transaction.
 */
export function contentClaimCreate(sbom: Sbom): TransactItem {
  return tx.create({
    ...keys.sbomContentClaim(sbom.teamId, sbom.productId, sbom.releaseId, sbom.fileHash),
    entity: 'SbomContentClaim',
    sbomId: sbom.id,
    fileHash: sbom.fileHash,
  });
}

/** Removes the claim with its SBOM, only while it names that SBOM. */
export function contentClaimDelete(sbom: Sbom): TransactItem {
  return tx.delete(
    keys.sbomContentClaim(sbom.teamId, sbom.productId, sbom.releaseId, sbom.fileHash),
    'attribute_not_exists(pk) OR #sbomId = :sbomId',
    { '#sbomId': 'sbomId' },
    { ':sbomId': sbom.id },
  );
}

export interface ResolvedSbom {
  sbom: Sbom;
  release: Release;
  product: Product;
}

export const sbomStore = {
  async resolve(teamId: string, sbomId: string): Promise<ResolvedSbom | undefined> {
    const resolved = await resolveUnderRelease(teamId, sbomId, 'sbom');
    return resolved && { sbom: toSbom(resolved.item), release: resolved.release, product: resolved.product };
  },

  /**
   * The release's SBOM with these exact bytes, if any: through the content claim, or, for SBOMs
   * stored before claims existed, among the release's SBOMs.
   */
  async findByContent(
    teamId: string,
    productId: string,
    releaseId: string,
    fileHash: string,
  ): Promise<Sbom | undefined> {
    const claim = await getItem(keys.sbomContentClaim(teamId, productId, releaseId, fileHash));
    if (claim) {
      const item = await getItem(keys.sbom(teamId, productId, releaseId, String(claim.sbomId)));
      if (item) return toSbom(item);
    }
    return (await sbomStore.listByRelease(teamId, productId, releaseId)).find((sbom) => sbom.fileHash === fileHash);
  },

  async listByRelease(teamId: string, productId: string, releaseId: string): Promise<Sbom[]> {
    const { pk, skPrefix } = keys.sbomPrefix(teamId, productId, releaseId);
    return (await queryAll({ pk, skPrefix })).map(toSbom).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },

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

  async exists(key: Key): Promise<boolean> {
    return (await getItem(key)) !== undefined;
  },

  async putInventory(objectKey: string, components: SbomComponent[]): Promise<void> {
    await putObject({
      Bucket: config().sbomBucket,
      Key: objectKey,
      Body: gzipSync(JSON.stringify(components)),
      ContentType: 'application/json',
      ContentEncoding: 'gzip',
    });
  },

  async readInventory(sbom: Sbom): Promise<SbomComponent[]> {
    const object = await getObject({ Bucket: config().sbomBucket, Key: sbom.inventoryKey });
    const bytes = Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
    return sbomComponentSchema.array().parse(JSON.parse(gunzipSync(bytes).toString('utf8')));
  },

  async readOriginal(sbom: Sbom): Promise<Buffer> {
    const object = await getObject({ Bucket: config().sbomBucket, Key: sbom.objectKey });
    return Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
  },
};
