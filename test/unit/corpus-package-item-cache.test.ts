/**
 * The package items an import run wrote (shared/service/corpus/package-item-cache.ts): the last write
 * of a package wins, a forgotten package is read from the table again, and the held JSON stays within
 * its bound, the packages written longest ago leaving first.
 */
import { describe, expect, test } from '@jest/globals';
import { PackageItemCache } from '../../shared/service/corpus/package-item-cache';

/** A package item with no sealed segments. */
const own = (entriesJson: string) => ({ entriesJson, sealedSegments: 0, sealedEntries: 0 });

describe('package item cache', () => {
  test('holds the entries of the last write of each package', () => {
    const cache = new PackageItemCache(1000);
    cache.written('npm\u0000a', own('[{"id":"A-1"}]'));
    cache.written('npm\u0000a', own('[{"id":"A-1"},{"id":"A-2"}]'));
    expect(cache.get('npm\u0000a')?.entriesJson).toBe('[{"id":"A-1"},{"id":"A-2"}]');
    expect(cache.get('npm\u0000b')).toBeUndefined();
  });

  test('a forgotten package is no longer held', () => {
    const cache = new PackageItemCache(1000);
    cache.written('npm\u0000a', own('[{"id":"A-1"}]'));
    cache.forget('npm\u0000a');
    expect(cache.get('npm\u0000a')).toBeUndefined();
  });

  test('stays within its bound, dropping the packages written longest ago', () => {
    const cache = new PackageItemCache(100);
    const json = (id: number) => JSON.stringify([{ id: `R-${id}`, pad: 'x'.repeat(20) }]); // 35 characters
    cache.written('a', own(json(1)));
    cache.written('b', own(json(2)));
    cache.written('a', own(json(3))); // rewritten: now the newest
    cache.written('c', own(json(4)));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.entriesJson).toBe(json(3));
    expect(cache.get('c')?.entriesJson).toBe(json(4));
    cache.written('big', own('x'.repeat(101)));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('c')?.entriesJson).toBe(json(4));
  });
});
