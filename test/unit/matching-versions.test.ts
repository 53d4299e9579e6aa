import { describe, expect, it } from '@jest/globals';
import type { Ecosystem } from '../../shared/service/matching/ecosystems';
import { comparatorFor, comparatorForRange } from '../../shared/service/matching/version-schemes';
import { apkComparator } from '../../shared/service/matching/versions/apk';
import type { VersionComparator } from '../../shared/service/matching/versions/comparator';
import { dpkgComparator } from '../../shared/service/matching/versions/dpkg';
import { mavenComparator, tokenizeMavenVersion } from '../../shared/service/matching/versions/maven';
import { nugetComparator } from '../../shared/service/matching/versions/nuget';
import {
  normalizeComposerVersion,
  packagistComparator,
  phpVersionCompare,
} from '../../shared/service/matching/versions/packagist';
import { pypiComparator } from '../../shared/service/matching/versions/pypi';
import { rubyGemsComparator } from '../../shared/service/matching/versions/rubygems';
import { goComparator, pubComparator, semverComparator } from '../../shared/service/matching/versions/semver-scheme';

/** Asserts that `versions` is strictly ascending under `comparator`, pairwise in both directions. */
function expectAscending(comparator: VersionComparator, versions: string[]) {
  for (let i = 0; i < versions.length; i++) {
    for (let j = i + 1; j < versions.length; j++) {
      const [a, b] = [versions[i] as string, versions[j] as string];
      expect([a, b, comparator.compare(a, b)]).toEqual([a, b, -1]);
      expect([b, a, comparator.compare(b, a)]).toEqual([b, a, 1]);
    }
  }
}

function expectEqual(comparator: VersionComparator, versions: string[]) {
  for (const v of versions)
    expect([versions[0], v, comparator.compare(versions[0] as string, v)]).toEqual([versions[0], v, 0]);
}

describe('SemVer 2.0 (semver.org §11)', () => {
  it('orders the specification examples', () => {
    expectAscending(semverComparator, ['1.0.0', '2.0.0', '2.1.0', '2.1.1']);
    expectAscending(semverComparator, [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ]);
  });

  it('ignores build metadata (§10) and tolerates v prefixes and missing parts', () => {
    expectEqual(semverComparator, ['1.0.0', '1.0.0+20130313144700', 'v1.0.0', '1.0', '1']);
  });

  it('cannot order what is not a version', () => {
    expect(semverComparator.compare('latest', '1.0.0')).toBeNull();
    expect(semverComparator.compare('1.0.0', '1.x')).toBeNull();
  });
});

describe('Go module versions', () => {
  it('treats +incompatible as build metadata and v as a prefix', () => {
    expectEqual(goComparator, ['v2.8.0+incompatible', '2.8.0', '2.8.0+incompatible']);
    expectAscending(goComparator, ['v2.7.1+incompatible', '2.8.0+incompatible', 'v2.8.1']);
  });

  it('orders pseudo-versions before the release they precede (Go modules reference)', () => {
    expectAscending(goComparator, [
      'v0.0.0-20200219234226-1ad67e1f0ef4',
      'v0.0.0-20200220183623-bac4c82f6975',
      'v0.1.0',
    ]);
  });

  it('reads toolchain versions go1.x', () => {
    expectAscending(goComparator, ['go1.16.15', 'go1.17', '1.17.1', 'go1.17.10']);
  });
});

describe('pub (pub_semver)', () => {
  it('orders build identifiers after the plain version', () => {
    expectAscending(pubComparator, ['1.0.0-dev', '1.0.0', '1.0.0+1', '1.0.0+2', '1.0.1']);
  });
});

describe('PyPI (PEP 440)', () => {
  it('orders the PEP 440 "summary of permitted suffixes and relative ordering" example', () => {
    expectAscending(pypiComparator, [
      '1.dev0',
      '1.0.dev456',
      '1.0a1',
      '1.0a2.dev456',
      '1.0a12.dev456',
      '1.0a12',
      '1.0b1.dev456',
      '1.0b2',
      '1.0b2.post345.dev456',
      '1.0b2.post345',
      '1.0rc1.dev456',
      '1.0rc1',
      '1.0',
      '1.0+abc.5',
      '1.0+abc.7',
      '1.0+5',
      '1.0.post456.dev34',
      '1.0.post456',
      '1.0.15',
      '1.1.dev1',
    ]);
  });

  it('puts every epoch-1 version after every implicit epoch-0 version', () => {
    expectAscending(pypiComparator, ['2013.10', '2014.04', '1!1.0', '1!1.1', '1!2.0']);
  });

  it('compares normalised spellings as equal', () => {
    expectEqual(pypiComparator, ['1.0', '1.0.0', '0!1.0', 'v1.0']);
    expectEqual(pypiComparator, ['1.0.post1', '1.0-post1', '1.0post1', '1.0-1']);
    expectEqual(pypiComparator, ['1.1rc1', '1.1c1', '1.1-RC1']);
  });

  it('cannot order legacy non-PEP 440 versions', () => {
    expect(pypiComparator.compare('2004d', '1.0')).toBeNull();
  });
});

describe('Maven (POM reference "Version Order Specification")', () => {
  it('splits and replaces tokens as the specification example shows', () => {
    const rendered = tokenizeMavenVersion('1-1.foo-bar1baz-.1')
      .map((t) => `${t.prefix}${t.value}`)
      .join('');
    // 1-1.foo-bar-1-baz-0.1, with qualifiers always in a hyphen group.
    expect(rendered).toBe('.1-1-foo-bar-1-baz-0.1');
  });

  it('trims trailing null values as the specification examples show', () => {
    const canonical = (v: string) =>
      tokenizeMavenVersion(v)
        .map((t) => `${t.prefix}${t.value}`)
        .join('');
    expect(canonical('1.0.0')).toBe('.1');
    expect(canonical('1.ga')).toBe('.1');
    expect(canonical('1.final')).toBe('.1');
    expect(canonical('1.0')).toBe('.1');
    expect(canonical('1.')).toBe('.1');
    expect(canonical('1-')).toBe('.1');
    expect(canonical('1.0.0-foo.0.0')).toBe('.1-foo');
    expect(canonical('1.0.0-0.0.0')).toBe('.1');
  });

  it('orders the specification end-result examples', () => {
    expectAscending(mavenComparator, ['1', '1.1']);
    expectAscending(mavenComparator, ['1-snapshot', '1', '1-sp']);
    expectAscending(mavenComparator, ['1-foo2', '1-foo10']);
    expectEqual(mavenComparator, ['1.foo', '1-foo']);
    expectAscending(mavenComparator, ['1-foo', '1-1', '1.1']);
    expectEqual(mavenComparator, ['1', '1.ga', '1-ga', '1-0', '1.0']);
    expectAscending(mavenComparator, ['1-ga', '1-sp']);
    expectAscending(mavenComparator, ['1-ga.1', '1-sp.1']);
    expectAscending(mavenComparator, ['1-sp-1', '1-ga-1']);
    expectEqual(mavenComparator, ['1-ga-1', '1-1']);
    expectEqual(mavenComparator, ['1-a1', '1-alpha-1']);
    expectEqual(mavenComparator, ['1.0-alpha1', '1.0-ALPHA1']);
    expectAscending(mavenComparator, ['1.K', '1.7']);
    expectAscending(mavenComparator, ['5.aardvark', '5.zebra']);
    expectAscending(mavenComparator, ['2.0-rc1', '2.0']);
  });

  it('orders the well-known qualifiers alpha < beta < milestone < rc = cr < snapshot < "" = ga = final = release < sp', () => {
    expectAscending(mavenComparator, [
      '1.0-alpha',
      '1.0-beta',
      '1.0-milestone',
      '1.0-rc',
      '1.0-snapshot',
      '1.0',
      '1.0-sp',
    ]);
    expectEqual(mavenComparator, ['1.0-rc1', '1.0-cr1', '1.0.RC1']);
    expectEqual(mavenComparator, ['5.2.20', '5.2.20.RELEASE', '5.2.20.Final', '5.2.20-GA']);
    expectAscending(mavenComparator, ['1.0-b2', '1.0-m1', '1.0-sp', '1.0-abc', '1.0-def']);
  });

  it('orders the ComparableVersion qualifier and number sequences', () => {
    expectAscending(mavenComparator, [
      '1-alpha2snapshot',
      '1-alpha2',
      '1-alpha-123',
      '1-beta-2',
      '1-beta123',
      '1-m2',
      '1-m11',
      '1-rc',
      '1-cr2',
      '1-rc123',
      '1-SNAPSHOT',
      '1',
      '1-sp',
      '1-sp2',
      '1-sp123',
      '1-abc',
      '1-def',
      '1-pom-1',
      '1-1-snapshot',
      '1-1',
      '1-2',
      '1-123',
    ]);
    expectAscending(mavenComparator, [
      '2.0',
      '2.0.a',
      '2-1',
      '2.0.2',
      '2.0.123',
      '2.1.0',
      '2.1-a',
      '2.1b',
      '2.1-c',
      '2.1-1',
      '2.1.0.1',
      '2.2',
      '2.123',
      '11.a2',
      '11.a11',
      '11.b2',
      '11.b11',
      '11.m2',
      '11.m11',
      '11',
      '11.a',
      '11b',
      '11c',
      '11m',
    ]);
  });

  it('compares numbers of any length', () => {
    expectAscending(mavenComparator, ['1.20230101123000', '1.100000000000000000']);
  });
});

describe('RubyGems (Gem::Version)', () => {
  it('sorts prereleases between releases as the Gem::Version documentation shows', () => {
    expectAscending(rubyGemsComparator, ['0.9', '1.0.a.2', '1.0.b1', '1.0']);
    expectAscending(rubyGemsComparator, ['1.0.a9', '1.0.a10']);
  });

  it('ignores trailing zeros and reads - as .pre.', () => {
    expectEqual(rubyGemsComparator, ['1', '1.0', '1.0.0']);
    expectEqual(rubyGemsComparator, ['1.0.a10', '1.0.a.10']);
    expectAscending(rubyGemsComparator, ['1.2.3-1', '1.2.3']);
    expectAscending(rubyGemsComparator, ['2.2.8', '2.2.8.1', '3.0.0.beta1', '3.0.0']);
  });

  it('rejects malformed versions', () => {
    expect(rubyGemsComparator.compare('1..2', '1')).toBeNull();
    expect(rubyGemsComparator.compare('junk', '1')).toBeNull();
  });
});

describe('NuGet (NuGetVersion)', () => {
  it('normalises as the NuGet documentation describes', () => {
    expectEqual(nugetComparator, ['1.0', '1.00', '1.0.0', '1.0.0.0']);
    expectEqual(nugetComparator, ['1.1.1', '1.01.1']);
    expectEqual(nugetComparator, ['1.0.1', '1.0.01.0']);
    expectEqual(nugetComparator, ['1.0.7', '1.0.7+r3456']);
  });

  it('orders four-part versions and pre-release labels case-insensitively', () => {
    expectAscending(nugetComparator, ['1.0.0-beta', '1.0.0', '1.0.0.1', '1.0.1']);
    expectEqual(nugetComparator, ['1.0.0-Beta', '1.0.0-beta', '1.0.0-BETA']);
    expectAscending(nugetComparator, [
      '1.0.1-aaa',
      '1.0.1-alpha10',
      '1.0.1-alpha2',
      '1.0.1-beta',
      '1.0.1-open',
      '1.0.1-rc',
      '1.0.1-zzz',
      '1.0.1',
    ]);
    expectAscending(nugetComparator, ['1.0.0-rc.1', '1.0.0-rc.2', '1.0.0-rc.10']);
  });
});

describe('Packagist (Composer normalisation + PHP version_compare)', () => {
  it.each([
    ['1.0.0', '1.0.0.0'],
    ['1.2.3.4', '1.2.3.4'],
    ['v1.0.0', '1.0.0.0'],
    ['1.0', '1.0.0.0'],
    ['1.0.0RC1dev', '1.0.0.0-RC1-dev'],
    ['1.0.0-rC15-dev', '1.0.0.0-RC15-dev'],
    ['1.0.0.RC.15-dev', '1.0.0.0-RC15-dev'],
    ['1.0.0-rc1', '1.0.0.0-RC1'],
    ['1.0.0.pl3-dev', '1.0.0.0-patch3-dev'],
    ['1.0-dev', '1.0.0.0-dev'],
    ['1.0.0-beta.5+foo', '1.0.0.0-beta5'],
    ['1.0.0+foo', '1.0.0.0'],
    ['1.x-dev', '1.9999999.9999999.9999999-dev'],
  ])('normalises %s to %s', (input, expected) => {
    expect(normalizeComposerVersion(input)).toBe(expected);
  });

  it('has no order for branch versions', () => {
    expect(normalizeComposerVersion('dev-master')).toBeNull();
    expect(packagistComparator.compare('dev-main', '1.0.0')).toBeNull();
  });

  it('follows PHP version_compare on raw strings', () => {
    expect(phpVersionCompare('5.2', '5.2.0')).toBe(-1);
    expect(phpVersionCompare('5.3.0-dev', '5.3.0')).toBe(-1);
    expect(phpVersionCompare('1.0rc1', '1.0')).toBe(-1);
    expect(phpVersionCompare('1.0', '1.0pl1')).toBe(-1);
    expect(phpVersionCompare('1.0.0', '1.0.0')).toBe(0);
  });

  it('orders stabilities dev < alpha < beta < RC < stable < patch, with 1.2 = 1.2.0', () => {
    expectAscending(packagistComparator, [
      '1.0.0-dev',
      '1.0.0-alpha1',
      '1.0.0-beta2',
      '1.0.0-RC1',
      '1.0.0',
      '1.0.0-patch1',
      '1.0.1',
    ]);
    expectEqual(packagistComparator, ['5.2', '5.2.0', 'v5.2.0.0']);
  });
});

describe('Debian (dpkg, Debian Policy 5.6.12)', () => {
  it('sorts ~ before everything, even the end of the version', () => {
    expectAscending(dpkgComparator, ['1.0~~', '1.0~~a', '1.0~', '1.0', '1.0a']);
    expectAscending(dpkgComparator, ['2.0~rc1-1', '2.0-1']);
  });

  it('compares epoch, then upstream, then revision', () => {
    expectAscending(dpkgComparator, ['9.9-9', '1:0.1-1']);
    expectAscending(dpkgComparator, ['1.1.1n-0+deb11u3', '1.1.1n-0+deb11u4', '1.1.1n-1', '1.1.1o-0']);
    expectAscending(dpkgComparator, ['2.30-2', '2.30-10']);
    expectEqual(dpkgComparator, ['1.0', '0:1.0', '1.0-0']);
  });
});

describe('Alpine (apk)', () => {
  it('orders suffixes, letters and revisions as apk-tools does (letter before suffix before revision)', () => {
    expectAscending(apkComparator, [
      '1.0_alpha1',
      '1.0_beta',
      '1.0_pre1',
      '1.0_rc1',
      '1.0',
      '1.0-r1',
      '1.0_p1',
      '1.0a',
    ]);
    expectAscending(apkComparator, ['1.2', '1.2.1', '1.10']);
    expectAscending(apkComparator, ['1.36.1-r2', '1.36.1-r15']);
  });
});

describe('comparator selection', () => {
  it.each<[Ecosystem, string]>([
    ['npm', 'semver'],
    ['crates.io', 'semver'],
    ['Hex', 'semver'],
    ['Go', 'go'],
    ['Pub', 'pub'],
    ['PyPI', 'pep440'],
    ['Maven', 'maven'],
    ['RubyGems', 'rubygems'],
    ['NuGet', 'nuget'],
    ['Packagist', 'composer'],
    ['Debian', 'dpkg'],
    ['Ubuntu', 'dpkg'],
    ['Alpine', 'apk'],
  ])('uses the %s ordering %s', (ecosystem, scheme) => {
    expect(comparatorFor(ecosystem).scheme).toBe(scheme);
  });

  it('orders SEMVER ranges by SemVer, falling back to the ecosystem ordering for non-SemVer versions', () => {
    const comparator = comparatorForRange('SEMVER', 'PyPI');

    expect(comparator.compare('1.0.0-rc.1', '1.0.0')).toBe(-1);
    expect(comparator.compare('1.0.post1', '1.0')).toBe(1);
  });
});
