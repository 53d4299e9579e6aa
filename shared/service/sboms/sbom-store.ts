/**
 * SBOM items and files: conversion, resolution by id, the content claim and the stored
 * inventory. The recovery records an SBOM has are in sbom-recovery.ts.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { getObject, putObject } from '../aws-s3';
import { config } from '../config';
import { keys, type Key } from '../data/keys';
import { getItem, onIndex, queryAll, tx, type Item, type TransactItem } from '../data/table-client';
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
import type { ScanRequest } from './sbom-recovery';

export interface ScanSummary {
  status: 'queued' | 'running' | 'completed' | 'failed';
  scannedAt: string | null;
  findingCount: number;
  matchedComponentCount: number;
  /** Components that could not be mapped to any ecosystem (no usable purl, CPE or name evidence). */
  unmatchedComponentCount: number;
  error?: string;
  /** When the findings were last brought up to date with the corpus: by this scan or a re-evaluation since. */
  lastEvaluatedAt?: string;
  /** The corpus change the findings reflect (shared/service/watch/corpus-changes.ts); null before any change was recorded. */
  corpusVersion?: string | null;
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
  /** When the scan put the SBOM's components into the package index (shared/service/watch/watch-index.ts); absent before. */
  watchIndexedAt?: string;
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
    ...(typeof item.watchIndexedAt === 'string' ? { watchIndexedAt: item.watchIndexedAt } : {}),
  };
}

/**
 * The SBOM item. With `pending`, the item also sits in the pending-scan index
 * until a scan completes or fails; an item written without it (the scan's
 * result) leaves the index.
 */
export function sbomItem(sbom: Sbom, pending?: ScanRequest): Item {
  const item: Item = {
    ...keys.sbom(sbom.teamId, sbom.productId, sbom.releaseId, sbom.id),
    ...keys.sbomOfTeam(sbom.teamId, sbom.productId, sbom.releaseId, sbom.id),
    entity: 'Sbom',
  };
  for (const [field, value] of Object.entries(sbom)) if (value !== null) item[field] = value;
  if (pending) Object.assign(item, keys.pendingScanIndex(pending.requestedAt, sbom.id), { scanRequest: pending });
  return item;
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
      last_evaluated_at: sbom.scan.lastEvaluatedAt ?? sbom.scan.scannedAt,
      corpus_version: sbom.scan.corpusVersion ?? null,
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
   * Every SBOM of the team, from the team's SBOM index (gsi2: eventually consistent, as the release index the
   * dashboard reads beside it). SBOMs stored before the index are in it once `table migrate` ran.
   */
  async listAllOfTeam(teamId: string): Promise<Sbom[]> {
    return (await queryAll(onIndex('gsi2', keys.sbomsOfTeamPartition(teamId).gsi2pk))).map(toSbom);
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
    return sbomStore.readInventoryAt(sbom.inventoryKey);
  },

  async readInventoryAt(inventoryKey: string): Promise<SbomComponent[]> {
    const object = await getObject({ Bucket: config().sbomBucket, Key: inventoryKey });
    const bytes = Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
    return sbomComponentSchema.array().parse(JSON.parse(gunzipSync(bytes).toString('utf8')));
  },

  async readOriginal(sbom: Sbom): Promise<Buffer> {
    const object = await getObject({ Bucket: config().sbomBucket, Key: sbom.objectKey });
    return Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
  },
};
