import { readFileSync } from 'node:fs';

import { fileURLToPath } from 'node:url';

import { describe, expect, it } from '@jest/globals';

import {
  buildAdvisoryIndex,
  matchComponent,
  scanComponents,
  type AdvisoryIndex,
} from '../../shared/service/matching/advisory-index';

import { parseSbom } from '../../shared/service/sbom/parse';

import { component, fixtureAdvisories, fixtureIndex, ids, load, osv } from '../support/advisory-index';

const dir = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

describe('buildAdvisoryIndex', () => {
  it('drops withdrawn records', () => {
    const k8s = component({ name: 'k8s', purl: 'pkg:golang/k8s.io/kubernetes@v1.0.0' });

    expect(ids(fixtureIndex, k8s)).not.toContain('GO-2022-0617');
    expect(fixtureIndex.advisory('GO-2022-0617')).toBeUndefined();
  });

  it('reports RustSec informational notices, marked with their kind, as osv-scanner does', () => {
    const tempdir = matchComponent(component({ name: 'tempdir', purl: 'pkg:cargo/tempdir@0.3.7' }), fixtureIndex);

    expect(tempdir.findings).toEqual([
      expect.objectContaining({ advisoryId: 'RUSTSEC-2018-0017', informational: 'unmaintained' }),
    ]);
  });

  it('marks a finding informational only when every merged advisory is a notice', () => {
    const notice = osv(
      'RUSTSEC-0000-0001',
      [{ ecosystem: 'crates.io', name: 'demo-crate', events: [{ introduced: '0' }] }],
      {
        aliases: ['CVE-2099-0001'],
        affected: [
          {
            package: { ecosystem: 'crates.io', name: 'demo-crate' },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }],
            database_specific: { informational: 'unsound' },
          },
        ],
      },
    );
    const vulnerability = osv(
      'GHSA-0000-0000-0001',
      [{ ecosystem: 'crates.io', name: 'demo-crate', events: [{ introduced: '0' }] }],
      { aliases: ['CVE-2099-0001'] },
    );
    const crate = () => component({ name: 'demo-crate', purl: 'pkg:cargo/demo-crate@1.0.0' });

    expect(matchComponent(crate(), buildAdvisoryIndex([notice])).findings.map((f) => f.informational)).toEqual([
      'unsound',
    ]);
    expect(
      matchComponent(crate(), buildAdvisoryIndex([notice, vulnerability])).findings.map((f) => f.informational),
    ).toEqual([null]);
  });

  it('merges advisories for the same CVE into one finding led by the best-scored record', () => {
    const duplicate = osv(
      'PYSEC-LIKE-1',
      [
        {
          ecosystem: 'Maven',
          name: 'org.apache.logging.log4j:log4j-core',
          events: [{ introduced: '2.0' }, { fixed: '2.16.0' }],
        },
      ],
      { aliases: ['CVE-2021-44228'] },
    );
    const noCve = osv(
      'OSV-NO-CVE',
      [{ ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core', events: [{ introduced: '0' }] }],
      { aliases: ['PYSEC-LIKE-1'] },
    );
    const index = buildAdvisoryIndex([...fixtureAdvisories, duplicate, noCve]);

    const findings = matchComponent(
      component({ name: 'log4j-core', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' }),
      index,
    ).findings;

    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      advisoryId: 'GHSA-jfh8-c2jp-5v3q',
      cveId: 'CVE-2021-44228',
      relatedAdvisoryIds: ['OSV-NO-CVE', 'PYSEC-LIKE-1'],
      fixedVersions: ['2.15.0', '2.16.0'],
    });
  });

  it('applies distro advisories per release and lowers confidence when the release is unknown', () => {
    const index = buildAdvisoryIndex([
      osv('DSA-11', [
        { ecosystem: 'Debian:11', name: 'openssl', events: [{ introduced: '0' }, { fixed: '1.1.1n-0+deb11u4' }] },
      ]),
      osv('DSA-12', [
        { ecosystem: 'Debian:12', name: 'openssl', events: [{ introduced: '0' }, { fixed: '3.0.11-1~deb12u1' }] },
      ]),
    ]);
    const purl = 'pkg:deb/debian/libssl1.1@1.1.1n-0+deb11u3?arch=amd64&upstream=openssl';

    const bullseye = matchComponent(component({ name: 'libssl1.1', purl: `${purl}&distro=debian-11` }), index);
    const unknown = matchComponent(component({ name: 'libssl1.1', purl }), index);

    expect(bullseye.findings.map((f) => [f.advisoryId, f.confidence])).toEqual([['DSA-11', 'exact']]);
    expect(unknown.findings.map((f) => [f.advisoryId, f.confidence])).toEqual([
      ['DSA-11', 'high'],
      ['DSA-12', 'high'],
    ]);
  });

  it('orders Packagist versions the Composer way and honours repository suffixes', () => {
    const index = buildAdvisoryIndex([
      osv('GHSA-sym', [
        { ecosystem: 'Packagist', name: 'symfony/http-kernel', events: [{ introduced: '4.4.0' }, { fixed: '4.4.13' }] },
      ]),
      osv('DRUPAL-1', [
        { ecosystem: 'Packagist:https://packages.drupal.org/8', name: 'drupal/core', events: [{ introduced: '0' }] },
      ]),
    ]);

    expect(ids(index, component({ name: 'http-kernel', purl: 'pkg:composer/symfony/http-kernel@v4.4' }))).toEqual([
      'GHSA-sym',
    ]);
    expect(ids(index, component({ name: 'core', purl: 'pkg:composer/drupal/core@9.0.0' }))).toEqual([]);
    expect(
      ids(
        index,
        component({
          name: 'core',
          purl: 'pkg:composer/drupal/core@9.0.0?repository_url=https://packages.drupal.org/8',
        }),
      ),
    ).toEqual(['DRUPAL-1']);
  });

  it('costs one hash lookup per candidate whatever the corpus size', () => {
    const filler = Array.from({ length: 20000 }, (_, i) =>
      osv(`FILLER-${i}`, [{ ecosystem: 'npm', name: `filler-${i}`, events: [{ introduced: '0' }] }]),
    );
    const components = [
      component({ name: 'express', purl: 'pkg:npm/express@4.18.2' }),
      component({ name: 'rack', purl: 'pkg:gem/rack@2.2.3' }),
      component({ name: 'minimist', version: '1.2.5' }),
    ];
    const count = (index: AdvisoryIndex) => {
      let lookups = 0;
      const counted: AdvisoryIndex = { ...index, entriesFor: (key) => (lookups++, index.entriesFor(key)) };
      const result = scanComponents(components, counted);
      return { lookups, findings: result.findings.map((f) => f.advisoryId) };
    };

    const small = count(fixtureIndex);
    const large = count(buildAdvisoryIndex([...fixtureAdvisories, ...filler]));

    expect(large).toEqual(small);
    expect(small.lookups).toBe(3);
  });
});

describe('scanComponents over the hand-written SBOMs and the shipped sample corpus', () => {
  const sampleIndex = buildAdvisoryIndex(load(dir('../../shared/service/corpus/sample/osv')));
  const scan = (file: string) =>
    scanComponents(parseSbom(readFileSync(dir(`../fixtures/sboms/${file}`))).components, sampleIndex);
  const summary = (file: string) =>
    scan(file)
      .findings.map((f) => `${f.packageName}@${f.version} ${f.advisoryId} ${f.confidence}`)
      .sort();

  // Expected from the advisory ranges in shared/service/corpus/sample (see matching-ranges.test.ts for the range semantics).
  it('finds express, body-parser, path-to-regexp, lodash by purl and minimist by name in the nested CycloneDX', () => {
    expect(summary('handmade_cyclonedx-1.2_nested-assemblies.json')).toEqual([
      'body-parser@1.20.1 GHSA-qwcr-r2fm-qrc7 exact',
      'express@4.18.2 GHSA-rv95-896h-c2vc exact',
      'lodash@4.17.20 GHSA-35jh-r3h4-6jhm exact',
      'minimist@1.2.5 GHSA-xvch-5gv4-984h low',
      'path-to-regexp@0.1.7 GHSA-9wv6-86v2-598j exact',
    ]);
    // vendored-framework and acme-portal-theme (metadata.component's child; names only, unknown) and static/vendor.min.js (a file).
    expect(scan('handmade_cyclonedx-1.2_nested-assemblies.json').unmatchedCount).toBe(3);
  });

  it('matches four of nine CPE-only components and reports five as unmatched', () => {
    expect(summary('handmade_cyclonedx-1.3_cpe-only.json')).toEqual([
      'com.fasterxml.jackson.core:jackson-databind@2.10.3 GHSA-57j2-w4cx-62h2 high',
      'com.fasterxml.jackson.core:jackson-databind@2.10.3 GHSA-jjjh-jjxp-wpff high',
      'jsonwebtoken@8.5.1 GHSA-27h2-hvpr-p74q high',
      'lodash@4.17.15 GHSA-35jh-r3h4-6jhm high',
      'rack@2.2.3 GHSA-22f2-v57c-j9cx high',
    ]);
    // busybox, openssl, dropbear, log4j (NVD product name, not the Maven artifact) and glibc.
    expect(scan('handmade_cyclonedx-1.3_cpe-only.json').unmatchedCount).toBe(5);
  });

  it('matches the NuGet packages of the SPDX 2.2 document', () => {
    expect(summary('handmade_spdx-2.2_document-describes.json')).toEqual([
      'Moment.js@2.29.1 GHSA-8hfj-j24r-96c4 exact',
      'Newtonsoft.Json@12.0.3 GHSA-5crp-9r3c-p9vr exact',
    ]);
    expect(scan('handmade_spdx-2.2_document-describes.json').unmatchedCount).toBe(1);
  });

  it('matches the Go +incompatible module of the SPDX 2.3 document and leaves zlib (CPE only) and the bundle unmatched', () => {
    const result = scan('handmade_spdx-2.3_describes-relationship.json');

    expect(result.findings.filter((f) => f.ecosystem === 'Go').map((f) => f.advisoryId)).toEqual(['GO-2022-0379']);
    expect(result.unmatchedCount).toBe(2);
    expect(result.findings.every((f) => f.confidence === 'exact')).toBe(true);
  });
});
