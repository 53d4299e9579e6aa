/** Every version parser and comparator answers hostile versions within the bound (test/support/hostile-input.ts). */
import { describe, expect, it } from '@jest/globals';
import { ECOSYSTEMS } from '../../shared/service/matching/ecosystems';
import { comparatorFor } from '../../shared/service/matching/version-schemes';
import { parseApkVersion } from '../../shared/service/matching/versions/apk';
import { parseDebianVersion, verrevcmp } from '../../shared/service/matching/versions/dpkg';
import { tokenizeMavenVersion } from '../../shared/service/matching/versions/maven';
import { parseNuGetVersion } from '../../shared/service/matching/versions/nuget';
import { normalizeComposerVersion, phpVersionCompare } from '../../shared/service/matching/versions/packagist';
import { canonicalGemSegments } from '../../shared/service/matching/versions/rubygems';
import { parseLooseSemver } from '../../shared/service/matching/versions/semver-scheme';
import { DIGITS_AND_SEPARATORS, expectAllWithinBound, hostile } from '../support/hostile-input';

// ---------------------------------------------------------------------------------------------
// Regression: the input from the issue

describe('the Packagist version from issue 8', () => {
  const issueVersion = `1beta${'1'.repeat(31)}!`;

  it('normalises "1beta" + 31 x "1" + "!" within the bound (it held the event loop for 22 s)', () => {
    expectAllWithinBound('normalizeComposerVersion', normalizeComposerVersion, [issueVersion]);
    expect(normalizeComposerVersion(issueVersion)).toBeNull();
  });

  it('still reads the stability numbers the rewritten pattern must accept', () => {
    expect(normalizeComposerVersion('1.0.0-beta1.2')).toBe('1.0.0.0-beta1.2');
    expect(normalizeComposerVersion('1.0.0-RC.1-dev')).toBe('1.0.0.0-RC1-dev');
    expect(normalizeComposerVersion('2.1.0-p3')).toBe('2.1.0.0-patch3');
    expect(normalizeComposerVersion('1.0.x-dev as 1.0.0')).toBe('1.0.9999999.9999999-dev');
  });
});

// ---------------------------------------------------------------------------------------------
// Version parsers, one per scheme
const VERSION_PARSERS: { scheme: string; parse: (input: string) => unknown; tokens: string[]; prefixes: string[] }[] = [
  {
    scheme: 'semver (npm, crates.io, Hex)',
    parse: parseLooseSemver,
    tokens: [...DIGITS_AND_SEPARATORS, '+', 'a', 'v'],
    prefixes: ['', '1.2.3-', '1.2.3+', 'v1'],
  },
  {
    scheme: 'Go',
    parse: (v) => comparatorFor('Go').compare(v, 'v1.2.3'),
    tokens: [...DIGITS_AND_SEPARATORS, 'go', 'v', '+incompatible'],
    prefixes: ['', 'v0.0.0-', 'go1.'],
  },
  {
    scheme: 'Pub',
    parse: (v) => comparatorFor('Pub').compare(v, '1.0.0+1'),
    tokens: [...DIGITS_AND_SEPARATORS, '+', 'a'],
    prefixes: ['', '1.0.0+'],
  },
  {
    scheme: 'PyPI (PEP 440)',
    parse: (v) => comparatorFor('PyPI').compare(v, '1.0'),
    tokens: [...DIGITS_AND_SEPARATORS, '_', 'a', 'b', 'rc', 'post', 'dev', '!', '+', 'v', ' '],
    prefixes: ['', '1!', '1.0+', '1.0.post', 'v'],
  },
  {
    scheme: 'Maven',
    parse: tokenizeMavenVersion,
    tokens: [...DIGITS_AND_SEPARATORS, 'alpha', 'a', 'sp', 'ga', 'final'],
    prefixes: ['', '1.0-'],
  },
  {
    scheme: 'RubyGems',
    parse: canonicalGemSegments,
    tokens: [...DIGITS_AND_SEPARATORS, 'a', 'pre'],
    prefixes: ['', '1.0.', '1-'],
  },
  {
    scheme: 'NuGet',
    parse: parseNuGetVersion,
    tokens: [...DIGITS_AND_SEPARATORS, '+', 'a', 'v'],
    prefixes: ['', '1.0.0-', '1.0.0+', '1.2.3.4-'],
  },
  {
    scheme: 'Packagist (Composer)',
    parse: normalizeComposerVersion,
    tokens: [
      ...DIGITS_AND_SEPARATORS,
      '_',
      'beta',
      'b',
      'rc',
      'p',
      'pl',
      'patch',
      'dev',
      'v',
      'x',
      '*',
      ' ',
      ' as ',
      '+',
      ':',
    ],
    prefixes: ['', '1beta', '1.0.0-RC', '2024-01-01', 'v1.', 'dev-', '1.0 as '],
  },
  {
    scheme: 'PHP version_compare',
    parse: (v) => phpVersionCompare('1.0.0', v),
    tokens: [...DIGITS_AND_SEPARATORS, '#', '_', '+', 'dev', 'p'],
    prefixes: ['', '1.0.0.'],
  },
  {
    scheme: 'Debian (dpkg)',
    parse: parseDebianVersion,
    tokens: [...DIGITS_AND_SEPARATORS, ':', '+', '~', 'a'],
    prefixes: ['', '1:', '1.0-'],
  },
  {
    scheme: 'Debian verrevcmp',
    parse: (v) => verrevcmp(v, `${v}~`),
    tokens: [...DIGITS_AND_SEPARATORS, '~', 'a', '+'],
    prefixes: [''],
  },
  {
    scheme: 'Alpine (apk)',
    parse: parseApkVersion,
    tokens: [...DIGITS_AND_SEPARATORS, '_', 'alpha', 'p', '~', 'a', '-r'],
    prefixes: ['', '1.0_', '1.0~'],
  },
];

describe('version parsers answer every hostile version within the bound', () => {
  it.each(VERSION_PARSERS.map((p, i) => [p.scheme, p, i] as const))(
    '%s',
    (_scheme, { scheme, parse, tokens, prefixes }, index) => {
      expectAllWithinBound(scheme, parse, hostile(tokens, prefixes, 1000 + index));
    },
  );

  it.each(ECOSYSTEMS.map((e) => [e]))('%s comparator, on either side', (ecosystem) => {
    const comparator = comparatorFor(ecosystem);
    const tokens = [...DIGITS_AND_SEPARATORS, 'beta', ':', '~', '_', '+', 'v', 'a'];
    expectAllWithinBound(
      ecosystem,
      (v) => [comparator.compare(v, '1.2.3'), comparator.compare('1.2.3', v), comparator.compare(v, v)],
      hostile(tokens, ['', '1beta'], 2000),
    );
  });
});
