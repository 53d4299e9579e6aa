/**
 * An import run writes package items and advisory items once per window of chunks
 * (shared/service/corpus/package-write-window.ts): nothing of the window is in the table before it is
 * written, a record revised by a later chunk of the same window is compared with (and replaces) the
 * earlier chunk's version, and a package touched by several chunks keeps every entry.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { emptyImportSummary, importChunk } from '../../shared/service/corpus/advisory-chunk';
import { packageEntries, packageItemKey } from '../../shared/service/corpus/corpus-store';
import { PackageItemCache } from '../../shared/service/corpus/package-item-cache';
import { PackageWriteWindow } from '../../shared/service/corpus/package-write-window';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { keys } from '../../shared/service/data/keys';
import { getItem } from '../../shared/service/data/table-client';
import { packageKey } from '../../shared/service/matching/component-identity';

const suffix = randomUUID().slice(0, 8);
const pkg = (n: number) => `window-pkg-${suffix}-${n}`;
const record = (id: string, name: string, fixed: string) =>
  parseOsvAdvisory({
    schema_version: '1.6.0',
    id,
    modified: '2026-11-01T00:00:00Z',
    summary: 'Window fixture',
    affected: [
      { package: { ecosystem: 'npm', name }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed }] }] },
    ],
  });

async function entryIds(name: string): Promise<string[] | undefined> {
  const item = await getItem(packageItemKey(packageKey('npm', name)));
  return item ? (await packageEntries(item)).map((entry) => entry.id) : undefined;
}

describe('package write window', () => {
  it('writes a window once, with each record as its last chunk had it', async () => {
    const [a, b, c] = ['A', 'B', 'C'].map((letter) => `GHSA-win${letter.toLowerCase()}-${suffix}`) as [
      string,
      string,
      string,
    ];
    const window = new PackageWriteWindow(new PackageItemCache());
    const counts = emptyImportSummary();
    await importChunk([record(a, pkg(1), '1.0.0'), record(b, pkg(1), '1.0.0')], counts, window);
    // A revised in the next chunk: it moved from package 1 to package 2.
    await importChunk([record(a, pkg(2), '2.0.0'), record(c, pkg(1), '1.0.0')], counts, window);
    expect(await getItem(keys.corpusAdvisory(a))).toBeUndefined();
    expect(await entryIds(pkg(1))).toBeUndefined();

    await window.flush();
    expect(await entryIds(pkg(1))).toEqual([b, c]);
    expect(await entryIds(pkg(2))).toEqual([a]);
    const stored = await getItem(keys.corpusAdvisory(a));
    expect(stored?.packageKeys).toEqual([packageKey('npm', pkg(2))]);
    expect(stored).toMatchObject({ advisoryId: a, contentHash: expect.any(String) });
    expect(window.packagesWritten).toBe(2);

    // The next window takes package 1 from the run's cache and adds to it.
    const d = `GHSA-wind-${suffix}`;
    await importChunk([record(d, pkg(1), '3.0.0'), record(b, pkg(1), '1.0.0')], counts, window);
    await window.flush();
    expect(await entryIds(pkg(1))).toEqual([b, c, d]);
    expect(counts).toMatchObject({ written: 5, unchanged: 1 });
  });
});
