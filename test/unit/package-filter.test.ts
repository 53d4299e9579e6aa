import { describe, expect, it } from '@jest/globals';
import { PackageFilter } from '../../shared/service/corpus/package-filter';
import { packageKey } from '../../shared/service/matching/component-identity';

describe('corpus package filter', () => {
  it('never misses a key it was given, and keeps the keys of both sides of a merge', () => {
    const first = new PackageFilter();
    const second = new PackageFilter();
    const keysA = Array.from({ length: 20_000 }, (_, index) => packageKey('npm', `package-a-${index}`));
    const keysB = Array.from({ length: 20_000 }, (_, index) => packageKey('Maven', `org.example:artifact-${index}`));
    keysA.forEach((key) => first.add(key));
    keysB.forEach((key) => second.add(key));

    first.merge(second);

    expect([...keysA, ...keysB].filter((key) => !first.mightContain(key))).toEqual([]);
  });

  it('answers no for almost every key it was not given', () => {
    const filter = new PackageFilter();
    for (let index = 0; index < 50_000; index += 1) filter.add(packageKey('PyPI', `present-${index}`));

    const falsePositives = Array.from({ length: 20_000 }, (_, index) => packageKey('PyPI', `absent-${index}`)).filter(
      (key) => filter.mightContain(key),
    );

    expect(falsePositives.length).toBeLessThan(20);
  });
});
