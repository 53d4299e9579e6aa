/**
 * Duplicate uploads answer with the SBOM already stored: the same bytes twice, racing uploads (direct and
 * pre-signed), and a retry after the release was locked. Through HTTP against the local server.
 */
import { describe, expect, it } from '@jest/globals';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { toAuditEntry } from '../../shared/service/audit/audit-log';
import { createTeamWithKey } from '../support/factories';
import {
  auditOf,
  distinctSbom,
  lockRelease,
  presignedUpload,
  productWithRelease,
  scanSettled,
  type Data,
  type SbomView,
} from '../support/release-navigation';
import { seedReleaseWithFindings } from '../support/seed';

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
