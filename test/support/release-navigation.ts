/** Products, releases, uploads and locks over HTTP, for the release-navigation tests (test/integration/release-navigation*.test.ts). */
import { randomUUID } from 'node:crypto';
import { expect } from '@jest/globals';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { toAuditEntry } from '../../shared/service/audit/audit-log';
import { keys } from '../../shared/service/data/keys';
import { queryAll } from '../../shared/service/data/table-client';
import { uniqueSlug, type createTeamWithKey } from './factories';
import type { HttpResponse } from './http-client';
import { cycloneDxSbom } from './seed';

export type Team = Awaited<ReturnType<typeof createTeamWithKey>>;
export type Data<T> = { data: T };
export interface SbomView {
  id: string;
  releaseId: string;
  file_hash: string;
  created_at: string;
  scan: { status: string; scanned_at: string | null };
}

/** A one-package SBOM whose bytes no other upload has. */
export function distinctSbom(): string {
  const name = `dup-${randomUUID().slice(0, 8)}`;
  return cycloneDxSbom([{ name, version: '1.0.0', purl: `pkg:npm/${name}@1.0.0` }]);
}

/** A new product of the team, with one release. */
export async function productWithRelease(team: Team, version = '1.0.0') {
  const product = (
    await team.api.post<Data<{ id: string; slug: string }>>('/api/products', {
      name: 'Navigable',
      slug: uniqueSlug('nav'),
    })
  ).body.data;
  const release = (
    await team.api.post<Data<{ id: string; version: string }>>(`/api/products/${product.id}/releases`, { version })
  ).body.data;
  return { product, release };
}

/** Every upload starts a background scan; tests that compare scan state wait for it. */
export async function scanSettled(team: Team, sbomId: string): Promise<SbomView> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const sbom = (await team.api.get<Data<SbomView>>(`/api/sboms/${sbomId}`)).body.data;
    if (['completed', 'failed'].includes(sbom.scan.status)) return sbom;
    if (Date.now() > deadline) throw new Error(`scan of ${sbomId} did not settle`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The team's audit entries about one entity. */
export async function auditOf(teamId: string, entityId: string) {
  return (await readAuditLog(teamId)).map(toAuditEntry).filter((entry) => entry.entityId === entityId);
}

/** A pre-signed upload session with `content` already PUT; `complete` finishes it. */
export async function presignedUpload(
  team: Team,
  releaseId: string,
  content: string,
): Promise<{ uploadId: string; complete: () => Promise<HttpResponse<Data<SbomView>>> }> {
  const session = (
    await team.api.post<Data<{ uploadId: string; uploadUrl: string }>>('/api/sboms/uploads', {
      releaseId,
      fileName: 'large.json',
      size: Buffer.byteLength(content),
    })
  ).body.data;
  const put = await fetch(session.uploadUrl, { method: 'PUT', body: content });
  expect(put.ok).toBe(true);
  return {
    uploadId: session.uploadId,
    complete: () => team.api.post<Data<SbomView>>(`/api/sboms/uploads/${session.uploadId}/complete`),
  };
}

/** Locks the release by submitting a VEX document of it; the document's id. */
export async function lockRelease(team: Team, releaseId: string): Promise<string> {
  const vexId = (
    await team.api.post<Data<{ id: string }>>(`/api/releases/${releaseId}/vex`, { format: 'openvex', author: 'PSIRT' })
  ).body.data.id;
  expect((await team.api.post(`/api/vex/${vexId}/submit`, { comment: 'lock it' })).status).toBe(200);
  return vexId;
}

/** Items left under a release in the product's item collection. */
export async function releaseItems(teamId: string, productId: string, releaseId: string) {
  const { pk, skPrefix } = keys.releaseChildrenPrefix(teamId, productId, releaseId);
  return queryAll({ pk, skPrefix });
}
