import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parseSbom } from '../../shared/sbom/parse';
import { SbomRejectedError } from '../../shared/sbom/sbom-rejected-error';

const fixture = (name: string): Buffer => readFileSync(fileURLToPath(new URL(`../fixtures/sboms/${name}`, import.meta.url)));

/**
 * Expected counts were computed with the jq programs in test/fixtures/README.md
 * (recursive components minus the subject, de-duplicated by bom-ref/SPDXID and
 * by valid purl), not by running parseSbom.
 */
const fixtures = [
  { file: 'cyclonedx-1.6_npm_cyclonedx-npm_demo-bundled-deps.json', format: 'CycloneDX', spec: '1.6', count: 52, tool: 'npm, cyclonedx-library, cyclonedx-npm', subject: { name: 'demo-bundled-deps', version: '0.0.0' } },
  { file: 'cyclonedx-1.6_pypi_cyclonedx-py_poetry-regression-issue702.json', format: 'CycloneDX', spec: '1.6', count: 63, tool: 'cyclonedx-py, cyclonedx-python-lib', subject: { name: 'regression-issue702', version: '0.1.0' } },
  // 611 entries; 12 list pkg:nuget/SimpleLauncherExecutable@1.1.0.14 (one package, many paths).
  { file: 'cyclonedx-1.5_multi_syft-0.96.0_plone-5.2-image.json', format: 'CycloneDX', spec: '1.5', count: 600, tool: 'syft', subject: { name: 'plone', version: '5.2' } },
  { file: 'cyclonedx-1.5_maven_cdxgen_vuln-spring.json', format: 'CycloneDX', spec: '1.5', count: 88, tool: 'cdxgen', subject: { name: 'vuln-spring', version: '0.0.1-SNAPSHOT' } },
  // 595 entries: 582 valid purls of which 251 distinct, plus 13 without a usable purl (5 none, 8 `pkg:/`).
  { file: 'cyclonedx-1.4_go-cargo-pypi_syft_sbomgr.json', format: 'CycloneDX', spec: '1.4', count: 264, tool: 'syft', subject: { name: 'sbomgr' } },
  { file: 'cyclonedx-1.5_gem-deb_syft-1.2.0_rails-5.0.0-image.json', format: 'CycloneDX', spec: '1.5', count: 445, tool: 'syft', subject: { name: 'rails', version: '5.0.0' } },
  // 23 entries; org.dom4j/dom4j@2.1.4 appears twice.
  { file: 'cyclonedx-1.6_apk-maven_trivy_test-image.json', format: 'CycloneDX', spec: '1.6', count: 22, tool: 'trivy', subject: { name: 'trivy-test-image' } },
  { file: 'handmade_cyclonedx-1.2_nested-assemblies.json', format: 'CycloneDX', spec: '1.2', count: 9, tool: 'handwritten-fixture', subject: { name: 'acme-portal', version: '1.4.0' } },
  { file: 'handmade_cyclonedx-1.3_cpe-only.json', format: 'CycloneDX', spec: '1.3', count: 9, tool: null, subject: { name: 'acme-gateway-firmware', version: '7.2.0' } },
  { file: 'handmade_spdx-2.3_describes-relationship.json', format: 'SPDX', spec: '2.3', count: 7, tool: 'syft', subject: { name: 'acme/report-service', version: '2.3.1' } },
  { file: 'handmade_spdx-2.2_document-describes.json', format: 'SPDX', spec: '2.2', count: 5, tool: 'Microsoft.SBOMTool', subject: { name: 'Acme.Billing', version: '3.0.0' } },
] as const;

describe('parseSbom on real and hand-written fixtures', () => {
  it.each(fixtures)('detects $format $spec and extracts $count components from $file', ({ file, format, spec, count, tool, subject }) => {
    const sbom = parseSbom(fixture(file));

    expect(sbom.format).toBe(format);
    expect(sbom.specVersion).toBe(spec);
    expect(sbom.components).toHaveLength(count);
    expect(sbom.toolName).toBe(tool);
    expect(sbom.subject).toEqual(subject);
  });

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

  it('walks nested components depth-first in document order', () => {
    expect(sbom.components.map((c) => c.name)).toEqual([
      'express', 'body-parser', 'qs', 'path-to-regexp', 'ui-kit', 'minimist', 'vendored-framework', 'lodash', 'static/vendor.min.js',
    ]);
  });

  it('leaves out metadata.component, its children, and its repetition in components', () => {
    expect(byName('acme-portal')).toHaveLength(0);
    expect(byName('acme-portal-theme')).toHaveLength(0);
  });

  it('keeps one qs for a repeated bom-ref and a repeated purl, merging the duplicate licences', () => {
    expect(byName('qs')).toEqual([
      { ref: 'pkg:npm/qs@6.11.0', name: 'qs', version: '6.11.0', purl: 'pkg:npm/qs@6.11.0', cpes: [], licenses: ['BSD-3-Clause'], type: 'library' },
    ]);
  });

  it('reads licence ids, names and expressions and skips empty license objects', () => {
    expect(byName('express')[0]?.licenses).toEqual(['MIT']);
    expect(byName('body-parser')[0]?.licenses).toEqual([]);
    expect(byName('path-to-regexp')[0]?.licenses).toEqual(['MIT']);
    expect(byName('lodash')[0]?.licenses).toEqual(['MIT License']);
  });

  it('gives components without bom-ref a stable path-based ref and keeps group', () => {
    expect(byName('ui-kit')[0]).toMatchObject({ ref: 'components[4]', group: '@acme', purl: 'pkg:npm/%40acme/ui-kit@2.0.0' });
    expect(byName('minimist')[0]).toEqual({ ref: 'components[5]', name: 'minimist', version: '1.2.5', cpes: [], licenses: [], type: 'library' });
  });

  it('drops a malformed purl but keeps the component', () => {
    expect(byName('static/vendor.min.js')[0]).toEqual({ ref: 'unknown-file', name: 'static/vendor.min.js', cpes: [], licenses: [], type: 'file' });
  });

  it('collects CPE 2.2 and 2.3 identifiers of purl-less components', () => {
    const cpeOnly = parseSbom(fixture('handmade_cyclonedx-1.3_cpe-only.json'));

    expect(cpeOnly.components.every((c) => c.purl === undefined && c.cpes.length === 1)).toBe(true);
    expect(cpeOnly.components.find((c) => c.name === 'lodash')?.cpes).toEqual(['cpe:/a:lodash:lodash:4.17.15::~~node.js~~']);
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
      'Flask', 'Django', 'Pillow', 'urllib3', 'github.com/docker/distribution', 'zlib', 'static/app.bundle.js',
    ]);
    expect(sbom.components[0]).toEqual({
      ref: 'SPDXRef-Package-python-Flask-1',
      name: 'Flask',
      version: '2.0.1',
      purl: 'pkg:pypi/Flask@2.0.1',
      cpes: ['cpe:2.3:a:palletsprojects:flask:2.0.1:*:*:*:*:python:*:*'],
      licenses: ['BSD-3-Clause'],
    });
    expect(sbom.components.find((c) => c.name === 'zlib')).toMatchObject({ cpes: ['cpe:/a:zlib:zlib:1.2.11'], licenses: ['Zlib'] });
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

describe('parseSbom rejections', () => {
  const reject = (content: string) => () => parseSbom(content);

  it.each([
    ['not JSON', '{"bomFormat": "CycloneDX",', /not valid JSON/],
    ['a JSON array', '[1, 2]', /not a JSON object/],
    ['JSON null', 'null', /not a JSON object/],
    ['an unknown JSON document', '{"hello": "world"}', /not a supported SBOM format/],
    ['CycloneDX 1.1', '{"bomFormat": "CycloneDX", "specVersion": "1.1", "components": []}', /specVersion 1\.1 is not supported/],
    ['CycloneDX 2.0', '{"bomFormat": "CycloneDX", "specVersion": "2.0", "components": []}', /specVersion 2\.0 is not supported/],
    ['CycloneDX without specVersion', '{"bomFormat": "CycloneDX", "components": []}', /without specVersion/],
    ['CycloneDX without components', '{"bomFormat": "CycloneDX", "specVersion": "1.5", "metadata": {}}', /no components array/],
    ['CycloneDX with components as an object', '{"bomFormat": "CycloneDX", "specVersion": "1.5", "components": {}}', /no components array/],
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
      components: [null, 1, 'x', [], {}, { name: 42, version: 1.5, licenses: [{}, { license: null }, 'MIT'], components: 'nope' },
        { name: 'deep', components: [{ components: [{ purl: 'pkg:npm/leaf@1.0.0' }] }] }, { cpe: 'cpe:/a:x:y:1' }, { purl: 17, name: 'p' }],
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
      packages: [null, {}, { SPDXID: 'SPDXRef-a', externalRefs: [null, { referenceType: 'purl' }, { referenceType: 'purl', referenceLocator: 'pkg:npm/a@1' }] }],
    });

    expect(parseSbom(odd).components).toEqual([
      { ref: 'packages[1]', name: 'packages[1]', cpes: [], licenses: [] },
      { ref: 'SPDXRef-a', name: 'a', version: '1', purl: 'pkg:npm/a@1', cpes: [], licenses: [] },
    ]);
  });
});
