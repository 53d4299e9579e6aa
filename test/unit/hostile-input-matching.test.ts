/**
 * OSV ranges, matching, purls, CPEs and package names answer hostile input within the bound
 * (test/support/hostile-input.ts).
 */
import { describe, expect, it } from '@jest/globals';
import type { Advisory } from '../../shared/service/corpus/parse/advisory';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import {
  MAX_MATCH_VERSION_LENGTH,
  buildAdvisoryIndex,
  matchComponent,
} from '../../shared/service/matching/advisory-index';
import { identify } from '../../shared/service/matching/component-identity';
import { parseCpe } from '../../shared/service/matching/cpe';
import { ECOSYSTEMS, type Ecosystem } from '../../shared/service/matching/ecosystems';
import { evaluateAffected, fixedVersionsAbove } from '../../shared/service/matching/osv-range';
import { namespaceWords, normalisePackageName, shortName } from '../../shared/service/matching/package-name';
import type { SbomComponent } from '../../shared/service/sbom/model';
import { canonicalPurl, parsePurl } from '../../shared/service/sbom/purl';
import { DIGITS_AND_SEPARATORS, adversarial, expectAllWithinBound, hostile } from '../support/hostile-input';

// ---------------------------------------------------------------------------------------------
// OSV ranges, package identity, purls, CPEs

function affectedPackage(ecosystem: Ecosystem, fixed: string): Advisory['affected'][number] {
  const advisory = parseOsvAdvisory({
    id: `HOSTILE-${ecosystem}`,
    modified: '2024-01-01T00:00:00Z',
    affected: [
      {
        package: { ecosystem, name: 'target' },
        ranges: [
          { type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed }] },
          { type: 'SEMVER', events: [{ introduced: '1.0.0' }, { last_affected: '1.9.9' }] },
        ],
        versions: ['1.0.0'],
      },
    ],
  });
  return advisory.affected[0] as Advisory['affected'][number]; // one affected entry in, one out
}

/** One advisory per ecosystem for a package named like each purl below, so hostile versions reach the comparators. */
const INDEX = buildAdvisoryIndex(
  ECOSYSTEMS.map((ecosystem) =>
    parseOsvAdvisory({
      id: `HOSTILE-${ecosystem}`,
      modified: '2024-01-01T00:00:00Z',
      affected: [
        {
          package: {
            ecosystem,
            name:
              ecosystem === 'Maven'
                ? 'org.acme:target'
                : ecosystem === 'Packagist' || ecosystem === 'npm' || ecosystem === 'Go'
                  ? 'acme/target'
                  : 'target',
          },
          ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.2.3' }] }],
        },
      ],
    }),
  ),
);
const PURL_TYPES = [
  'npm/acme/target',
  'pypi/target',
  'maven/org.acme/target',
  'golang/acme/target',
  'cargo/target',
  'gem/target',
  'nuget/target',
  'composer/acme/target',
  'pub/target',
  'hex/target',
  'deb/debian/target',
  'apk/alpine/target',
];

const component = (fields: Partial<SbomComponent>): SbomComponent => ({
  ref: 'c1',
  name: 'target',
  cpes: [],
  licenses: [],
  ...fields,
});

describe('OSV range evaluation and matching answer every hostile version within the bound', () => {
  const tokens = [...DIGITS_AND_SEPARATORS, 'beta', ':', '~', '_', '+', 'v'];

  it.each(ECOSYSTEMS.map((e) => [e]))('%s: hostile component versions and hostile event versions', (ecosystem) => {
    const affected = affectedPackage(ecosystem, '1.2.3');
    expectAllWithinBound(
      `${ecosystem} ranges`,
      (v) => [evaluateAffected(v, affected, ecosystem), fixedVersionsAbove(v, [affected], ecosystem)],
      hostile(tokens, ['', '1beta'], 3000),
    );
    expectAllWithinBound(
      `${ecosystem} events`,
      (v) => evaluateAffected('1.2.3', affectedPackage(ecosystem, v), ecosystem),
      adversarial(tokens),
    );
  });

  it('matches components of every ecosystem, whatever their version, within the bound', () => {
    expectAllWithinBound(
      'matchComponent',
      (v) => PURL_TYPES.map((type) => matchComponent(component({ version: v, purl: `pkg:${type}` }), INDEX)),
      hostile(tokens, ['', '1beta'], 3100),
    );
  });

  it(`records a component whose version is longer than ${MAX_MATCH_VERSION_LENGTH} characters as unmatched, with the reason`, () => {
    const match = matchComponent(
      component({ version: `0.${'1'.repeat(MAX_MATCH_VERSION_LENGTH)}`, purl: 'pkg:composer/acme/target' }),
      INDEX,
    );
    const atTheLimit = matchComponent(
      component({ version: `0.${'1'.repeat(MAX_MATCH_VERSION_LENGTH - 2)}`, purl: 'pkg:composer/acme/target' }),
      INDEX,
    );

    expect(match).toMatchObject({
      componentRef: 'c1',
      mapped: false,
      unmatchedReason: 'version_too_long',
      ecosystem: 'Packagist',
      findings: [],
    });
    expect(atTheLimit).toMatchObject({
      mapped: true,
      findings: [expect.objectContaining({ advisoryId: 'HOSTILE-Packagist' })],
    });
  });
});

describe('purls, CPEs and package names are read within the bound', () => {
  const purlTokens = ['pkg:', 'npm/', '@', '%', '%2F', '%E0%A4%A', '/', '?', '=', '&', '#', 'a', '1', ':', '.', '+'];

  it('parses and canonicalises hostile purls', () => {
    expectAllWithinBound(
      'parsePurl',
      (p) => [parsePurl(p), canonicalPurl(p)],
      hostile(purlTokens, ['', 'pkg:npm/', 'pkg:maven/a/b@1?', 'pkg:deb/debian/a@1#'], 4000),
    );
  });

  it('identifies components from hostile purl qualifiers (repository_url, distro, upstream)', () => {
    const qualifiers = ['/', 'a', '1', '.', '-', '@', ' ', 'x'];
    expectAllWithinBound(
      'identify qualifiers',
      (q) => [
        identify(component({ purl: `pkg:composer/acme/target@1.0.0?repository_url=${encodeURIComponent(q)}` }), INDEX),
        identify(component({ purl: `pkg:deb/ubuntu/target@1.0?distro=${encodeURIComponent(q)}` }), INDEX),
        identify(component({ purl: `pkg:apk/alpine/target@1.0?distro=${encodeURIComponent(q)}` }), INDEX),
        identify(component({ purl: `pkg:deb/debian/target@1.0?upstream=${encodeURIComponent(q)}` }), INDEX),
      ],
      hostile(qualifiers, ['', 'https://repo.example/', 'ubuntu-', 'alpine-3.'], 4100),
    );
  });

  it('parses hostile CPEs and identifies components by them', () => {
    const cpeTokens = ['cpe:2.3:', 'cpe:/', ':', '\\', '\\:', '*', '-', 'a', '%', '%2', '~', '_', '.'];
    expectAllWithinBound(
      'parseCpe',
      (c) => [parseCpe(c), identify(component({ cpes: [c] }), INDEX)],
      hostile(cpeTokens, ['', 'cpe:2.3:a:', 'cpe:/a:', 'cpe:2.3:a:acme_project:target:1:*:*:*:*:'], 4200),
    );
  });

  it('normalises hostile package names in every ecosystem', () => {
    const nameTokens = ['a', '-', '_', '.', '/', ':', '@', ' ', 'A'];
    expectAllWithinBound(
      'package names',
      (n) =>
        ECOSYSTEMS.map((e) => {
          const key = normalisePackageName(e, n);
          return [shortName(key), namespaceWords(key)];
        }),
      hostile(nameTokens, [''], 4300),
    );
  });
});
