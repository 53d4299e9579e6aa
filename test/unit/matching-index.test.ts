import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import type { Advisory } from '../../shared/service/corpus/parse/advisory';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { readOsvDirectory } from '../../shared/service/corpus/parse/osv-archive';
import {
  buildAdvisoryIndex,
  matchComponent,
  scanComponents,
  type AdvisoryIndex,
} from '../../shared/service/matching/advisory-index';
import { findingSchema } from '../../shared/service/matching/model';
import type { SbomComponent } from '../../shared/service/sbom/model';
import { parseSbom } from '../../shared/service/sbom/parse';

const dir = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const load = (path: string): Advisory[] =>
  [...readOsvDirectory(path)].flatMap((r) => ('advisory' in r ? [r.advisory] : []));
const fixtureAdvisories = load(dir('../fixtures/corpus/osv'));
const fixtureIndex = buildAdvisoryIndex(fixtureAdvisories);

let componentCounter = 0;
function component(fields: Partial<SbomComponent> & { name: string }): SbomComponent {
  componentCounter++;
  return { ref: `c${componentCounter}`, cpes: [], licenses: [], ...fields };
}

function osv(
  id: string,
  affected: { ecosystem: string; name: string; events: Record<string, string>[] }[],
  extra: Record<string, unknown> = {},
): Advisory {
  return parseOsvAdvisory({
    id,
    modified: '2024-01-01T00:00:00Z',
    affected: affected.map((a) => ({
      package: { ecosystem: a.ecosystem, name: a.name },
      ranges: [{ type: 'ECOSYSTEM', events: a.events }],
    })),
    ...extra,
  });
}

const ids = (index: AdvisoryIndex, c: SbomComponent) =>
  matchComponent(c, index)
    .findings.map((f) => f.advisoryId)
    .sort();

describe('matchComponent by purl', () => {
  it('reports an exact match with the CVE, the human-readable ranges and the upgrade targets', () => {
    const match = matchComponent(
      component({ name: 'express', version: '4.18.2', purl: 'pkg:npm/express@4.18.2' }),
      fixtureIndex,
    );

    expect(match).toMatchObject({
      mapped: true,
      ecosystem: 'npm',
      packageName: 'express',
      version: '4.18.2',
      indeterminate: [],
    });
    expect(match.findings).toEqual([
      {
        componentRef: match.componentRef,
        advisoryId: 'GHSA-rv95-896h-c2vc',
        cveId: 'CVE-2024-29041',
        relatedAdvisoryIds: [],
        confidence: 'exact',
        evidence: { kind: 'purl', value: 'pkg:npm/express@4.18.2' },
        ecosystem: 'npm',
        packageName: 'express',
        version: '4.18.2',
        affectedRanges: '<4.19.2; >=5.0.0-alpha.1, <5.0.0-beta.3',
        fixedVersions: ['4.19.2', '5.0.0-beta.3'],
        informational: null,
      },
    ]);
    expect(findingSchema.parse(match.findings[0])).toBeDefined();
  });

  it('reports nothing for a fixed version, but still counts the component as mapped', () => {
    const match = matchComponent(component({ name: 'express', purl: 'pkg:npm/express@4.19.2' }), fixtureIndex);

    expect(match).toMatchObject({ mapped: true, findings: [], indeterminate: [] });
  });

  it.each([
    ['PyPI, PEP 503 name', 'pkg:pypi/Django@1.4.5', ['PYSEC-2014-19']],
    ['NuGet, case-insensitive', 'pkg:nuget/newtonsoft.json@12.0.3', ['GHSA-5crp-9r3c-p9vr']],
    [
      'Maven group:artifact with qualifiers',
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar',
      ['GHSA-jfh8-c2jp-5v3q'],
    ],
    [
      'Go module with an encoded +incompatible',
      'pkg:golang/github.com/docker/distribution@v2.7.1%2Bincompatible',
      ['GO-2022-0379'],
    ],
    ['Go stdlib', 'pkg:golang/stdlib@go1.17.7', ['GO-2021-0347']],
    ['crates.io', 'pkg:cargo/lettre@0.10.0-rc.2', ['RUSTSEC-2021-0069']],
    ['RubyGems', 'pkg:gem/rack@2.2.3', ['GHSA-22f2-v57c-j9cx']],
    ['npm, two advisories', 'pkg:npm/y18n@4.0.0', ['GHSA-c4w7-xm78-47vh']],
  ])('maps %s', (_label, purl, expected) => {
    expect(ids(fixtureIndex, component({ name: 'x', purl }))).toEqual(expected);
  });

  it('keeps two CVEs apart even when their records share an alias', () => {
    const match = matchComponent(component({ name: 'Zope', purl: 'pkg:pypi/zope@5.1.3' }), fixtureIndex);

    expect(match.findings.map((f) => [f.advisoryId, f.cveId])).toEqual([
      ['PYSEC-2021-104', 'CVE-2021-32674'],
      ['PYSEC-2021-88', 'CVE-2021-32633'],
    ]);
  });

  it('lists advisories it cannot evaluate when the version is missing or unorderable', () => {
    expect(matchComponent(component({ name: 'express', purl: 'pkg:npm/express' }), fixtureIndex)).toMatchObject({
      mapped: true,
      findings: [],
      indeterminate: ['GHSA-rv95-896h-c2vc'],
    });
    expect(
      matchComponent(component({ name: 'k8s', purl: 'pkg:golang/k8s.io/kubernetes@(devel)' }), fixtureIndex)
        .indeterminate.length,
    ).toBeGreaterThan(0);
  });

  it('maps a known purl type without advisories, but not unsupported purl types', () => {
    expect(matchComponent(component({ name: 'left-pad', purl: 'pkg:npm/left-pad@1.3.0' }), fixtureIndex)).toMatchObject(
      { mapped: true, findings: [] },
    );
    expect(
      matchComponent(component({ name: 'openssl', version: '1.1.1', purl: 'pkg:generic/openssl@1.1.1' }), fixtureIndex)
        .mapped,
    ).toBe(false);
    expect(matchComponent(component({ name: 'x', purl: 'pkg:maven/no-group@1.0' }), fixtureIndex).mapped).toBe(false);
  });
});

describe('matchComponent by CPE', () => {
  it.each([
    [
      'target_sw node.js pins npm',
      'cpe:2.3:a:jsonwebtoken_project:jsonwebtoken:8.5.1:*:*:*:*:node.js:*:*',
      ['GHSA-27h2-hvpr-p74q'],
    ],
    ['CPE 2.2 with packed target_sw', 'cpe:/a:lodash:lodash:4.17.15::~~node.js~~', ['GHSA-35jh-r3h4-6jhm']],
    [
      'vendor found in the Maven group',
      'cpe:2.3:a:fasterxml:jackson-databind:2.10.3:*:*:*:*:*:*:*',
      ['GHSA-57j2-w4cx-62h2', 'GHSA-jjjh-jjxp-wpff'],
    ],
    ['target_sw ruby pins RubyGems', 'cpe:2.3:a:rack_project:rack:2.2.3:*:*:*:*:ruby:*:*', ['GHSA-22f2-v57c-j9cx']],
  ])('matches with high confidence when %s', (_label, cpe, expected) => {
    const match = matchComponent(component({ name: 'x', cpes: [cpe] }), fixtureIndex);

    expect(match.mapped).toBe(true);
    expect(match.findings.map((f) => f.advisoryId).sort()).toEqual(expected);
    expect(
      match.findings.every((f) => f.confidence === 'high' && f.evidence.kind === 'cpe' && f.evidence.value === cpe),
    ).toBe(true);
  });

  it('does not take a bare product name as evidence: the OpenSSL C library is not the openssl crate', () => {
    expect(fixtureIndex.hasPackage('crates.io\u0000openssl')).toBe(true);

    const match = matchComponent(
      component({ name: 'openssl', version: '1.0.2', cpes: ['cpe:/a:openssl:openssl:1.0.2'] }),
      fixtureIndex,
    );

    expect(match).toMatchObject({ mapped: false, findings: [] });
  });

  it('uses the component version when the CPE version is ANY, and ignores operating-system CPEs', () => {
    expect(
      ids(
        fixtureIndex,
        component({ name: 'lodash', version: '4.17.20', cpes: ['cpe:2.3:a:lodash:lodash:*:*:*:*:*:node.js:*:*'] }),
      ),
    ).toEqual(['GHSA-35jh-r3h4-6jhm']);
    expect(
      matchComponent(
        component({ name: 'debian', version: '11', cpes: ['cpe:2.3:o:debian:debian_linux:11:*:*:*:*:*:*:*'] }),
        fixtureIndex,
      ).mapped,
    ).toBe(false);
  });
});

describe('matchComponent by name only', () => {
  it('matches an unambiguous name and version with low confidence', () => {
    const match = matchComponent(component({ name: 'minimist', version: '1.2.5' }), fixtureIndex);

    expect(match.findings).toEqual([
      expect.objectContaining({
        advisoryId: 'GHSA-xvch-5gv4-984h',
        confidence: 'low',
        evidence: { kind: 'name', value: 'minimist@1.2.5' },
      }),
    ]);
  });

  it('uses the group for Maven coordinates', () => {
    expect(ids(fixtureIndex, component({ group: 'org.yaml', name: 'snakeyaml', version: '1.33' }))).toEqual([
      'GHSA-mjmj-j48q-9wg2',
    ]);
  });

  it('leaves ambiguous names, versionless names and non-package components unmatched', () => {
    const index = buildAdvisoryIndex([
      ...fixtureAdvisories,
      osv('PYSEC-0000-1', [{ ecosystem: 'PyPI', name: 'express', events: [{ introduced: '0' }] }]),
    ]);

    expect(matchComponent(component({ name: 'express', version: '4.18.2' }), index)).toMatchObject({
      mapped: false,
      findings: [],
    });
    expect(matchComponent(component({ name: 'minimist' }), fixtureIndex).mapped).toBe(false);
    expect(matchComponent(component({ name: 'minimist', version: '1.2.5', type: 'file' }), fixtureIndex).mapped).toBe(
      false,
    );
  });
});

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
