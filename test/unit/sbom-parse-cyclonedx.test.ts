import { describe, expect, it } from '@jest/globals';
import { parseSbom } from '../../shared/service/sbom/parse';
import { SbomRejectedError } from '../../shared/service/sbom/sbom-rejected-error';
import { sbomFixture } from '../support/sbom-fixtures';

describe('CycloneDX inventory rules', () => {
  const sbom = parseSbom(sbomFixture('handmade_cyclonedx-1.2_nested-assemblies.json'));
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
    const cpeOnly = parseSbom(sbomFixture('handmade_cyclonedx-1.3_cpe-only.json'));

    expect(cpeOnly.components.every((c) => c.purl === undefined && c.cpes.length === 1)).toBe(true);
    expect(cpeOnly.components.find((c) => c.name === 'lodash')?.cpes).toEqual([
      'cpe:/a:lodash:lodash:4.17.15::~~node.js~~',
    ]);
  });

  it('adds syft:cpe23 properties to the component CPEs', () => {
    const plone = parseSbom(sbomFixture('cyclonedx-1.5_multi_syft-0.96.0_plone-5.2-image.json'));

    expect(plone.components.filter((c) => c.cpes.length > 1).length).toBeGreaterThan(0);
  });
});

describe('CycloneDX 1.7', () => {
  it('reads the current release like the earlier ones (composer purls with a v prefix, trivy distro qualifiers)', () => {
    const laravel = parseSbom(sbomFixture('cyclonedx-1.7_composer_cyclonedx-php-composer_laravel-7.12.0-demo.json'));
    const fluentd = parseSbom(sbomFixture('cyclonedx-1.7_deb-gem_trivy_fluentd-multiple-lockfiles-image.json'));

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
    const hadoop = parseSbom(sbomFixture('cyclonedx-1.4_maven_cyclonedx-maven-plugin-2.7.10_hadoop-aliyun-3.4.1.xml'));

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
    const npm = parseSbom(sbomFixture('cyclonedx-1.6_npm_cyclonedx-npm-3.1.0_demo-deps-from-git.xml'));

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
