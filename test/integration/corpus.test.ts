import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { importCorpusFiles } from '../../shared/service/corpus/import';
import { getItem } from '../../shared/service/data/table-client';
import { keys } from '../../shared/service/data/keys';
import { adminBundle } from '../support/server-bundle';
import { createTeamWithKey } from '../support/factories';
import { client } from '../support/http-client';
import { scannedPackageSbom } from '../support/sbom-uploads';

const run = promisify(execFile);

function osvAdvisory(
  id: string,
  cve: string,
  pkg: string,
  events: Record<string, string>[],
  extra: Record<string, unknown> = {},
) {
  return {
    schema_version: '1.6.0',
    id,
    modified: new Date().toISOString(),
    aliases: [cve],
    summary: `Issue in ${pkg}`,
    details: 'Details',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected: [{ package: { ecosystem: 'npm', name: pkg }, ranges: [{ type: 'SEMVER', events }] }],
    database_specific: { cwe_ids: ['CWE-502'], severity: 'CRITICAL' },
    ...extra,
  };
}

function writeDir(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'osv-'));
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

describe('corpus import and its effect on scans', () => {
  it('is idempotent and incremental, and a withdrawn advisory drops out (kept, resolved, with its decision)', async () => {
    const suffix = randomUUID().slice(0, 8);
    const [pkgA, pkgB] = [`vexdesk-test-a-${suffix}`, `vexdesk-test-b-${suffix}`];
    const [cveA, cveB] = [
      `CVE-2099-${suffix.replace(/\D/g, '').padEnd(5, '1').slice(0, 5)}`,
      `CVE-2098-${suffix.replace(/\D/g, '').padEnd(5, '2').slice(0, 5)}`,
    ];
    const advisoryA = osvAdvisory(`GHSA-test-a-${suffix}`, cveA, pkgA, [{ introduced: '0' }, { fixed: '1.5.0' }]);
    const advisoryB = osvAdvisory(`GHSA-test-b-${suffix}`, cveB, pkgB, [
      { introduced: '1.0.0' },
      { last_affected: '1.2.0' },
    ]);
    const dir = writeDir({ 'a.json': advisoryA, 'b.json': advisoryB });

    const first = (await importCorpusFiles([dir])).imported[0];
    expect(first).toMatchObject({ kind: 'osv-directory', read: 2, written: 2, unchanged: 0 });
    const again = (await importCorpusFiles([dir])).imported[0];
    expect(again).toMatchObject({ read: 2, written: 0, unchanged: 2 });

    const { api } = await createTeamWithKey();
    const sbomA = await scannedPackageSbom(api, pkgA, '1.4.9');
    const sbomB = await scannedPackageSbom(api, pkgB, '1.2.0');
    const findingA = (await api.get(`/api/sboms/${sbomA.id}/vulnerabilities`)).body.data;
    const findingB = (await api.get(`/api/sboms/${sbomB.id}/vulnerabilities`)).body.data;
    expect(findingA).toHaveLength(1);
    expect(findingA[0]).toMatchObject({
      cve_id: cveA,
      severity: 'CRITICAL',
      cwes: ['CWE-502'],
      fixed_versions: ['1.5.0'],
    });
    expect(findingB).toHaveLength(1);
    await api.post('/api/dispositions', {
      vulnerabilityId: findingB[0].id,
      status: 'not_affected',
      justification: 'component_not_present',
    });

    writeFileSync(join(dir, 'a.json'), JSON.stringify({ ...advisoryA, withdrawn: new Date().toISOString() }));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...advisoryB, withdrawn: new Date().toISOString() }));
    expect((await importCorpusFiles([dir])).imported[0]).toMatchObject({ withdrawn: 2, written: 0 });
    await api.post('/api/cve-scan', { sbomId: sbomA.id });
    await api.post('/api/cve-scan', { sbomId: sbomB.id });
    expect((await api.get(`/api/sboms/${sbomA.id}/vulnerabilities`)).body.data).toHaveLength(0);
    expect((await api.get(`/api/sboms/${sbomB.id}/vulnerabilities`)).body.data).toHaveLength(0);
    // Resolved findings stay, out of the default list, decided or not.
    const resolvedA = (await api.get(`/api/sboms/${sbomA.id}/vulnerabilities?state=resolved`)).body.data;
    expect(resolvedA).toMatchObject([{ id: findingA[0].id, state: 'resolved', resolved_reason: 'advisory_withdrawn' }]);
    const kept = (await api.get(`/api/sboms/${sbomB.id}/vulnerabilities?state=all`)).body.data;
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({
      id: findingB[0].id,
      no_longer_detected: true,
      state: 'resolved',
      disposition: { status: 'not_affected' },
    });
  });

  it('imports EPSS (CSV.gz with its model header) and KEV, and scans pick them up', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-test-epss-${suffix}`;
    const cve = `CVE-2097-${String(Date.now()).slice(-6)}`;
    const dir = writeDir({ 'adv.json': osvAdvisory(`GHSA-test-e-${suffix}`, cve, pkg, [{ introduced: '0' }]) });
    const epss = join(dir, 'epss.csv.gz');
    writeFileSync(
      epss,
      gzipSync(
        `#model_version:v2025.03.14,score_date:2099-01-0${suffix.length % 9}T00:00:00+0000\ncve,epss,percentile\n${cve},0.91234,0.99876\n`,
      ),
    );
    const kev = join(dir, 'kev.json');
    writeFileSync(
      kev,
      JSON.stringify({
        title: 'CISA KEV',
        catalogVersion: '2099.01.01',
        dateReleased: '2099-01-01T00:00:00Z',
        count: 1,
        vulnerabilities: [
          {
            cveID: cve,
            vendorProject: 'x',
            product: pkg,
            vulnerabilityName: 'x',
            dateAdded: '2099-01-01',
            shortDescription: 'x',
            requiredAction: 'x',
            dueDate: '2099-01-22',
            knownRansomwareCampaignUse: 'Known',
            notes: '',
            cwes: [],
          },
        ],
      }),
    );
    const result = await importCorpusFiles([join(dir, 'adv.json'), epss, kev]);
    expect(result.imported.map((entry) => entry.kind)).toEqual(['osv-file', 'epss', 'kev']);
    const { api } = await createTeamWithKey();
    const sbom = await scannedPackageSbom(api, pkg, '3.0.0');
    const [finding] = (await api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).body.data;
    expect(finding).toMatchObject({
      cve_id: cve,
      epss_score: 0.91234,
      epss_percentile: 0.99876,
      is_kev: true,
      kev: { dueDate: '2099-01-22', knownRansomwareCampaignUse: 'Known' },
    });
  });

  it('imports an advisory larger than a DynamoDB item: its item keeps no text, its match data spills to S3, and it still matches', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-test-big-${suffix}`;
    const versions = Array.from({ length: 40_000 }, (_, index) => `0.${Math.floor(index / 100)}.${index % 100}`);
    const big = {
      ...osvAdvisory(`GHSA-test-big-${suffix}`, `CVE-2096-${String(Date.now()).slice(-6)}`, pkg, [
        { introduced: '0' },
        { fixed: '9.0.0' },
      ]),
      details: 'd'.repeat(200_000),
    };
    (big.affected[0] as Record<string, unknown>).versions = versions;
    const dir = writeDir({ 'big.json': big });
    expect(JSON.stringify(big).length).toBeGreaterThan(400 * 1024);
    await importCorpusFiles([dir]);
    const stored = await getItem(keys.corpusAdvisory(big.id));
    expect(stored).toMatchObject({ advisoryId: big.id, contentHash: expect.any(String) });
    expect(stored).not.toHaveProperty('spillKey');
    expect(stored).not.toHaveProperty('advisoryJson');
    // The package's match data (40,000 versions) is a sealed segment that spills too, so the scan reads it from S3.
    expect(await getItem(keys.corpusPackage('npm', pkg))).toMatchObject({ sealedSegments: 1, entriesJson: '[]' });
    expect((await getItem(keys.corpusPackageSegment('npm', pkg, 0)))?.spillKey).toEqual(expect.any(String));
    const { api } = await createTeamWithKey();
    const sbom = await scannedPackageSbom(api, pkg, '0.1.5');
    expect((await api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).body.data).toHaveLength(1);
    // A rescan after the upload's scan has finished runs in the scans function itself (no lease to join).
    expect((await api.post('/api/cve-scan', { sbomId: sbom.id })).status).toBe(202);
    expect((await api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).body.data).toHaveLength(1);
  });

  it("drives the admin CLI against the running server's engines", async () => {
    const root = resolve(import.meta.dirname, '../..');
    const env = { ...process.env, DATA_DIR: process.env.VEXDESK_TEST_DATA_DIR };
    const entry = await adminBundle();
    const admin = async (...args: string[]) =>
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- CLI JSON
      JSON.parse((await run(process.execPath, [entry, ...args], { cwd: root, env })).stdout) as Record<string, any>;
    const { teamId } = await admin('team', 'create', '--name', 'CLI team');
    const { memberId } = await admin(
      'member',
      'add',
      '--team',
      teamId,
      '--email',
      'ops@example.test',
      '--name',
      'Ops',
      '--permissions',
      // The key below grants products:write, which only a member holding content.write may grant.
      'settings.manage,content.write',
    );
    const created = await admin(
      'key',
      'create',
      '--team',
      teamId,
      '--name',
      'ci',
      '--scopes',
      'products:read,products:write',
      '--expires-in-days',
      '90',
      '--by',
      memberId,
    );
    expect(created).toMatchObject({
      name: 'ci',
      scopes: ['products:read', 'products:write'],
      key: expect.stringMatching(/^vxd_[0-9a-f]{64}$/),
    });
    const api = client(created.key as string);
    expect((await api.get('/api/products')).status).toBe(200);
    expect((await admin('key', 'list', '--team', teamId)).data).toHaveLength(1);
    await admin('key', 'revoke', '--team', teamId, '--id', created.id as string, '--by', memberId);
    expect((await api.get('/api/products')).status).toBe(401);
    const dir = writeDir({
      'x.json': osvAdvisory(
        `GHSA-cli-${randomUUID().slice(0, 8)}`,
        'CVE-2095-00001',
        `cli-pkg-${randomUUID().slice(0, 8)}`,
        [{ introduced: '0' }],
      ),
    });
    expect((await admin('corpus', 'import', dir)).imported[0]).toMatchObject({ written: 1 });
  }, 120_000);
});
