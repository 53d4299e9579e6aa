/** Scans of uploaded SBOMs find what the fixtures hold, keep finding ids across rescans, and list them in the documented shape. */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRoute } from '../../shared/service/http/routes';
import { createTeamWithKey } from '../support/factories';
import { SBOM_FIXTURES, releaseFor, scannedSpringSbom } from '../support/sbom-uploads';

describe('SBOM upload, download and scan', () => {
  it('finds Spring4Shell in the vulnerable Spring app, with CVSS, KEV, fix and match evidence', async () => {
    const { api, sbom } = await scannedSpringSbom();
    const { body } = await api.get(`/api/sboms/${sbom.id}/vulnerabilities?severity=critical`);
    const spring4shell = body.data.find(
      (entry: { cve_id: string; component_name: string }) =>
        entry.cve_id === 'CVE-2022-22965' && entry.component_name === 'spring-beans',
    );
    expect(spring4shell).toMatchObject({
      severity: 'CRITICAL',
      is_kev: true,
      cvss_v3_score: 9.8,
      component_version: '5.2.5.RELEASE',
      match_confidence: 'exact',
      match_evidence: {
        kind: 'purl',
        value: expect.stringContaining('pkg:maven/org.springframework/spring-beans@5.2.5.RELEASE'),
      },
    });
    expect(spring4shell.fixed_versions).toContain('5.2.20.RELEASE');
    expect(spring4shell.cwes).toContain('CWE-94');
    expect(body.data.every((entry: { severity: string }) => entry.severity === 'CRITICAL')).toBe(true);
  });

  /** Uploads a committed fixture, scans it, and returns the SBOM and its findings. */
  async function scanFixture(file: string, fileName?: string) {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const content = readFileSync(join(SBOM_FIXTURES, file), 'utf8');
    const upload = await api.post('/api/sboms/upload', {
      releaseId: release.id,
      content,
      ...(fileName !== undefined && { fileName }),
    });
    expect(upload.status).toBe(201);
    const scan = await api.post('/api/cve-scan', { sbomId: upload.body.data.id });
    expect(scan.body.data.status).toBe('completed');
    const findings = (await api.get(`/api/sboms/${upload.body.data.id}/vulnerabilities`)).body.data as {
      cve_id: string;
      component_name: string;
      component_version: string;
    }[];
    return { sbom: upload.body.data, findings, api };
  }
  const hit = (findings: { cve_id: string; component_name: string }[], cve: string, component: string) =>
    findings.some((f) => f.cve_id === cve && f.component_name === component);

  it('finds Log4Shell in an SPDX document that DESCRIBES every package (it had component_count 0 and no findings)', async () => {
    const { sbom, findings } = await scanFixture('handmade_spdx-2.3_flat-describes-log4j.json');
    expect(sbom).toMatchObject({ component_count: 3, skipped: [] });
    expect(hit(findings, 'CVE-2021-44228', 'log4j-core')).toBe(true);
  });

  it('finds jackson-databind nested under CycloneDX metadata.component, and says the subject was skipped', async () => {
    const { sbom, findings } = await scanFixture('handmade_cyclonedx-1.5_subject-subcomponents.json');
    expect(sbom.skipped).toEqual([{ reason: 'document_subject', count: 1, examples: ['acme-orders@2.0.0'] }]);
    expect(hit(findings, 'CVE-2020-36518', 'jackson-databind')).toBe(true);
  });

  it('finds snakeyaml listed under a bom-ref another component already uses, and counts the true duplicate', async () => {
    const { sbom, findings } = await scanFixture('handmade_cyclonedx-1.4_shared-bom-ref.json');
    expect(sbom.skipped).toContainEqual({ reason: 'duplicate', count: 1, examples: ['maven-dependency'] });
    expect(hit(findings, 'CVE-2022-1471', 'snakeyaml')).toBe(true);
  });

  // The real XML files' versions are all fixed in the bundled sample corpus, so the findings case
  // is a file in the Maven plugin's XML layout with vulnerable versions; entities in purls included.
  it('scans a CycloneDX XML upload to findings (Spring4Shell, jackson-databind, snakeyaml with an &amp; purl)', async () => {
    const { sbom, findings } = await scanFixture('handmade_cyclonedx-1.5_maven-plugin-layout.xml', 'bom.xml');
    expect(sbom).toMatchObject({
      format: 'CycloneDX',
      spec_version: '1.5',
      component_count: 3,
      media_type: 'application/vnd.cyclonedx+xml',
    });
    expect(hit(findings, 'CVE-2022-22965', 'spring-beans')).toBe(true);
    expect(hit(findings, 'CVE-2020-36518', 'jackson-databind')).toBe(true);
    expect(hit(findings, 'CVE-2022-1471', 'snakeyaml')).toBe(true);
  });

  // Likewise the real tag-value files' versions have no advisory in the sample corpus (they are
  // covered by the per-fixture case above); this one is in sbom4python's layout.
  it('scans an SPDX tag-value upload to findings, leaving out the described root', async () => {
    const { sbom, findings } = await scanFixture('handmade_spdx-2.3_sbom4python-layout.spdx', 'legacy-service.spdx');
    expect(sbom).toMatchObject({ format: 'SPDX', spec_version: '2.3', component_count: 3, media_type: 'text/spdx' });
    expect(sbom.skipped).toEqual([
      { reason: 'document_subject', count: 1, examples: ['SPDXRef-Package-1-legacy-service'] },
    ]);
    expect(hit(findings, 'CVE-2019-10906', 'jinja2')).toBe(true);
    expect(hit(findings, 'CVE-2019-11236', 'urllib3')).toBe(true);
    expect(hit(findings, 'CVE-2023-37276', 'aiohttp')).toBe(true);
  });

  it('keeps finding ids across rescans so dispositions survive, and filters by status', async () => {
    const { api, sbom } = await scannedSpringSbom();
    const first = (await api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).body;
    const target = first.data[0];
    await api.post('/api/dispositions', { vulnerabilityId: target.id, status: 'affected', response: 'update' });
    await api.post('/api/cve-scan', { sbomId: sbom.id });
    const second = (await api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).body;
    expect(second.data.map((entry: { id: string }) => entry.id).sort()).toEqual(
      first.data.map((entry: { id: string }) => entry.id).sort(),
    );
    expect(second.summary).toMatchObject({
      total: first.summary.total,
      affected: 1,
      withoutDisposition: first.summary.total - 1,
    });
    const affected = (await api.get(`/api/sboms/${sbom.id}/vulnerabilities?status=affected`)).body.data;
    expect(affected).toHaveLength(1);
    expect(affected[0].disposition).toMatchObject({ status: 'affected', response: 'update' });
    expect((await api.get(`/api/sboms/${sbom.id}/vulnerabilities?status=undisposed`)).body.data).toHaveLength(
      first.summary.total - 1,
    );
    expect((await api.get(`/api/sboms/${sbom.id}/vulnerabilities?severity=urgent`)).status).toBe(422);
  });

  it('answers both vulnerability lists in the shape docs/openapi.json documents, summary and paging included', async () => {
    const { api, release, sbom } = await scannedSpringSbom();
    const lists = [
      {
        route: findRoute('GET', '/api/sboms/{id}/vulnerabilities'),
        path: `/api/sboms/${sbom.id}/vulnerabilities?perPage=2`,
      },
      {
        route: findRoute('GET', '/api/releases/{releaseId}/vulnerabilities'),
        path: `/api/releases/${release.id}/vulnerabilities?perPage=2`,
      },
    ];
    for (const { route, path } of lists) {
      const schema = route?.responses[200]?.schema;
      if (!schema) throw new Error(`no documented 200 schema for ${path}`);
      const body = (await api.get(path)).body;
      const parsed = schema.safeParse(body);
      expect(parsed.error?.issues ?? []).toEqual([]);
      expect(body.summary.total).toBeGreaterThan(2);
      expect(body.meta).toMatchObject({ page: 1, perPage: 2, total: body.summary.total, hasNextPage: true });
    }
  });

  it('scans automatically after upload (in-process worker locally)', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const content = readFileSync(join(SBOM_FIXTURES, 'cyclonedx-1.5_maven_cdxgen_vuln-spring.json'), 'utf8');
    const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content })).body.data;
    let status = 'queued';
    for (let attempt = 0; attempt < 50 && status !== 'completed'; attempt += 1) {
      await new Promise((done) => setTimeout(done, 100));
      status = (await api.get(`/api/sboms/${sbom.id}`)).body.data.scan.status;
    }
    expect(status).toBe('completed');
    expect((await api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).body.summary.total).toBeGreaterThan(0);
  });
});
