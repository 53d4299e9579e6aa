import { describe, expect, it } from '@jest/globals';
import { buildAdvisoryIndex, matchComponent } from '../../shared/service/matching/advisory-index';
import { findingSchema } from '../../shared/service/matching/model';
import { component, fixtureAdvisories, fixtureIndex, ids, osv } from '../support/advisory-index';

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
