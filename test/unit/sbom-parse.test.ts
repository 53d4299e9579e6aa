import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parseSbom } from '../../shared/service/sbom/parse';
import { SbomRejectedError } from '../../shared/service/sbom/sbom-rejected-error';

const fixture = (name: string): Buffer =>
  readFileSync(fileURLToPath(new URL(`../fixtures/sboms/${name}`, import.meta.url)));

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
    const sbom = parseSbom(fixture(file));

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
      const sbom = parseSbom(fixture(file));

      const skipped = sbom.skipped.reduce((sum, entry) => sum + entry.count, 0);
      expect(sbom.components.length + skipped).toBe(entries);
      for (const entry of sbom.skipped) expect(entry.examples.length).toBeGreaterThan(0);
    },
  );

  it('gives every component a unique ref and a name', () => {
    for (const { file } of fixtures) {
      const { components } = parseSbom(fixture(file));
      expect(new Set(components.map((c) => c.ref)).size).toBe(components.length);
      expect(components.every((c) => c.name.length > 0)).toBe(true);
    }
  });

  it('accepts a string as well as a Buffer, and ignores a UTF-8 byte order mark', () => {
    const text = fixture('handmade_cyclonedx-1.3_cpe-only.json').toString('utf8');

    expect(parseSbom(`\uFEFF${text}`).components).toHaveLength(9);
  });
});

describe('CycloneDX inventory rules', () => {
  const sbom = parseSbom(fixture('handmade_cyclonedx-1.2_nested-assemblies.json'));
  const byName = (name: string) => sbom.components.filter((c) => c.name === name);

  it('walks nested components depth-first in document order, metadata first', () => {
    expect(sbom.components.map((c) => c.name)).toEqual([
      'acme-portal-theme',
      'express',
      'body-parser',
      'qs',
      'path-to-regexp',
      'ui-kit',
      'minimist',
      'vendored-framework',
      'lodash',
      'static/vendor.min.js',
    ]);
  });

  it('leaves out metadata.component and its repetition in components, counted as the document subject', () => {
    expect(byName('acme-portal')).toHaveLength(0);
    expect(sbom.skipped.find((entry) => entry.reason === 'document_subject')).toEqual({
      reason: 'document_subject',
      count: 2,
      examples: ['acme-portal@1.4.0', 'acme-portal@1.4.0'],
    });
  });

  it('keeps one qs for a repeated bom-ref and a repeated purl, merging the duplicate licences', () => {
    expect(byName('qs')).toEqual([
      {
        ref: 'pkg:npm/qs@6.11.0',
        name: 'qs',
        version: '6.11.0',
        purl: 'pkg:npm/qs@6.11.0',
        cpes: [],
        licenses: ['BSD-3-Clause'],
        type: 'library',
      },
    ]);
  });

  it('reads licence ids, names and expressions and skips empty license objects', () => {
    expect(byName('express')[0]?.licenses).toEqual(['MIT']);
    expect(byName('body-parser')[0]?.licenses).toEqual([]);
    expect(byName('path-to-regexp')[0]?.licenses).toEqual(['MIT']);
    expect(byName('lodash')[0]?.licenses).toEqual(['MIT License']);
  });

  it('gives components without bom-ref a stable path-based ref and keeps group', () => {
    expect(byName('ui-kit')[0]).toMatchObject({
      ref: 'components[4]',
      group: '@acme',
      purl: 'pkg:npm/%40acme/ui-kit@2.0.0',
    });
    expect(byName('minimist')[0]).toEqual({
      ref: 'components[5]',
      name: 'minimist',
      version: '1.2.5',
      cpes: [],
      licenses: [],
      type: 'library',
    });
  });

  it('drops a malformed purl but keeps the component', () => {
    expect(byName('static/vendor.min.js')[0]).toEqual({
      ref: 'unknown-file',
      name: 'static/vendor.min.js',
      cpes: [],
      licenses: [],
      type: 'file',
    });
  });

  it('collects CPE 2.2 and 2.3 identifiers of purl-less components', () => {
    const cpeOnly = parseSbom(fixture('handmade_cyclonedx-1.3_cpe-only.json'));

    expect(cpeOnly.components.every((c) => c.purl === undefined && c.cpes.length === 1)).toBe(true);
    expect(cpeOnly.components.find((c) => c.name === 'lodash')?.cpes).toEqual([
      'cpe:/a:lodash:lodash:4.17.15::~~node.js~~',
    ]);
  });

  it('adds syft:cpe23 properties to the component CPEs', () => {
    const plone = parseSbom(fixture('cyclonedx-1.5_multi_syft-0.96.0_plone-5.2-image.json'));

    expect(plone.components.filter((c) => c.cpes.length > 1).length).toBeGreaterThan(0);
  });
});

describe('SPDX inventory rules', () => {
  it('excludes the package a DESCRIBES relationship names and reads purl and CPE externalRefs', () => {
    const sbom = parseSbom(fixture('handmade_spdx-2.3_describes-relationship.json'));

    expect(sbom.components.map((c) => c.name)).toEqual([
      'Flask',
      'Django',
      'Pillow',
      'urllib3',
      'github.com/docker/distribution',
      'zlib',
      'static/app.bundle.js',
    ]);
    expect(sbom.components[0]).toEqual({
      ref: 'SPDXRef-Package-python-Flask-1',
      name: 'Flask',
      version: '2.0.1',
      purl: 'pkg:pypi/Flask@2.0.1',
      cpes: ['cpe:2.3:a:palletsprojects:flask:2.0.1:*:*:*:*:python:*:*'],
      licenses: ['BSD-3-Clause'],
    });
    expect(sbom.components.find((c) => c.name === 'zlib')).toMatchObject({
      cpes: ['cpe:/a:zlib:zlib:1.2.11'],
      licenses: ['Zlib'],
    });
    expect(sbom.components.find((c) => c.name === 'static/app.bundle.js')?.purl).toBeUndefined();
  });

  it('excludes documentDescribes packages and accepts both PACKAGE-MANAGER spellings', () => {
    const sbom = parseSbom(fixture('handmade_spdx-2.2_document-describes.json'));

    expect(sbom.components.map((c) => c.purl)).toEqual([
      'pkg:nuget/Newtonsoft.Json@12.0.3',
      'pkg:nuget/Moment.js@2.29.1',
      'pkg:nuget/System.Text.Json@6.0.0',
      'pkg:nuget/Microsoft.Extensions.Logging@6.0.0',
      undefined,
    ]);
    expect(sbom.tools).toEqual([{ name: 'Microsoft.SBOMTool', version: '1.1.1' }]);
  });
});

describe('nothing dropped silently (issue 9, defect 8)', () => {
  it('keeps every package of an SPDX document that DESCRIBES each of them (a flat list): log4j-core 2.12.1 is scanned', () => {
    // Before: component_count 0 and a "completed" scan with no findings.
    const sbom = parseSbom(fixture('handmade_spdx-2.3_flat-describes-log4j.json'));

    expect(sbom.components.map((c) => c.purl)).toEqual([
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.12.1',
      'pkg:maven/org.apache.logging.log4j/log4j-api@2.12.1',
      'pkg:maven/org.slf4j/slf4j-api@1.7.30',
    ]);
    expect(sbom.skipped).toEqual([]);
    expect(
      parseSbom(fixture('spdx-2.3_pypi_sbom4python-0.12.0_requirements-flat-describes.json')).components.map(
        (c) => c.name,
      ),
    ).toEqual(['lib4sbom', 'sbom4files', 'sbom2dot', 'lib4package', 'importlib_metadata', 'toml']);
  });

  it('excludes a described package only when it is the single root of others', () => {
    const doc = (relationships: object[]) =>
      JSON.stringify({
        spdxVersion: 'SPDX-2.3',
        SPDXID: 'SPDXRef-DOCUMENT',
        packages: [
          { SPDXID: 'SPDXRef-app', name: 'app' },
          { SPDXID: 'SPDXRef-lib', name: 'lib' },
          { SPDXID: 'SPDXRef-other', name: 'other' },
        ],
        relationships,
      });
    const describes = (id: string) => ({
      spdxElementId: 'SPDXRef-DOCUMENT',
      relationshipType: 'DESCRIBES',
      relatedSpdxElement: id,
    });
    const names = (content: string) => parseSbom(content).components.map((c) => c.name);

    // The single described package contains another: it is the subject.
    expect(
      names(
        doc([
          describes('SPDXRef-app'),
          { spdxElementId: 'SPDXRef-app', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-lib' },
        ]),
      ),
    ).toEqual(['lib', 'other']);
    // The inverse spelling ties it just the same.
    expect(
      names(
        doc([
          describes('SPDXRef-app'),
          { spdxElementId: 'SPDXRef-lib', relationshipType: 'DEPENDENCY_OF', relatedSpdxElement: 'SPDXRef-app' },
        ]),
      ),
    ).toEqual(['lib', 'other']);
    // Described but the root of nothing: a component like the others.
    expect(names(doc([describes('SPDXRef-app')]))).toEqual(['app', 'lib', 'other']);
    // Two described roots: neither is "the" subject.
    expect(
      names(
        doc([
          describes('SPDXRef-app'),
          describes('SPDXRef-lib'),
          { spdxElementId: 'SPDXRef-app', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-other' },
        ]),
      ),
    ).toEqual(['app', 'lib', 'other']);
  });

  it('keeps the components nested under CycloneDX metadata.component: jackson-databind is scanned', () => {
    const sbom = parseSbom(fixture('handmade_cyclonedx-1.5_subject-subcomponents.json'));

    expect(sbom.components.map((c) => [c.name, c.version, c.ref])).toEqual([
      ['jackson-databind', '2.10.3', 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.3?type=jar'],
      ['jackson-annotations', '2.10.3', 'pkg:maven/com.fasterxml.jackson.core/jackson-annotations@2.10.3?type=jar'],
      ['slf4j-api', '1.7.30', 'pkg:maven/org.slf4j/slf4j-api@1.7.30?type=jar'],
    ]);
    expect(sbom.subject).toEqual({ name: 'acme-orders', version: '2.0.0' });
    expect(sbom.skipped).toEqual([{ reason: 'document_subject', count: 1, examples: ['acme-orders@2.0.0'] }]);
  });

  it('keeps two different components that share a bom-ref (snakeyaml), and merges a true repetition as a counted duplicate', () => {
    const sbom = parseSbom(fixture('handmade_cyclonedx-1.4_shared-bom-ref.json'));

    expect(sbom.components).toEqual([
      {
        ref: 'maven-dependency',
        name: 'commons-io',
        version: '2.6',
        purl: 'pkg:maven/commons-io/commons-io@2.6',
        cpes: [],
        licenses: ['Apache-2.0'],
        group: 'commons-io',
        type: 'library',
      },
      {
        ref: 'maven-dependency#2',
        name: 'snakeyaml',
        version: '1.26',
        purl: 'pkg:maven/org.yaml/snakeyaml@1.26',
        cpes: [],
        licenses: [],
        group: 'org.yaml',
        type: 'library',
      },
    ]);
    expect(sbom.skipped).toEqual([
      { reason: 'document_subject', count: 1, examples: ['acme-config-service'] },
      { reason: 'duplicate', count: 1, examples: ['maven-dependency'] },
    ]);
  });

  it('counts entries it cannot use, with the reason and where they are', () => {
    const sbom = parseSbom(
      JSON.stringify({
        bomFormat: 'CycloneDX',
        specVersion: '1.6',
        components: [null, { type: 'library', description: 'no name, purl or cpe' }, { name: 'kept' }],
      }),
    );

    expect(sbom.components.map((c) => c.name)).toEqual(['kept']);
    expect(sbom.skipped).toEqual([
      { reason: 'not_an_object', count: 1, examples: ['components[0]'] },
      { reason: 'no_identity', count: 1, examples: ['components[1]'] },
    ]);
  });

  it('counts the subtrees cut off below the nesting limit', () => {
    let node: Record<string, unknown> = { name: 'leaf-a' };
    node = { name: 'deepest', components: [node, { name: 'leaf-b' }] };
    for (let depth = 0; depth < 64; depth++) node = { name: `level-${depth}`, components: [node] };

    const sbom = parseSbom(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [node] }));

    expect(sbom.components).toHaveLength(65);
    expect(sbom.skipped).toEqual([
      { reason: 'nesting_too_deep', count: 2, examples: [expect.stringMatching(/^components\[0\]\.components\[0\]/)] },
    ]);
  });
});

describe('CycloneDX 1.7', () => {
  it('reads the current release like the earlier ones (composer purls with a v prefix, trivy distro qualifiers)', () => {
    const laravel = parseSbom(fixture('cyclonedx-1.7_composer_cyclonedx-php-composer_laravel-7.12.0-demo.json'));
    const fluentd = parseSbom(fixture('cyclonedx-1.7_deb-gem_trivy_fluentd-multiple-lockfiles-image.json'));

    expect(laravel.components.find((c) => c.name === 'framework')).toMatchObject({
      group: 'laravel',
      version: 'v7.30.6',
      purl: 'pkg:composer/laravel/framework@v7.30.6',
    });
    expect(
      fluentd.components.filter((c) => c.purl?.startsWith('pkg:deb/debian/') && c.purl.includes('distro=debian-10.2'))
        .length,
    ).toBeGreaterThan(100);
  });
});

describe('CycloneDX XML', () => {
  it('reads components with group, purl, licences and type, like the JSON encoding', () => {
    const hadoop = parseSbom(fixture('cyclonedx-1.4_maven_cyclonedx-maven-plugin-2.7.10_hadoop-aliyun-3.4.1.xml'));

    expect(hadoop.components.find((c) => c.name === 'jackson-databind')).toEqual({
      ref: 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.12.7.1?type=jar',
      name: 'jackson-databind',
      version: '2.12.7.1',
      purl: 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.12.7.1?type=jar',
      cpes: [],
      licenses: ['Apache-2.0'],
      group: 'com.fasterxml.jackson.core',
      type: 'library',
    });
    expect(hadoop.tools).toEqual([{ name: 'CycloneDX Maven plugin', version: '2.7.10' }]);
  });

  it('reads 1.5+ tool components, percent-encoded scoped purls and decoded entities', () => {
    const npm = parseSbom(fixture('cyclonedx-1.6_npm_cyclonedx-npm-3.1.0_demo-deps-from-git.xml'));

    expect(npm.tools.map((t) => t.name)).toEqual(['npm', 'cyclonedx-library', 'cyclonedx-npm']);
    const fromGit = npm.components.filter((c) => c.name === 'cyclonedx-library');
    expect(fromGit.length).toBeGreaterThan(1);
    // The file writes `&amp;` between qualifiers; the inventory holds the decoded purl.
    expect(npm.components.every((c) => c.purl === undefined || !c.purl.includes('&amp;'))).toBe(true);
    expect(fromGit[0]?.purl).toMatch(/^pkg:npm\/%40cyclonedx\/cyclonedx-library@/);
  });

  const xml = (body: string, namespace = 'xmlns="http://cyclonedx.org/schema/bom/1.7"') =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<bom ${namespace} version="1">${body}</bom>`;

  it('reads every version 1.2-1.7 from the namespace, a prefixed namespace, nested components, properties and expressions', () => {
    const body = `<components><component type="library" bom-ref="a"><name>a &amp; b</name><version>1.0</version><licenses><expression>MIT OR Apache-2.0</expression></licenses>
      <properties><property name="syft:cpe23">cpe:2.3:a:a:a:1.0:*:*:*:*:*:*:*</property></properties>
      <components><component type="library"><name>child</name><purl>pkg:npm/child@2.0.0</purl></component></components></component></components>`;

    for (const version of ['1.2', '1.3', '1.4', '1.5', '1.6', '1.7']) {
      expect(parseSbom(xml(body, `xmlns="http://cyclonedx.org/schema/bom/${version}"`)).specVersion).toBe(version);
    }
    const sbom = parseSbom(
      xml(body.replaceAll('<', '<c:').replaceAll('<c:/', '</c:'), 'xmlns:c="http://cyclonedx.org/schema/bom/1.6"')
        .replace('<bom', '<c:bom')
        .replace('</bom>', '</c:bom>'),
    );
    expect(sbom.components).toEqual([
      {
        ref: 'a',
        name: 'a & b',
        version: '1.0',
        cpes: ['cpe:2.3:a:a:a:1.0:*:*:*:*:*:*:*'],
        licenses: ['MIT OR Apache-2.0'],
        type: 'library',
      },
      {
        ref: 'components[0].components[0]',
        name: 'child',
        version: '2.0.0',
        purl: 'pkg:npm/child@2.0.0',
        cpes: [],
        licenses: [],
        type: 'library',
      },
    ]);
  });

  it.each([
    ['an XML document that is not a BOM', '<?xml version="1.0"?><project/>', /root element <bom>/],
    ['a BOM outside the CycloneDX namespace', '<bom xmlns="urn:example"><components/></bom>', /namespace/],
    [
      'CycloneDX XML 1.1',
      xml('<components/>', 'xmlns="http://cyclonedx.org/schema/bom/1.1"'),
      /specVersion 1\.1 is not supported/,
    ],
    ['malformed XML', xml('<components><component></components>'), /not well-formed XML \(line/],
    ['a BOM without components', xml('<metadata/>'), /no components array/],
    [
      'a DOCTYPE (no DTD in CycloneDX, so no entities to expand)',
      `<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY a "x">]>${xml('<components/>')}`,
      /DOCTYPE/,
    ],
  ])('rejects %s with a 422 naming the problem', (_label, content, reason) => {
    expect(() => parseSbom(content)).toThrow(SbomRejectedError);
    expect(() => parseSbom(content)).toThrow(reason);
  });
});

describe('SPDX tag-value', () => {
  it('reads packages, purl and CPE external references, licences and purposes like the JSON encoding', () => {
    const cveBinTool = parseSbom(fixture('spdx-2.3_pypi_sbom4python-0.10.4_cve-bin-tool-3.3.spdx'));

    expect(cveBinTool.components.find((c) => c.name === 'aiohttp')).toEqual({
      ref: 'SPDXRef-Package-2-aiohttp',
      name: 'aiohttp',
      version: '3.9.4',
      purl: 'pkg:pypi/aiohttp@3.9.4',
      cpes: [],
      licenses: ['Apache-2.0'],
      type: 'library',
    });
    expect(cveBinTool.components.find((c) => c.name === 'attrs')).toEqual({
      ref: 'SPDXRef-Package-6-attrs',
      name: 'attrs',
      version: '23.2.0',
      purl: 'pkg:pypi/attrs@23.2.0',
      cpes: ['cpe:2.3:a:hynek_schlawack:attrs:23.2.0:*:*:*:*:*:*:*'],
      licenses: [],
      type: 'library',
    });
    expect(cveBinTool.tools).toEqual([{ name: 'sbom4python', version: '0.10.4' }]);
  });

  it('reads the k8s bom layout: CONTAINS relationships, PACKAGE-MANAGER spelling, purl-less layer packages', () => {
    const nginx = parseSbom(fixture('spdx-2.2_deb_k8s-bom_nginx-image.spdx'));

    expect(nginx.components.filter((c) => c.purl?.startsWith('pkg:deb/')).length).toBeGreaterThan(900);
    expect(nginx.components.some((c) => c.purl === undefined)).toBe(true);
  });

  const tagValue = (lines: string[]) =>
    ['SPDXVersion: SPDX-2.3', 'SPDXID: SPDXRef-DOCUMENT', 'DocumentName: t', ...lines].join('\r\n');

  it("joins multi-line <text> values, skips comments, and gives a file section's SPDXID to the file", () => {
    const sbom = parseSbom(
      tagValue([
        '# a comment',
        '',
        'PackageName: left-pad',
        'SPDXID: SPDXRef-left-pad',
        'PackageVersion: 1.3.0',
        'PackageComment: <text>spans',
        'Tag: looking: lines',
        '</text>',
        'ExternalRef: PACKAGE-MANAGER purl pkg:npm/left-pad@1.3.0',
        'FileName: ./index.js',
        'SPDXID: SPDXRef-file',
      ]),
    );

    expect(sbom.components).toEqual([
      {
        ref: 'SPDXRef-left-pad',
        name: 'left-pad',
        version: '1.3.0',
        purl: 'pkg:npm/left-pad@1.3.0',
        cpes: [],
        licenses: [],
      },
    ]);
    expect(sbom.encoding).toBe('tag-value');
  });

  it.each([
    ['a line that is not "Tag: value"', tagValue(['PackageName: x', 'just words']), /line 5 is not "Tag: value"/],
    [
      'an unclosed <text>',
      tagValue(['PackageName: x', 'PackageComment: <text>never closed']),
      /line 5: <text> is never closed/,
    ],
    [
      'a package with two versions',
      tagValue(['PackageName: x', 'PackageVersion: 1', 'PackageVersion: 2']),
      /PackageVersion given twice/,
    ],
    ['a malformed Relationship', tagValue(['Relationship: SPDXRef-DOCUMENT DESCRIBES']), /Relationship needs/],
    ['a malformed ExternalRef', tagValue(['PackageName: x', 'ExternalRef: purl']), /ExternalRef needs/],
    ['SPDX 2.1 tag-value', tagValue([]).replace('SPDX-2.3', 'SPDX-2.1'), /SPDX version SPDX-2\.1 is not supported/],
  ])('rejects %s with the line', (_label, content, reason) => {
    expect(() => parseSbom(content)).toThrow(SbomRejectedError);
    expect(() => parseSbom(content)).toThrow(reason);
  });
});

describe('legacy purls', () => {
  it('maps old syft pkg:dotnet purls to NuGet, CycloneDX and SPDX alike', () => {
    const cdx = parseSbom(
      JSON.stringify({
        bomFormat: 'CycloneDX',
        specVersion: '1.4',
        components: [
          { type: 'library', name: 'Newtonsoft.Json', version: '12.0.3', purl: 'pkg:dotnet/Newtonsoft.Json@12.0.3' },
        ],
      }),
    );
    const spdx = parseSbom(
      tagValue([
        'PackageName: Newtonsoft.Json',
        'SPDXID: SPDXRef-nj',
        'ExternalRef: PACKAGE-MANAGER purl pkg:dotnet/Newtonsoft.Json@12.0.3',
      ]),
    );

    expect(cdx.components[0]?.purl).toBe('pkg:nuget/Newtonsoft.Json@12.0.3');
    expect(spdx.components[0]?.purl).toBe('pkg:nuget/Newtonsoft.Json@12.0.3');
  });

  const tagValue = (lines: string[]) => ['SPDXVersion: SPDX-2.3', 'SPDXID: SPDXRef-DOCUMENT', ...lines].join('\n');
});

describe('format detection', () => {
  it('answers a file that is none of the accepted formats with a 422 naming them', () => {
    const content = 'name,version\nlodash,4.17.20\n';

    expect(() => parseSbom(content, 'deps.csv')).toThrow(
      'not a supported SBOM format (file name "deps.csv"): accepted are CycloneDX 1.2-1.7 (JSON or XML), SPDX 2.2/2.3 (JSON or tag-value)',
    );
  });

  it("takes a .spdx name as a hint: a tag-value file with a bad first line gets the tag-value parser's answer", () => {
    expect(() => parseSbom('DocumentName: x\nSPDXID: SPDXRef-DOCUMENT\n', 'app.spdx')).toThrow('without SPDXVersion');
  });

  it('decides by content, not by name: JSON named .xml is read as JSON', () => {
    expect(parseSbom(fixture('handmade_cyclonedx-1.3_cpe-only.json'), 'bom.xml').encoding).toBe('json');
  });
});

describe('parseSbom rejections', () => {
  const reject = (content: string) => () => parseSbom(content);

  it.each([
    ['not JSON', '{"bomFormat": "CycloneDX",', /not valid JSON/],
    ['a JSON array', '[1, 2]', /not a JSON object/],
    ['JSON null', 'null', /not a JSON object/],
    ['an unknown JSON document', '{"hello": "world"}', /not a supported SBOM format/],
    [
      'CycloneDX 1.1',
      '{"bomFormat": "CycloneDX", "specVersion": "1.1", "components": []}',
      /specVersion 1\.1 is not supported/,
    ],
    [
      'CycloneDX 2.0',
      '{"bomFormat": "CycloneDX", "specVersion": "2.0", "components": []}',
      /specVersion 2\.0 is not supported/,
    ],
    ['CycloneDX without specVersion', '{"bomFormat": "CycloneDX", "components": []}', /without specVersion/],
    [
      'CycloneDX without components',
      '{"bomFormat": "CycloneDX", "specVersion": "1.5", "metadata": {}}',
      /no components array/,
    ],
    [
      'CycloneDX with components as an object',
      '{"bomFormat": "CycloneDX", "specVersion": "1.5", "components": {}}',
      /no components array/,
    ],
    ['SPDX 2.1', '{"spdxVersion": "SPDX-2.1", "packages": []}', /SPDX version SPDX-2\.1 is not supported/],
    ['SPDX without packages', '{"spdxVersion": "SPDX-2.3", "SPDXID": "SPDXRef-DOCUMENT"}', /no packages array/],
    ['SPDX 3 JSON-LD', '{"@context": "https://spdx.org/rdf/3.0.1/spdx-context.jsonld", "@graph": []}', /SPDX 3/],
  ])('rejects %s with a typed 422 error', (_label, content, reason) => {
    expect(reject(content)).toThrow(SbomRejectedError);
    expect(reject(content)).toThrow(reason);
    try {
      parseSbom(content);
    } catch (error) {
      expect(error).toMatchObject({ status: 422, code: 'sbom_rejected' });
    }
  });

  it('accepts an empty components array', () => {
    expect(parseSbom('{"bomFormat": "CycloneDX", "specVersion": "1.4", "components": []}').components).toEqual([]);
  });

  it('never crashes on odd but valid JSON', () => {
    const odd = JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      metadata: { tools: 'syft', component: 'not-an-object' },
      components: [
        null,
        1,
        'x',
        [],
        {},
        { name: 42, version: 1.5, licenses: [{}, { license: null }, 'MIT'], components: 'nope' },
        { name: 'deep', components: [{ components: [{ purl: 'pkg:npm/leaf@1.0.0' }] }] },
        { cpe: 'cpe:/a:x:y:1' },
        { purl: 17, name: 'p' },
      ],
    });

    const sbom = parseSbom(odd);

    expect(sbom.subject).toBeNull();
    expect(sbom.toolName).toBeNull();
    expect(sbom.components.map((c) => [c.name, c.version ?? null])).toEqual([
      ['42', '1.5'],
      ['deep', null],
      ['leaf', '1.0.0'],
      ['cpe:/a:x:y:1', null],
      ['p', null],
    ]);
  });

  it('never crashes on odd SPDX packages', () => {
    const odd = JSON.stringify({
      spdxVersion: 'SPDX-2.3',
      documentDescribes: 'SPDXRef-x',
      relationships: [null, { relationshipType: 'DESCRIBES' }],
      creationInfo: { creators: 'Tool: x' },
      packages: [
        null,
        {},
        {
          SPDXID: 'SPDXRef-a',
          externalRefs: [null, { referenceType: 'purl' }, { referenceType: 'purl', referenceLocator: 'pkg:npm/a@1' }],
        },
      ],
    });

    expect(parseSbom(odd).components).toEqual([
      { ref: 'packages[1]', name: 'packages[1]', cpes: [], licenses: [] },
      { ref: 'SPDXRef-a', name: 'a', version: '1', purl: 'pkg:npm/a@1', cpes: [], licenses: [] },
    ]);
  });
});
