/**
 * A release's SBOMs are listed, and releases and SBOMs are deleted with what hangs off them (files, findings,
 * dispositions, VEX documents), audited, and refused while the release is locked. Through HTTP.
 */
import { describe, expect, it } from '@jest/globals';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3Client } from '../../shared/service/aws-s3';
import { config } from '../../shared/service/config';
import { keys } from '../../shared/service/data/keys';
import { getItem } from '../../shared/service/data/table-client';
import { createTeamWithKey, addKey } from '../support/factories';
import {
  auditOf,
  distinctSbom,
  lockRelease,
  productWithRelease,
  releaseItems,
  type Data,
  type SbomView,
} from '../support/release-navigation';
import { seedReleaseWithFindings } from '../support/seed';

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
