/**
 * Issue 13 items 3 and 6: duplicate uploads answer with the SBOM already stored; a release's SBOMs
 * are listed; releases and SBOMs are deleted with what hangs off them; releases are found by
 * version; 409s for a taken slug or version name the holder; `GET /api/me`; unknown query
 * parameters are 422. All through HTTP against the local server and its embedded engines.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { s3Client } from '../../shared/service/aws-s3';
import { config } from '../../shared/service/config';
import { toAuditEntry } from '../../shared/service/audit/audit-log';
import { keys } from '../../shared/service/data/keys';
import { getItem, queryAll } from '../../shared/service/data/table-client';
import { routes, type RouteDefinition } from '../../shared/service/http/routes';
import { createTeamWithKey, addKey, uniqueSlug } from '../support/factories';
import { request, type HttpResponse } from '../support/http-client';
import { cycloneDxSbom, seedReleaseWithFindings } from '../support/seed';

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;
type Data<T> = { data: T };
interface SbomView {
  id: string;
  releaseId: string;
  file_hash: string;
  created_at: string;
  scan: { status: string; scanned_at: string | null };
}

function distinctSbom(): string {
  const name = `dup-${randomUUID().slice(0, 8)}`;
  return cycloneDxSbom([{ name, version: '1.0.0', purl: `pkg:npm/${name}@1.0.0` }]);
}

async function productWithRelease(team: Team, version = '1.0.0') {
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
async function scanSettled(team: Team, sbomId: string): Promise<SbomView> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const sbom = (await team.api.get<Data<SbomView>>(`/api/sboms/${sbomId}`)).body.data;
    if (['completed', 'failed'].includes(sbom.scan.status)) return sbom;
    if (Date.now() > deadline) throw new Error(`scan of ${sbomId} did not settle`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function auditOf(teamId: string, entityId: string) {
  return (await readAuditLog(teamId)).map(toAuditEntry).filter((entry) => entry.entityId === entityId);
}

async function presignedUpload(
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

async function lockRelease(team: Team, releaseId: string): Promise<string> {
  const vexId = (
    await team.api.post<Data<{ id: string }>>(`/api/releases/${releaseId}/vex`, { format: 'openvex', author: 'PSIRT' })
  ).body.data.id;
  expect((await team.api.post(`/api/vex/${vexId}/submit`, { comment: 'lock it' })).status).toBe(200);
  return vexId;
}

/** Items left under a release in the product's item collection. */
async function releaseItems(teamId: string, productId: string, releaseId: string) {
  const { pk, skPrefix } = keys.releaseChildrenPrefix(teamId, productId, releaseId);
  return queryAll({ pk, skPrefix });
}

describe('duplicate uploads', () => {
  it('answers a second upload of the same bytes with 200 and the SBOM already stored, without a second scan', async () => {
    const team = await createTeamWithKey();
    const { release } = await productWithRelease(team);
    const content = distinctSbom();

    const first = await team.api.post<Data<SbomView>>('/api/sboms/upload', {
      releaseId: release.id,
      content,
      fileName: 'bom.json',
    });
    expect(first.status).toBe(201);
    const scanned = await scanSettled(team, first.body.data.id);
    const again = await team.api.post<Data<SbomView>>('/api/sboms/upload', {
      releaseId: release.id,
      content,
      fileName: 'other-name.json',
    });

    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.body.data.scan.scanned_at).toBe(scanned.scan.scanned_at);
    const listed = await team.api.get<{ data: SbomView[]; meta: { total: number } }>(
      `/api/releases/${release.id}/sboms`,
    );
    expect(listed.body.meta.total).toBe(1);
    const entries = await auditOf(team.teamId, first.body.data.id);
    expect(entries.filter((entry) => entry.action === 'upload')).toHaveLength(1);
    expect(entries.filter((entry) => entry.action === 'scan')).toHaveLength(1);
  });

  it('stores different bytes, and the same bytes in another release, as new SBOMs', async () => {
    const team = await createTeamWithKey();
    const { product, release } = await productWithRelease(team);
    const other = (
      await team.api.post<Data<{ id: string }>>(`/api/products/${product.id}/releases`, { version: '2.0.0' })
    ).body.data;
    const content = distinctSbom();

    const first = await team.api.post<Data<SbomView>>('/api/sboms/upload', { releaseId: release.id, content });
    const changed = await team.api.post<Data<SbomView>>('/api/sboms/upload', {
      releaseId: release.id,
      content: `${content}\n`,
    });
    const elsewhere = await team.api.post<Data<SbomView>>('/api/sboms/upload', { releaseId: other.id, content });

    expect([first.status, changed.status, elsewhere.status]).toEqual([201, 201, 201]);
    expect(new Set([first.body.data.id, changed.body.data.id, elsewhere.body.data.id]).size).toBe(3);
  });

  it('keeps one SBOM when identical uploads race', async () => {
    const team = await createTeamWithKey();
    const { release } = await productWithRelease(team);
    const content = distinctSbom();

    const responses = await Promise.all(
      Array.from({ length: 4 }, () =>
        team.api.post<Data<SbomView>>('/api/sboms/upload', { releaseId: release.id, content }),
      ),
    );

    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(responses.map((response) => response.body.data.id)).size).toBe(1);
    const listed = await team.api.get<{ data: SbomView[]; meta: { total: number } }>(
      `/api/releases/${release.id}/sboms`,
    );
    expect(listed.body.meta.total).toBe(1);
    const uploads = (await readAuditLog(team.teamId))
      .map(toAuditEntry)
      .filter((entry) => entry.entityType === 'sbom' && entry.action === 'upload');
    expect(uploads).toHaveLength(1);
  });

  it('answers a pre-signed upload of bytes the release holds with 200 and that SBOM, and completes the session', async () => {
    const team = await createTeamWithKey();
    const { release } = await productWithRelease(team);
    const content = distinctSbom();
    const direct = await team.api.post<Data<SbomView>>('/api/sboms/upload', { releaseId: release.id, content });

    const upload = await presignedUpload(team, release.id, content);
    const completed = await upload.complete();
    const completedAgain = await upload.complete();

    expect(completed.status).toBe(200);
    expect(completed.body.data.id).toBe(direct.body.data.id);
    expect(completedAgain.status).toBe(409);
    expect((completedAgain.body as unknown as { error: { code: string } }).error.code).toBe('upload_completed');
    expect((await team.api.get<{ meta: { total: number } }>(`/api/releases/${release.id}/sboms`)).body.meta.total).toBe(
      1,
    );
  });

  it('keeps one SBOM when a direct and a pre-signed upload of the same bytes race', async () => {
    const team = await createTeamWithKey();
    const { release } = await productWithRelease(team);
    const content = distinctSbom();
    const upload = await presignedUpload(team, release.id, content);

    const [direct, completed] = await Promise.all([
      team.api.post<Data<SbomView>>('/api/sboms/upload', { releaseId: release.id, content }),
      upload.complete(),
    ]);

    expect([direct.status, completed.status].sort()).toEqual([200, 201]);
    expect(completed.body.data.id).toBe(direct.body.data.id);
    expect((await team.api.get<{ meta: { total: number } }>(`/api/releases/${release.id}/sboms`)).body.meta.total).toBe(
      1,
    );
  });

  it('answers a retry with the stored SBOM even after the release was locked', async () => {
    const team = await createTeamWithKey();
    const { release, sbom } = await seedReleaseWithFindings(team.api, team.teamId, 1);
    const content = (await team.api.get(`/api/sboms/${sbom.id}/download`)).text;
    await lockRelease(team, release.id);

    const retry = await team.api.post<Data<SbomView>>('/api/sboms/upload', {
      releaseId: release.id,
      content,
      fileName: 'bom.json',
    });
    const fresh = await team.api.post('/api/sboms/upload', { releaseId: release.id, content: distinctSbom() });

    expect(retry.status).toBe(200);
    expect(retry.body.data.id).toBe(sbom.id);
    expect(fresh.status).toBe(409);
  });
});

describe('GET /api/releases/{releaseId}/sboms', () => {
  it("pages a release's SBOMs newest first with the products list's meta", async () => {
    const team = await createTeamWithKey();
    const { release } = await productWithRelease(team);
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1)
      ids.push(
        (await team.api.post<Data<SbomView>>('/api/sboms/upload', { releaseId: release.id, content: distinctSbom() }))
          .body.data.id,
      );

    const first = await team.api.get<{ data: SbomView[]; meta: Record<string, unknown> }>(
      `/api/releases/${release.id}/sboms?perPage=2`,
    );
    const second = await team.api.get<{ data: SbomView[]; meta: Record<string, unknown> }>(
      `/api/releases/${release.id}/sboms?page=2&perPage=2`,
    );

    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({
      page: 1,
      perPage: 2,
      total: 3,
      totalPages: 2,
      hasNextPage: true,
      hasPrevPage: false,
    });
    expect([...first.body.data, ...second.body.data].map((sbom) => sbom.id)).toEqual([...ids].reverse());
    expect(second.body.data[0]).toMatchObject({
      releaseId: release.id,
      scan: expect.objectContaining({ status: expect.any(String) }),
    });
  });

  it("answers 404 for another team's release and 403 without sboms:read", async () => {
    const owner = await createTeamWithKey();
    const { release } = await productWithRelease(owner);
    const stranger = await createTeamWithKey();
    const limited = await addKey(owner.teamId, owner.memberId, ['releases:read']);

    expect((await stranger.api.get(`/api/releases/${release.id}/sboms`)).status).toBe(404);
    expect((await limited.api.get(`/api/releases/${release.id}/sboms`)).status).toBe(403);
  });
});

describe('DELETE /api/sboms/{id}', () => {
  it("removes the SBOM, its file and findings, keeps the release's dispositions, audits, and frees its bytes for a new upload", async () => {
    const team = await createTeamWithKey();
    const { product, release, sbom, findings } = await seedReleaseWithFindings(team.api, team.teamId, 2);
    const content = (await team.api.get(`/api/sboms/${sbom.id}/download`)).text;
    const disposition = (
      await team.api.post<Data<{ id: string }>>('/api/dispositions', {
        vulnerabilityId: findings[0]!.id,
        status: 'not_affected',
        justification: 'vulnerable_code_not_present',
      })
    ).body.data;

    const deleted = await team.api.delete(`/api/sboms/${sbom.id}`);

    expect(deleted.status).toBe(204);
    expect((await team.api.get(`/api/sboms/${sbom.id}`)).status).toBe(404);
    expect((await team.api.get(`/api/sboms/${sbom.id}/download`)).status).toBe(404);
    expect((await team.api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).status).toBe(404);
    expect((await team.api.get<{ meta: { total: number } }>(`/api/releases/${release.id}/sboms`)).body.meta.total).toBe(
      0,
    );
    const left = await releaseItems(team.teamId, product.id, release.id);
    expect(left.filter((item) => String(item.sk).includes(sbom.id))).toEqual([]);
    expect(await getItem(keys.sbomStaging(team.teamId, sbom.id))).toBeUndefined();
    // The file, its inventory and its findings digest are all gone (they share the SBOM's object key as prefix).
    const files = await (
      await s3Client()
    ).send(
      new ListObjectsV2Command({
        Bucket: config().sbomBucket,
        Prefix: keys.sbomObject(team.teamId, product.id, release.id, sbom.id),
      }),
    );
    expect((files.Contents ?? []).map((object) => object.Key)).toEqual([]);
    expect((await team.api.get(`/api/dispositions/${disposition.id}`)).status).toBe(200);
    expect((await auditOf(team.teamId, sbom.id)).map((entry) => entry.action)).toContain('delete');
    expect((await team.api.delete(`/api/sboms/${sbom.id}`)).status).toBe(404);
    const reupload = await team.api.post<Data<SbomView>>('/api/sboms/upload', { releaseId: release.id, content });
    expect(reupload.status).toBe(201);
    expect(reupload.body.data.id).not.toBe(sbom.id);
  });

  it('answers 409 while the release is locked and deletes nothing', async () => {
    const team = await createTeamWithKey();
    const { release, sbom } = await seedReleaseWithFindings(team.api, team.teamId, 1);
    const vexId = await lockRelease(team, release.id);

    const refused = await team.api.delete<{ error: { code: string; details: { path: string; message: string }[] } }>(
      `/api/sboms/${sbom.id}`,
    );

    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('release_locked');
    expect(refused.body.error.details[0]).toMatchObject({ path: 'locked_by_vex_id', message: vexId });
    expect((await team.api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).status).toBe(200);
  });

  it("answers 404 for another team's SBOM", async () => {
    const owner = await createTeamWithKey();
    const { sbom } = await seedReleaseWithFindings(owner.api, owner.teamId, 1);
    const stranger = await createTeamWithKey();

    expect((await stranger.api.delete(`/api/sboms/${sbom.id}`)).status).toBe(404);
    expect((await owner.api.get(`/api/sboms/${sbom.id}`)).status).toBe(200);
  });
});

describe('DELETE /api/releases/{releaseId}', () => {
  it('removes the release with its SBOMs, findings, dispositions and VEX documents, audits, and frees its version', async () => {
    const team = await createTeamWithKey();
    const { product, release, sbom, findings } = await seedReleaseWithFindings(team.api, team.teamId, 2);
    const disposition = (
      await team.api.post<Data<{ id: string }>>('/api/dispositions', {
        vulnerabilityId: findings[0]!.id,
        status: 'not_affected',
        justification: 'vulnerable_code_not_present',
      })
    ).body.data;
    const vexId = (
      await team.api.post<Data<{ id: string }>>(`/api/releases/${release.id}/vex`, {
        format: 'openvex',
        author: 'PSIRT',
      })
    ).body.data.id;

    const deleted = await team.api.delete(`/api/releases/${release.id}`);

    expect(deleted.status).toBe(204);
    for (const path of [
      `/api/releases/${release.id}`,
      `/api/sboms/${sbom.id}`,
      `/api/dispositions/${disposition.id}`,
      `/api/vex/${vexId}`,
      `/api/releases/${release.id}/sboms`,
    ]) {
      expect([path, (await team.api.get(path)).status]).toEqual([path, 404]);
    }
    expect(await releaseItems(team.teamId, product.id, release.id)).toEqual([]);
    expect((await team.api.get<{ data: unknown[] }>(`/api/products/${product.id}/releases`)).body.data).toEqual([]);
    expect((await auditOf(team.teamId, release.id)).map((entry) => entry.action)).toContain('delete');
    expect((await team.api.delete(`/api/releases/${release.id}`)).status).toBe(404);
    expect((await team.api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).status).toBe(201);
  });

  it('answers 409 while the release is locked and deletes nothing', async () => {
    const team = await createTeamWithKey();
    const { release, sbom } = await seedReleaseWithFindings(team.api, team.teamId, 1);
    await lockRelease(team, release.id);

    const refused = await team.api.delete<{ error: { code: string } }>(`/api/releases/${release.id}`);

    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('release_locked');
    expect((await team.api.get(`/api/releases/${release.id}`)).status).toBe(200);
    expect((await team.api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).status).toBe(200);
  });

  it("answers 404 for another team's release and 403 without releases:write", async () => {
    const owner = await createTeamWithKey();
    const { release } = await productWithRelease(owner);
    const stranger = await createTeamWithKey();
    const limited = await addKey(owner.teamId, owner.memberId, ['releases:read']);

    expect((await stranger.api.delete(`/api/releases/${release.id}`)).status).toBe(404);
    expect((await limited.api.delete(`/api/releases/${release.id}`)).status).toBe(403);
    expect((await owner.api.get(`/api/releases/${release.id}`)).status).toBe(200);
  });
});

describe('find-or-create lookups', () => {
  it('finds a release by its exact version', async () => {
    const team = await createTeamWithKey();
    const { product, release } = await productWithRelease(team, '1.0.0');
    await team.api.post(`/api/products/${product.id}/releases`, { version: '1.0.0-rc1' });

    const found = await team.api.get<{ data: { id: string }[]; meta: { total: number } }>(
      `/api/products/${product.id}/releases?version=1.0.0`,
    );
    const prefix = await team.api.get<{ data: unknown[]; meta: { total: number } }>(
      `/api/products/${product.id}/releases?version=1.0`,
    );

    expect(found.status).toBe(200);
    expect(found.body.data.map((entry) => entry.id)).toEqual([release.id]);
    expect(found.body.meta.total).toBe(1);
    expect(prefix.body).toMatchObject({ data: [], meta: { total: 0, totalPages: 1 } });
  });

  it('names the existing release in the 409 for a taken version, on create and on update', async () => {
    const team = await createTeamWithKey();
    const { product, release } = await productWithRelease(team, '1.0.0');
    const other = (
      await team.api.post<Data<{ id: string }>>(`/api/products/${product.id}/releases`, { version: '2.0.0' })
    ).body.data;

    const created = await team.api.post<{
      error: { code: string; message: string; details: { path: string; message: string }[] };
    }>(`/api/products/${product.id}/releases`, { version: '1.0.0' });
    const updated = await team.api.put<{ error: { code: string; details: { path: string; message: string }[] } }>(
      `/api/releases/${other.id}`,
      { version: '1.0.0' },
    );

    expect(created.status).toBe(409);
    expect(created.body.error.code).toBe('version_taken');
    expect(created.body.error.details).toEqual([{ path: 'existing_id', message: release.id }]);
    expect(created.body.error.message).toContain(release.id);
    expect(updated.status).toBe(409);
    expect(updated.body.error.details).toEqual([{ path: 'existing_id', message: release.id }]);
  });

  it('names the existing product in the 409 for a taken slug', async () => {
    const team = await createTeamWithKey();
    const slug = uniqueSlug('taken');
    const product = (await team.api.post<Data<{ id: string }>>('/api/products', { name: 'First', slug })).body.data;

    const again = await team.api.post<{ error: { code: string; details: { path: string; message: string }[] } }>(
      '/api/products',
      { name: 'Second', slug },
    );

    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('slug_taken');
    expect(again.body.error.details).toEqual([{ path: 'existing_id', message: product.id }]);
  });
});

describe('GET /api/me', () => {
  it('describes the credential to a key holding any one scope', async () => {
    const owner = await createTeamWithKey(undefined, { expiresInDays: 30 });
    const narrow = await addKey(owner.teamId, owner.memberId, ['vex:read']);

    const me = await narrow.api.get<Data<Record<string, unknown>>>('/api/me');
    const full =
      await owner.api.get<Data<{ key: { id: string; expiresAt: string | null }; caller: { name: string } }>>('/api/me');

    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({
      team: { id: owner.teamId, name: expect.stringMatching(/^Team /) },
      caller: { id: expect.any(String), name: expect.stringMatching(/^api_key-/), type: 'service_account' },
      scopes: ['vex:read'],
      key: { id: narrow.keyId, name: expect.any(String), expiresAt: null },
    });
    expect(full.body.data.key.id).toBe(owner.keyId);
    expect(Date.parse(full.body.data.key.expiresAt ?? '')).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(full.body.data.caller.name).toBe(`api_${owner.keyName}`);
  });

  it('answers 401 without a valid key', async () => {
    expect((await request('GET', '/api/me')).status).toBe(401);
    expect((await request('GET', '/api/me', { key: `vxd_${'0'.repeat(64)}` })).status).toBe(401);
  });

  it('gives the accountId the audit export needs', async () => {
    const team = await createTeamWithKey();
    const me = await team.api.get<Data<{ team: { id: string } }>>('/api/me');

    const exported = await team.api.get(`/api/audit/export?accountId=${me.body.data.team.id}`);

    expect(exported.status).toBe(200);
  });
});

describe('unknown query parameters', () => {
  const ALL = routes as readonly RouteDefinition[];
  const UNKNOWN_ID = '7d0f3c1e-5b7a-4c41-9f57-2f4f0d8e9a10';

  it.each(
    ALL.filter((route) => route.method === 'GET').map((route) => [`${route.method} ${route.path}`, route] as const),
  )('%s answers 422 naming an unknown query parameter', async (_label, route) => {
    const team = await createTeamWithKey();
    const { release } = await productWithRelease(team);
    // Real ids where the route has them, so the answer cannot be an earlier 404.
    const sbom = route.path.includes('/sboms/{id}')
      ? (await team.api.post<Data<SbomView>>('/api/sboms/upload', { releaseId: release.id, content: distinctSbom() }))
          .body.data
      : undefined;
    const params: Record<string, string> = {
      releaseId: release.id,
      productId: (await team.api.get<Data<{ productId: string }>>(`/api/releases/${release.id}`)).body.data.productId,
      id: sbom?.id ?? UNKNOWN_ID,
      // Well-formed CSAF provider names (a malformed one is a 404 before the query is read).
      directory: 'unknown-directory',
      year: '2026',
      file: route.path.includes('/openpgp/') ? `${'A'.repeat(40)}.asc` : 'unknown.json',
    };
    const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => params[name] ?? UNKNOWN_ID);
    const known = route.path === '/api/audit/export' ? `accountId=${team.teamId}&` : '';

    const response = await request<{ error: { code: string; details: { path: string; message: string }[] } }>(
      'GET',
      `${path}?${known}severty=critical`,
      { key: team.key },
    );

    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('validation_failed');
    expect(response.body.error.details).toEqual([
      expect.objectContaining({ path: 'severty', message: expect.stringMatching(/^unknown query parameter/) }),
    ]);
  });

  it('still accepts every parameter a route documents', async () => {
    const team = await createTeamWithKey();
    const { product, release } = await productWithRelease(team);

    expect((await team.api.get('/api/products?page=1&perPage=5&search=nav')).status).toBe(200);
    expect((await team.api.get(`/api/products/${product.id}/releases?page=1&perPage=5&version=1.0.0`)).status).toBe(
      200,
    );
    expect((await team.api.get(`/api/releases/${release.id}/sboms?page=1&perPage=5`)).status).toBe(200);
    expect((await request('GET', '/api/disclosures?page=1&limit=5&format=openvex')).status).toBe(200);
    expect(
      (
        await team.api.get(
          `/api/audit/export?accountId=${team.teamId}&entityType=product&action=create&startDate=2026-01-01T00:00:00Z&endDate=2099-01-01T00:00:00Z`,
        )
      ).status,
    ).toBe(200);
  });
});
