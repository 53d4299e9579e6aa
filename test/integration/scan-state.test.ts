import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { Sboms } from '../../shared/service/sboms/sboms';
import { Scans } from '../../shared/service/scans/scans';
import { createTeamWithKey, uniqueSlug } from '../support/factories';

const SPRING = readFileSync(
  resolve(import.meta.dirname, '../fixtures/sboms/cyclonedx-1.5_maven_cdxgen_vuln-spring.json'),
  'utf8',
);

/**
 * An upload acknowledged by a process that died before its scan ran: this test
 * process registers no scan worker, so `Sboms.upload` commits the SBOM exactly
 * as the API does and its scan is never dispatched.
 */
async function unscannedSbom() {
  const team = await createTeamWithKey();
  const product = (await team.api.post('/api/products', { name: 'Unscanned', slug: uniqueSlug('unscanned') })).body
    .data;
  const release = (await team.api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;
  const sbom = await Sboms.upload(team.teamId, OPERATOR_ACTOR, { releaseId: release.id, content: SPRING });
  return { ...team, sbom };
}

describe('vulnerability list of an SBOM no scan has completed for', () => {
  it('answers 409 scan_pending naming the scan status, never 200 with total 0', async () => {
    const { api, sbom } = await unscannedSbom();
    const list = await api.get(`/api/sboms/${sbom.id}/vulnerabilities`);
    expect(list.status).toBe(409);
    expect(list.body.error).toMatchObject({ code: 'scan_pending', details: [{ path: 'scan.status', code: 'queued' }] });
    expect(list.body).not.toHaveProperty('summary');
    expect((await api.get(`/api/sboms/${sbom.id}/vulnerabilities?severity=critical`)).status).toBe(409);
    expect((await api.get(`/api/sboms/${sbom.id}`)).body.data.scan).toMatchObject({
      status: 'queued',
      scanned_at: null,
    });
  });

  it('answers 409 scan_failed once the scan gave up, with the reason on the SBOM', async () => {
    const { api, teamId, sbom } = await unscannedSbom();
    await Scans.recordFailure(teamId, sbom.id, new Error('inventory unreadable'));
    const list = await api.get(`/api/sboms/${sbom.id}/vulnerabilities`);
    expect(list.status).toBe(409);
    expect(list.body.error).toMatchObject({
      code: 'scan_failed',
      details: [{ path: 'scan.status', code: 'failed', message: 'inventory unreadable' }],
    });
    expect((await api.get(`/api/sboms/${sbom.id}`)).body.data.scan).toMatchObject({
      status: 'failed',
      error: 'inventory unreadable',
    });
  });

  it('lists the findings with the completed scan beside data and summary once a scan ran', async () => {
    const { api, sbom } = await unscannedSbom();
    const scan = await api.post('/api/cve-scan', { sbomId: sbom.id });
    expect(scan.status).toBe(202);
    const list = await api.get(`/api/sboms/${sbom.id}/vulnerabilities`);
    expect(list.status).toBe(200);
    expect(list.body.scan).toMatchObject({
      status: 'completed',
      finding_count: scan.body.data.findingCount,
      scanned_at: scan.body.data.scannedAt,
    });
    expect(list.body.summary.total).toBe(scan.body.data.findingCount);
    expect(list.body.summary.total).toBeGreaterThan(0);
  });
});
