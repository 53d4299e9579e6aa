/**
 * The version ordering of each ecosystem (OSV schema "Affected ranges"). Apart from the ecosystem
 * names (./ecosystems.ts) so that code that only names packages (the corpus store, decisions) does
 * not load the version schemes and their parsers.
 */
import type { VersionRange } from '../corpus/parse/advisory';
import type { Ecosystem } from './ecosystems';
import { apkComparator } from './versions/apk';
import type { VersionComparator } from './versions/comparator';
import { dpkgComparator } from './versions/dpkg';
import { mavenComparator } from './versions/maven';
import { nugetComparator } from './versions/nuget';
import { packagistComparator } from './versions/packagist';
import { pypiComparator } from './versions/pypi';
import { rubyGemsComparator } from './versions/rubygems';
import { goComparator, pubComparator, semverComparator } from './versions/semver-scheme';

const COMPARATORS: Record<Ecosystem, VersionComparator> = {
  npm: semverComparator,
  PyPI: pypiComparator,
  Maven: mavenComparator,
  Go: goComparator,
  'crates.io': semverComparator,
  RubyGems: rubyGemsComparator,
  NuGet: nugetComparator,
  Packagist: packagistComparator,
  Pub: pubComparator,
  Hex: semverComparator,
  Debian: dpkgComparator,
  Ubuntu: dpkgComparator,
  Alpine: apkComparator,
  Wolfi: apkComparator,
};

export function comparatorFor(ecosystem: Ecosystem): VersionComparator {
  return COMPARATORS[ecosystem];
}

/**
 * A SEMVER range is ordered by SemVer whatever the ecosystem (OSV schema); when a
 * version is not SemVer (a PyPI post release in a SEMVER range) the ecosystem's
 * own ordering is the better answer than none.
 */
export function comparatorForRange(type: VersionRange['type'], ecosystem: Ecosystem): VersionComparator {
  const own = COMPARATORS[ecosystem];
  if (type !== 'SEMVER' || own === semverComparator) return own;
  const semverFirst = ecosystem === 'Go' ? goComparator : semverComparator;
  return {
    scheme: `semver/${own.scheme}`,
    compare: (a, b) => semverFirst.compare(a, b) ?? own.compare(a, b),
  };
}
