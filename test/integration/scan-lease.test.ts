import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { keys } from '../../shared/service/data/keys';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { Sboms } from '../../shared/service/sboms/sboms';
import { scanLease } from '../../shared/service/scans/scan-lease';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import type { client } from '../support/http-client';

type Api = ReturnType<typeof client>;

const SPRING = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../fixtures/sboms/cyclonedx-1.5_maven_cdxgen_vuln-spring.json'), 'utf8'),
) as { components: unknown[] };

/**
 * The Spring fixture (findings against the sample corpus) plus enough clean
 * npm packages that its scan is still running when the next request arrives.
 */
function largeVulnerableSbom(padding: number): string {
  const extra = Array.from({ length: padding }, (_, index) => ({
    type: 'library',
    'bom-ref': `pad-${index}`,
    name: `lease-pad-${index}`,
    version: '1.0.0',
    purl: `pkg:npm/lease-pad-${index}@1.0.0`,
  }));
  return JSON.stringify({ ...SPRING, components: [...SPRING.components, ...extra] });
}

async function release(api: Api) {
  const product = (await api.post('/api/products', { name: 'Lease', slug: uniqueSlug('lease') })).body.data;
  return (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data as {
    id: string;
    productId: string;
  };
}

function parseCsv(text: string): string[][] {
  return parse(text, { record_delimiter: '\r\n' });
}

/** The team's audit trail through the API: one `scan` entry per scan that stored its findings. */
async function scanAuditRows(api: Api, teamId: string, sbomId: string): Promise<string[][]> {
  const response = await api.get<string>(
    `/api/audit/export?${new URLSearchParams({ accountId: teamId, entityType: 'sbom', action: 'scan' }).toString()}`,
  );
  expect(response.status).toBe(200);
  const [, ...rows] = parseCsv(response.text);
  return rows.filter((row) => row[3] === sbomId);
}

describe('one scan per SBOM at a time', () => {
  it("joins the upload's scan: an upload and immediate POST /api/cve-scan calls store the findings once", async () => {
    const { api, teamId } = await createTeamWithKey();
    const { id: releaseId } = await release(api);
    const upload = await api.post('/api/sboms/upload', { releaseId, content: largeVulnerableSbom(6000) });
    expect(upload.status).toBe(201);
    const sbomId = upload.body.data.id as string;

    const scans = await Promise.all([api.post('/api/cve-scan', { sbomId }), api.post('/api/cve-scan', { sbomId })]);

    for (const scan of scans) expect(scan.status).toBe(202);
    const [first, second] = scans.map((scan) => scan.body.data as { findingCount: number; scannedAt: string });
    if (!first) throw new Error('no scan answer');
    expect(first.findingCount).toBeGreaterThan(0);
    expect(second).toEqual(first);
    expect(await scanAuditRows(api, teamId, sbomId)).toHaveLength(1);
    const sbom = (await api.get(`/api/sboms/${sbomId}`)).body.data;
    expect(sbom.scan).toMatchObject({
      status: 'completed',
      scanned_at: first.scannedAt,
      finding_count: first.findingCount,
    });
    const list = await api.get(`/api/sboms/${sbomId}/vulnerabilities`);
    expect(list.body.summary.total).toBe(first.findingCount);
  });

  it('waits out the lease of a scan that died and then scans itself', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { id: releaseId, productId } = await release(api);
    // No scan worker runs in this process: the upload is committed and its scan never dispatched.
    const sbom = await Sboms.upload(teamId, OPERATOR_ACTOR, { releaseId, content: JSON.stringify(SPRING) });
    const taken = await scanLease.take(keys.scanLease(teamId, productId, releaseId, sbom.id), sbom.id, 2000);
    if (!('held' in taken)) throw new Error('the lease of a fresh SBOM was held');
    taken.held.stop(); // the holder dies: nobody renews or releases its lease
    const startedAt = Date.now();

    const scan = await api.post('/api/cve-scan', { sbomId: sbom.id });

    expect(scan.status).toBe(202);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1500);
    expect(scan.body.data).toMatchObject({ status: 'completed' });
    expect(scan.body.data.findingCount).toBeGreaterThan(0);
    expect(await scanAuditRows(api, teamId, sbom.id)).toHaveLength(1);
    expect(await scanLease.read(keys.scanLease(teamId, productId, releaseId, sbom.id))).toBeUndefined();
  });

  it('takes over an expired lease left behind at once', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { id: releaseId, productId } = await release(api);
    const sbom = await Sboms.upload(teamId, OPERATOR_ACTOR, { releaseId, content: JSON.stringify(SPRING) });
    const taken = await scanLease.take(keys.scanLease(teamId, productId, releaseId, sbom.id), sbom.id, 1);
    if (!('held' in taken)) throw new Error('the lease of a fresh SBOM was held');
    taken.held.stop();
    await new Promise((done) => setTimeout(done, 20));
    expect(await scanLease.read(keys.scanLease(teamId, productId, releaseId, sbom.id))).toBeDefined(); // expired, not yet removed by TTL

    const scan = await api.post('/api/cve-scan', { sbomId: sbom.id });

    expect(scan.status).toBe(202);
    expect(scan.body.data.findingCount).toBeGreaterThan(0);
    expect((await api.get(`/api/sboms/${sbom.id}`)).body.data.scan).toMatchObject({
      status: 'completed',
      scanned_at: scan.body.data.scannedAt,
    });
  });
});
