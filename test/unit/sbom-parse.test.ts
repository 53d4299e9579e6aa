import { describe, expect, it } from '@jest/globals';
import { parseSbom } from '../../shared/service/sbom/parse';
import { sbomFixture } from '../support/sbom-fixtures';

/**
 * Expected counts were computed with the jq programs in test/fixtures/README.md
 * (recursive components, the subject's sub-components included, minus the subject,
 * de-duplicated by bom-ref/SPDXID and by valid purl), not by running parseSbom.
 * `entries` is every component / package the file holds (for CycloneDX, metadata.component
 * and its sub-components included): each one is in the inventory or counted in `skipped`.
 */
const fixtures = [
  {
    file: 'cyclonedx-1.6_npm_cyclonedx-npm_demo-bundled-deps.json',
    format: 'CycloneDX',
    spec: '1.6',
    count: 52,
    entries: 53,
    tool: 'npm, cyclonedx-library, cyclonedx-npm',
    subject: { name: 'demo-bundled-deps', version: '0.0.0' },
  },
  {
    file: 'cyclonedx-1.6_pypi_cyclonedx-py_poetry-regression-issue702.json',
    format: 'CycloneDX',
    spec: '1.6',
    count: 63,
    entries: 64,
    tool: 'cyclonedx-py, cyclonedx-python-lib',
    subject: { name: 'regression-issue702', version: '0.1.0' },
  },
  // 611 entries; 12 list pkg:nuget/SimpleLauncherExecutable@1.1.0.14 (one package, many paths).
  {
    file: 'cyclonedx-1.5_multi_syft-0.96.0_plone-5.2-image.json',
    format: 'CycloneDX',
    spec: '1.5',
    count: 600,
    entries: 612,
    tool: 'syft',
    subject: { name: 'plone', version: '5.2' },
  },
  {
    file: 'cyclonedx-1.5_maven_cdxgen_vuln-spring.json',
    format: 'CycloneDX',
    spec: '1.5',
    count: 88,
    entries: 89,
    tool: 'cdxgen',
    subject: { name: 'vuln-spring', version: '0.0.1-SNAPSHOT' },
  },
  // 595 entries: 582 valid purls of which 251 distinct, plus 13 without a usable purl (5 none, 8 `pkg:/`).
  {
    file: 'cyclonedx-1.4_go-cargo-pypi_syft_sbomgr.json',
    format: 'CycloneDX',
    spec: '1.4',
    count: 264,
    entries: 596,
    tool: 'syft',
    subject: { name: 'sbomgr' },
  },
  {
    file: 'cyclonedx-1.5_gem-deb_syft-1.2.0_rails-5.0.0-image.json',
    format: 'CycloneDX',
    spec: '1.5',
    count: 445,
    entries: 446,
    tool: 'syft',
    subject: { name: 'rails', version: '5.0.0' },
  },
  // 23 entries; org.dom4j/dom4j@2.1.4 appears twice.
  {
    file: 'cyclonedx-1.6_apk-maven_trivy_test-image.json',
    format: 'CycloneDX',
    spec: '1.6',
    count: 22,
    entries: 24,
    tool: 'trivy',
    subject: { name: 'trivy-test-image' },
  },
  {
    file: 'cyclonedx-1.7_composer_cyclonedx-php-composer_laravel-7.12.0-demo.json',
    format: 'CycloneDX',
    spec: '1.7',
    count: 62,
    entries: 63,
    tool: 'cyclonedx-php-composer',
    subject: { name: 'cyclonedx-php-composer-demo', version: 'dev-master' },
  },
  {
    file: 'cyclonedx-1.7_deb-gem_trivy_fluentd-multiple-lockfiles-image.json',
    format: 'CycloneDX',
    spec: '1.7',
    count: 161,
    entries: 162,
    tool: 'trivy',
    subject: { name: 'testdata/fixtures/images/fluentd-multiple-lockfiles.tar.gz' },
  },
  {
    file: 'cyclonedx-1.4_maven_cyclonedx-maven-plugin-2.7.10_hadoop-aliyun-3.4.1.xml',
    format: 'CycloneDX',
    spec: '1.4',
    encoding: 'xml',
    count: 96,
    entries: 97,
    tool: 'CycloneDX Maven plugin',
    subject: { name: 'hadoop-aliyun', version: '3.4.1' },
  },
  // 99 entries; minipass@3.3.6 is installed twice (two bom-refs, one purl).
  {
    file: 'cyclonedx-1.6_npm_cyclonedx-npm-3.1.0_demo-deps-from-git.xml',
    format: 'CycloneDX',
    spec: '1.6',
    encoding: 'xml',
    count: 98,
    entries: 100,
    tool: 'npm, cyclonedx-library, cyclonedx-npm',
    subject: { name: 'demo-deps-from-git', version: '1.0.0' },
  },
  {
    file: 'handmade_cyclonedx-1.5_maven-plugin-layout.xml',
    format: 'CycloneDX',
    spec: '1.5',
    encoding: 'xml',
    count: 3,
    entries: 4,
    tool: 'cyclonedx-maven-plugin',
    subject: { name: 'acme-web', version: '1.0.0' },
  },
  {
    file: 'handmade_cyclonedx-1.2_nested-assemblies.json',
    format: 'CycloneDX',
    spec: '1.2',
    count: 10,
    entries: 15,
    tool: 'handwritten-fixture',
    subject: { name: 'acme-portal', version: '1.4.0' },
  },
  {
    file: 'handmade_cyclonedx-1.3_cpe-only.json',
    format: 'CycloneDX',
    spec: '1.3',
    count: 9,
    entries: 10,
    tool: null,
    subject: { name: 'acme-gateway-firmware', version: '7.2.0' },
  },
  {
    file: 'handmade_cyclonedx-1.4_shared-bom-ref.json',
    format: 'CycloneDX',
    spec: '1.4',
    count: 2,
    entries: 4,
    tool: 'handwritten-fixture',
    subject: { name: 'acme-config-service', version: '3.1.0' },
  },
  {
    file: 'handmade_cyclonedx-1.5_subject-subcomponents.json',
    format: 'CycloneDX',
    spec: '1.5',
    count: 3,
    entries: 4,
    tool: 'handwritten-fixture',
    subject: { name: 'acme-orders', version: '2.0.0' },
  },
  {
    file: 'handmade_spdx-2.3_describes-relationship.json',
    format: 'SPDX',
    spec: '2.3',
    count: 7,
    entries: 9,
    tool: 'syft',
    subject: { name: 'acme/report-service', version: '2.3.1' },
  },
  {
    file: 'handmade_spdx-2.2_document-describes.json',
    format: 'SPDX',
    spec: '2.2',
    count: 5,
    entries: 6,
    tool: 'Microsoft.SBOMTool',
    subject: { name: 'Acme.Billing', version: '3.0.0' },
  },
  {
    file: 'handmade_spdx-2.3_flat-describes-log4j.json',
    format: 'SPDX',
    spec: '2.3',
    count: 3,
    entries: 3,
    tool: 'handwritten-fixture',
    subject: null,
  },
  {
    file: 'spdx-2.3_pypi_sbom4python-0.12.0_requirements-flat-describes.json',
    format: 'SPDX',
    spec: '2.3',
    count: 6,
    entries: 6,
    tool: 'sbom4python',
    subject: null,
  },
  // 1,185 packages: the described image index, and 120 repeated (the same deb purl in several platform images).
  {
    file: 'spdx-2.2_deb_k8s-bom_nginx-image.spdx',
    format: 'SPDX',
    spec: '2.2',
    encoding: 'tag-value',
    count: 1064,
    entries: 1185,
    tool: 'sigs.k8s.io/bom/pkg/spdx',
    subject: { name: 'nginx' },
  },
  {
    file: 'handmade_spdx-2.3_sbom4python-layout.spdx',
    format: 'SPDX',
    spec: '2.3',
    encoding: 'tag-value',
    count: 3,
    entries: 4,
    tool: 'handwritten-fixture',
    subject: { name: 'legacy-service', version: '1.0.0' },
  },
  {
    file: 'spdx-2.3_pypi_sbom4python-0.10.4_cve-bin-tool-3.3.spdx',
    format: 'SPDX',
    spec: '2.3',
    encoding: 'tag-value',
    count: 65,
    entries: 66,
    tool: 'sbom4python',
    subject: { name: 'cve-bin-tool', version: '3.3' },
  },
] as const;

describe('parseSbom on real and hand-written fixtures', () => {
  it.each(fixtures)('detects $format $spec and extracts $count components from $file', (testCase) => {
    const { file, format, spec, count, tool, subject } = testCase;
    const sbom = parseSbom(sbomFixture(file));

    expect(sbom.format).toBe(format);
    expect(sbom.encoding).toBe('encoding' in testCase ? testCase.encoding : 'json');
    expect(sbom.specVersion).toBe(spec);
    expect(sbom.components).toHaveLength(count);
    expect(sbom.toolName).toBe(tool);
    expect(sbom.subject).toEqual(subject);
  });

  it.each(fixtures)(
    'accounts for every one of the $entries entries of $file: in the inventory or skipped with a reason',
    ({ file, entries }) => {
      const sbom = parseSbom(sbomFixture(file));

      const skipped = sbom.skipped.reduce((sum, entry) => sum + entry.count, 0);
      expect(sbom.components.length + skipped).toBe(entries);
      for (const entry of sbom.skipped) expect(entry.examples.length).toBeGreaterThan(0);
    },
  );

  it('gives every component a unique ref and a name', () => {
    for (const { file } of fixtures) {
      const { components } = parseSbom(sbomFixture(file));
      expect(new Set(components.map((c) => c.ref)).size).toBe(components.length);
      expect(components.every((c) => c.name.length > 0)).toBe(true);
    }
  });

  it('accepts a string as well as a Buffer, and ignores a UTF-8 byte order mark', () => {
    const text = sbomFixture('handmade_cyclonedx-1.3_cpe-only.json').toString('utf8');

    expect(parseSbom(`\uFEFF${text}`).components).toHaveLength(9);
  });
});
