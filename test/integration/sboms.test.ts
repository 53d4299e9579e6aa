/** Every SBOM fixture through the API: the format detected, the components counted, the file downloaded byte for byte, scanned. */
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createTeamWithKey } from '../support/factories';
import { SBOM_FIXTURES, releaseFor } from '../support/sbom-uploads';

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
  ...Object.entries(COMMITTED).map(([file, expected]) => ({ file, path: join(SBOM_FIXTURES, file), ...expected })),
  ...(existsSync(SHARED_DIR)
    ? Object.entries(SHARED_ONLY).map(([file, expected]) => ({ file, path: join(SHARED_DIR, file), ...expected }))
    : []),
];

describe('SBOM upload, download and scan', () => {
  it('covers every committed fixture', () => {
    expect(readdirSync(SBOM_FIXTURES).sort()).toEqual(Object.keys(COMMITTED).sort());
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
});
