/** SBOM items and files: conversion, resolution by id, and the stored inventory. */
import { gunzipSync, gzipSync } from 'node:zlib';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3 } from '../aws-clients';
import { config } from '../config';
import { keys } from '../data/keys';
import { queryAll, type Item } from '../data/table-client';
import type { Product } from '../products/product-store';
import { resolveUnderRelease, type Release } from '../releases/release-store';
import { sbomComponentSchema, type SbomComponent, type SbomFormat } from '../sbom/model';

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
  specVersion: string;
  toolName: string | null;
  subject: { name: string; version?: string } | null;
  componentCount: number;
  fileHash: string;
  fileName: string | null;
  fileSize: number;
  objectKey: string;
  inventoryKey: string;
  createdAt: string;
  scan: ScanSummary;
}

export function toSbom(item: Item): Sbom {
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    productId: String(item.productId),
    releaseId: String(item.releaseId),
    format: item.format as SbomFormat,
    specVersion: String(item.specVersion),
    toolName: (item.toolName as string | undefined) ?? null,
    subject: (item.subject as Sbom['subject'] | undefined) ?? null,
    componentCount: Number(item.componentCount),
    fileHash: String(item.fileHash),
    fileName: (item.fileName as string | undefined) ?? null,
    fileSize: Number(item.fileSize),
    objectKey: String(item.objectKey),
    inventoryKey: String(item.inventoryKey),
    createdAt: String(item.createdAt),
    scan: (item.scan as ScanSummary | undefined) ?? { status: 'queued', scannedAt: null, findingCount: 0, matchedComponentCount: 0, unmatchedComponentCount: 0 },
  };
}

export function sbomItem(sbom: Sbom): Item {
  const item: Item = { ...keys.sbom(sbom.teamId, sbom.productId, sbom.releaseId, sbom.id), entity: 'Sbom' };
  for (const [field, value] of Object.entries(sbom)) if (value !== null) item[field] = value;
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
    },
  };
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

  async listByRelease(teamId: string, productId: string, releaseId: string): Promise<Sbom[]> {
    const { pk, skPrefix } = keys.sbomPrefix(teamId, productId, releaseId);
    return (await queryAll({ pk, skPrefix })).map(toSbom).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },

  async putInventory(objectKey: string, components: SbomComponent[]): Promise<void> {
    await s3().send(new PutObjectCommand({
      Bucket: config().sbomBucket, Key: objectKey, Body: gzipSync(JSON.stringify(components)), ContentType: 'application/json', ContentEncoding: 'gzip',
    }));
  },

  async readInventory(sbom: Sbom): Promise<SbomComponent[]> {
    const object = await s3().send(new GetObjectCommand({ Bucket: config().sbomBucket, Key: sbom.inventoryKey }));
    const bytes = Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
    return sbomComponentSchema.array().parse(JSON.parse(gunzipSync(bytes).toString('utf8')));
  },

  async readOriginal(sbom: Sbom): Promise<Buffer> {
    const object = await s3().send(new GetObjectCommand({ Bucket: config().sbomBucket, Key: sbom.objectKey }));
    return Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
  },
};
