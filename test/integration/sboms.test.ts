import { describe, expect, it } from '@jest/globals';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { findRoute } from '../../shared/service/http/routes';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { request } from '../support/http-client';
import { cycloneDxSbom } from '../support/seed';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/sboms');
/** Expected inventories, counted independently of the parser (see test/fixtures/README.md for the rules). */
const CDX_JSON = 'application/vnd.cyclonedx+json';
const CDX_XML = 'application/vnd.cyclonedx+xml';
const SPDX_JSON = 'application/spdx+json';
const SPDX_TV = 'text/spdx';
type Expected = { format: string; spec: string; count: number; mediaType: string };
const COMMITTED: Record<string, Expected> = {
  'cyclonedx-1.6_npm_cyclonedx-npm_demo-bundled-deps.json': {
    format: 'CycloneDX',
    spec: '1.6',
    count: 52,
    mediaType: CDX_JSON,
  },
  'cyclonedx-1.6_pypi_cyclonedx-py_poetry-regression-issue702.json': {
    format: 'CycloneDX',
    spec: '1.6',
    count: 63,
    mediaType: CDX_JSON,
  },
  'cyclonedx-1.5_multi_syft-0.96.0_plone-5.2-image.json': {
    format: 'CycloneDX',
    spec: '1.5',
    count: 600,
    mediaType: CDX_JSON,
  },
  'cyclonedx-1.5_maven_cdxgen_vuln-spring.json': { format: 'CycloneDX', spec: '1.5', count: 88, mediaType: CDX_JSON },
  'cyclonedx-1.4_go-cargo-pypi_syft_sbomgr.json': { format: 'CycloneDX', spec: '1.4', count: 264, mediaType: CDX_JSON },
  'cyclonedx-1.5_gem-deb_syft-1.2.0_rails-5.0.0-image.json': {
    format: 'CycloneDX',
    spec: '1.5',
    count: 445,
    mediaType: CDX_JSON,
  },
  'cyclonedx-1.6_apk-maven_trivy_test-image.json': { format: 'CycloneDX', spec: '1.6', count: 22, mediaType: CDX_JSON },
  'cyclonedx-1.7_composer_cyclonedx-php-composer_laravel-7.12.0-demo.json': {
    format: 'CycloneDX',
    spec: '1.7',
    count: 62,
    mediaType: CDX_JSON,
  },
  'cyclonedx-1.7_deb-gem_trivy_fluentd-multiple-lockfiles-image.json': {
    format: 'CycloneDX',
    spec: '1.7',
    count: 161,
    mediaType: CDX_JSON,
  },
  'cyclonedx-1.4_maven_cyclonedx-maven-plugin-2.7.10_hadoop-aliyun-3.4.1.xml': {
    format: 'CycloneDX',
    spec: '1.4',
    count: 96,
    mediaType: CDX_XML,
  },
  'cyclonedx-1.6_npm_cyclonedx-npm-3.1.0_demo-deps-from-git.xml': {
    format: 'CycloneDX',
    spec: '1.6',
    count: 98,
    mediaType: CDX_XML,
  },
  'handmade_cyclonedx-1.5_maven-plugin-layout.xml': { format: 'CycloneDX', spec: '1.5', count: 3, mediaType: CDX_XML },
  'handmade_cyclonedx-1.2_nested-assemblies.json': { format: 'CycloneDX', spec: '1.2', count: 10, mediaType: CDX_JSON },
  'handmade_cyclonedx-1.3_cpe-only.json': { format: 'CycloneDX', spec: '1.3', count: 9, mediaType: CDX_JSON },
  'handmade_cyclonedx-1.4_shared-bom-ref.json': { format: 'CycloneDX', spec: '1.4', count: 2, mediaType: CDX_JSON },
  'handmade_cyclonedx-1.5_subject-subcomponents.json': {
    format: 'CycloneDX',
    spec: '1.5',
    count: 3,
    mediaType: CDX_JSON,
  },
  'handmade_spdx-2.3_describes-relationship.json': { format: 'SPDX', spec: '2.3', count: 7, mediaType: SPDX_JSON },
  'handmade_spdx-2.2_document-describes.json': { format: 'SPDX', spec: '2.2', count: 5, mediaType: SPDX_JSON },
  'handmade_spdx-2.3_flat-describes-log4j.json': { format: 'SPDX', spec: '2.3', count: 3, mediaType: SPDX_JSON },
  'spdx-2.3_pypi_sbom4python-0.12.0_requirements-flat-describes.json': {
    format: 'SPDX',
    spec: '2.3',
    count: 6,
    mediaType: SPDX_JSON,
  },
  'spdx-2.2_deb_k8s-bom_nginx-image.spdx': { format: 'SPDX', spec: '2.2', count: 1064, mediaType: SPDX_TV },
  'spdx-2.3_pypi_sbom4python-0.10.4_cve-bin-tool-3.3.spdx': {
    format: 'SPDX',
    spec: '2.3',
    count: 65,
    mediaType: SPDX_TV,
  },
  'handmade_spdx-2.3_sbom4python-layout.spdx': { format: 'SPDX', spec: '2.3', count: 3, mediaType: SPDX_TV },
};
/**
 * Real SBOMs whose source has no licence: not committed (../shared/data/MANIFEST),
 * but read from ../shared beside the checkout, where CI and developers have it.
 */
const SHARED_DIR = resolve(import.meta.dirname, '../../../shared/data/sboms');
const SHARED_ONLY: Record<string, Expected> = {
  'cyclonedx-1.4_npm_cyclonedx-npm_redis-commander.json': {
    format: 'CycloneDX',
    spec: '1.4',
    count: 479,
    mediaType: CDX_JSON,
  },
  'cyclonedx-1.4_cpe-only_openwrt-sbom-generator.json': {
    format: 'CycloneDX',
    spec: '1.4',
    count: 15,
    mediaType: CDX_JSON,
  },
  'spdx-2.3_go-pypi_syft-0.64.0_pingidentity-pingtoolkit-image.json': {
    format: 'SPDX',
    spec: '2.3',
    count: 162,
    mediaType: SPDX_JSON,
  },
  'spdx-2.3_npm-pypi-alpine_syft-0.64.0_atlassian-docker-release-maker-image.json': {
    format: 'SPDX',
    spec: '2.3',
    count: 288,
    mediaType: SPDX_JSON,
  },
  'spdx-2.2_nuget_ms-sbom-tool-1.1.1.json': { format: 'SPDX', spec: '2.2', count: 122, mediaType: SPDX_JSON },
};

const cases = [
  ...Object.entries(COMMITTED).map(([file, expected]) => ({ file, path: join(FIXTURES, file), ...expected })),
  ...(existsSync(SHARED_DIR)
    ? Object.entries(SHARED_ONLY).map(([file, expected]) => ({ file, path: join(SHARED_DIR, file), ...expected }))
    : []),
];

async function releaseFor(api: Awaited<ReturnType<typeof createTeamWithKey>>['api']) {
  const product = (await api.post('/api/products', { name: 'Scanned', slug: uniqueSlug('scanned') })).body.data;
  return (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data as { id: string };
}

/** A new team's release holding the vulnerable Spring app's SBOM, scanned. */
async function scannedSpringSbom() {
  const { api } = await createTeamWithKey();
  const release = await releaseFor(api);
  const content = readFileSync(join(FIXTURES, 'cyclonedx-1.5_maven_cdxgen_vuln-spring.json'), 'utf8');
  const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content })).body.data as { id: string };
  await api.post('/api/cve-scan', { sbomId: sbom.id });
  return { api, release, sbom };
}

describe('SBOM upload, download and scan', () => {
  it('covers every committed fixture', () => {
    expect(readdirSync(FIXTURES).sort()).toEqual(Object.keys(COMMITTED).sort());
  });

  it.each(cases.map((testCase) => [testCase.file, testCase] as const))(
    '%s: detects the format, counts components, downloads byte for byte and scans',
    async (_file, testCase) => {
      const { api } = await createTeamWithKey();
      const release = await releaseFor(api);
      const content = readFileSync(testCase.path, 'utf8');
      const upload = await api.post('/api/sboms/upload', { releaseId: release.id, content, fileName: testCase.file });
      expect(upload.status).toBe(201);
      const bytes = Buffer.from(content, 'utf8');
      expect(upload.body.data).toMatchObject({
        format: testCase.format,
        spec_version: testCase.spec,
        component_count: testCase.count,
        media_type: testCase.mediaType,
        file_hash: createHash('sha256').update(bytes).digest('hex'),
      });
      expect((await api.get(`/api/sboms/${upload.body.data.id}`)).body.data.skipped).toEqual(upload.body.data.skipped);

      const download = await api.get(`/api/sboms/${upload.body.data.id}/download`);
      expect(download.status).toBe(200);
      expect(Buffer.from(download.text, 'utf8').equals(bytes)).toBe(true);
      expect(download.headers.get('content-type')).toBe(testCase.mediaType);
      expect(download.headers.get('x-content-hash')).toBe(upload.body.data.file_hash);
      expect(download.headers.get('content-disposition')).toContain(`filename="${testCase.file}"`);

      const scan = await api.post('/api/cve-scan', { sbomId: upload.body.data.id });
      expect(scan.status).toBe(202);
      expect(scan.body.data.status).toBe('completed');
      const vulnerabilities = await api.get(`/api/sboms/${upload.body.data.id}/vulnerabilities?perPage=500`);
      expect(vulnerabilities.status).toBe(200);
      expect(vulnerabilities.body.summary.total).toBe(vulnerabilities.body.data.length);
      expect(vulnerabilities.body.meta.total).toBe(vulnerabilities.body.data.length);
      expect(vulnerabilities.body.summary.total).toBe(scan.body.data.findingCount);
    },
  );

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
    const content = readFileSync(join(FIXTURES, file), 'utf8');
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
    const content = readFileSync(join(FIXTURES, 'cyclonedx-1.5_maven_cdxgen_vuln-spring.json'), 'utf8');
    const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content })).body.data;
    let status = 'queued';
    for (let attempt = 0; attempt < 50 && status !== 'completed'; attempt += 1) {
      await new Promise((done) => setTimeout(done, 100));
      status = (await api.get(`/api/sboms/${sbom.id}`)).body.data.scan.status;
    }
    expect(status).toBe('completed');
    expect((await api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).body.summary.total).toBeGreaterThan(0);
  });

  it('accepts a gzip-compressed request body', async () => {
    const { key, api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const content = cycloneDxSbom([{ name: 'left-pad', version: '1.0.0', purl: 'pkg:npm/left-pad@1.0.0' }]);
    const response = await request('POST', '/api/sboms/upload', {
      key,
      rawBody: gzipSync(JSON.stringify({ releaseId: release.id, content })),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(response.status).toBe(201);
    expect(response.body.data.file_hash).toBe(createHash('sha256').update(content).digest('hex'));
  });

  it('supports the pre-signed upload flow against the embedded S3', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const content = readFileSync(join(FIXTURES, 'handmade_spdx-2.3_describes-relationship.json'));
    const session = await api.post('/api/sboms/uploads', {
      releaseId: release.id,
      fileName: 'report-service.spdx.json',
      size: content.length,
    });
    expect(session.status).toBe(201);
    const put = await fetch(session.body.data.uploadUrl, { method: 'PUT', body: content });
    expect(put.status).toBe(200);
    const completed = await api.post(session.body.data.completePath);
    expect(completed.status).toBe(201);
    expect(completed.body.data).toMatchObject({
      format: 'SPDX',
      component_count: 7,
      file_name: 'report-service.spdx.json',
      file_hash: createHash('sha256').update(content).digest('hex'),
    });
    expect((await api.post(session.body.data.completePath)).status).toBe(409);
    const download = await api.get(`/api/sboms/${completed.body.data.id}/download`);
    expect(Buffer.from(download.text).equals(content)).toBe(true);
  });

  it('takes CycloneDX XML through the pre-signed upload flow, served back with its XML media type', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const content = readFileSync(
      join(FIXTURES, 'cyclonedx-1.4_maven_cyclonedx-maven-plugin-2.7.10_hadoop-aliyun-3.4.1.xml'),
    );
    const session = await api.post('/api/sboms/uploads', { releaseId: release.id, size: content.length });
    expect((await fetch(session.body.data.uploadUrl, { method: 'PUT', body: content })).status).toBe(200);
    const completed = await api.post(session.body.data.completePath);
    expect(completed.status).toBe(201);
    expect(completed.body.data).toMatchObject({
      format: 'CycloneDX',
      spec_version: '1.4',
      component_count: 96,
      media_type: 'application/vnd.cyclonedx+xml',
    });
    const download = await api.get(`/api/sboms/${completed.body.data.id}/download`);
    expect(Buffer.from(download.text).equals(content)).toBe(true);
    expect(download.headers.get('content-type')).toBe('application/vnd.cyclonedx+xml');
    expect(download.headers.get('content-disposition')).toContain(`filename="sbom-${completed.body.data.id}.xml"`);
  });

  it('answers a file that is no accepted format with 422 naming the accepted formats', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const response = await api.post('/api/sboms/upload', {
      releaseId: release.id,
      content: 'name,version\nlodash,4.17.20\n',
      fileName: 'deps.csv',
    });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toContain('CycloneDX 1.2-1.7 (JSON or XML), SPDX 2.2/2.3 (JSON or tag-value)');
  });

  it.each([
    ['not JSON', 'this is not json'],
    ['malformed XML', '<bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components>'],
    [
      'an XML bomb',
      '<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components><component type="library"><name>&b;</name></component></components></bom>',
    ],
    ['tag-value with a broken line', 'SPDXVersion: SPDX-2.3\nSPDXID: SPDXRef-DOCUMENT\nnot a tag line\n'],
    ['a JSON array', '[]'],
    [
      'an unsupported CycloneDX version',
      JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.1', components: [] }),
    ],
    ['CycloneDX without components', JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.5' })],
    ['SPDX without packages', JSON.stringify({ spdxVersion: 'SPDX-2.3', SPDXID: 'SPDXRef-DOCUMENT' })],
    ['an unsupported SPDX version', JSON.stringify({ spdxVersion: 'SPDX-2.1', packages: [] })],
    ['an unknown document', JSON.stringify({ hello: 'world' })],
  ])('rejects %s with 422 and a reason', async (_label, content) => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const response = await api.post('/api/sboms/upload', { releaseId: release.id, content });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(/SBOM rejected: .+/);
  });

  it('rejects content over 10 MB with 413 and a long file name with 422', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const big = JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      components: [],
      padding: 'x'.repeat(10 * 1024 * 1024),
    });
    expect((await api.post('/api/sboms/upload', { releaseId: release.id, content: big })).status).toBe(413);
    const small = cycloneDxSbom([]);
    expect(
      (await api.post('/api/sboms/upload', { releaseId: release.id, content: small, fileName: 'f'.repeat(256) }))
        .status,
    ).toBe(422);
  });

  it('accepts a plain 10 MB body locally', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const components = Array.from({ length: 55_000 }, (_, index) => ({
      name: `pkg${index}`,
      version: '1.0.0',
      purl: `pkg:npm/pkg${index}@1.0.0`,
    }));
    const content = cycloneDxSbom(components);
    expect(Buffer.byteLength(content)).toBeGreaterThan(8 * 1024 * 1024);
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(10 * 1024 * 1024);
    const response = await api.post('/api/sboms/upload', { releaseId: release.id, content });
    expect(response.status).toBe(201);
    expect(response.body.data.component_count).toBe(55_000);
  });

  it('sanitises the download file name (no header injection, RFC 6266 filename*)', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const content = cycloneDxSbom([]);
    // A line break never gets stored: file names are one line.
    const injected = 'évil"\r\nX-Injected: yes;.json';
    expect((await api.post('/api/sboms/upload', { releaseId: release.id, content, fileName: injected })).status).toBe(
      422,
    );
    const fileName = 'évil" X-Injected: yes;\\..%2F.json';
    const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content, fileName })).body.data;
    const download = await api.get(`/api/sboms/${sbom.id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get('x-injected')).toBeNull();
    const disposition = download.headers.get('content-disposition') ?? '';
    expect(disposition).toMatch(/^attachment; filename="[^"\r\n\\%;]*"; filename\*=UTF-8''/);
    expect(disposition).toContain("filename*=UTF-8''%C3%A9vil%22%20X-Injected%3A%20yes%3B_..%252F.json");
  });

  it("returns 404 for another team's release, SBOM, download and vulnerabilities", async () => {
    const owner = await createTeamWithKey();
    const intruder = await createTeamWithKey();
    const release = await releaseFor(owner.api);
    const sbom = (await owner.api.post('/api/sboms/upload', { releaseId: release.id, content: cycloneDxSbom([]) })).body
      .data;
    expect(
      (await intruder.api.post('/api/sboms/upload', { releaseId: release.id, content: cycloneDxSbom([]) })).status,
    ).toBe(404);
    expect((await intruder.api.get(`/api/sboms/${sbom.id}/download`)).status).toBe(404);
    expect((await intruder.api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).status).toBe(404);
    expect((await intruder.api.post('/api/cve-scan', { sbomId: sbom.id })).status).toBe(404);
    expect(
      (await intruder.api.post('/api/sboms/upload', { releaseId: randomUUID(), content: cycloneDxSbom([]) })).status,
    ).toBe(404);
  });
});
