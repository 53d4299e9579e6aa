/**
 * A package's entries in sealed segments (shared/service/corpus/package-segments.ts): the package item
 * keeps its entries until their JSON outgrows the bound, then all of them are sealed, cut into segments
 * no larger than a segment's bound; dropping ids rewrites a segment only when it held one; a read takes
 * each id once, from the latest place it is in.
 */
import { describe, expect, test } from '@jest/globals';
import {
  OPEN_ENTRIES_CHARS,
  SEGMENT_CHARS,
  arrayJson,
  dropFromSegment,
  mergeEntries,
  sealIfFull,
  type EntryJson,
} from '../../shared/service/corpus/package-segments';
import type { MatchData } from '../../shared/service/corpus/corpus-store';

const entry = (id: string, padding = 0): EntryJson => [id, JSON.stringify({ id, summary: 'x'.repeat(padding) })];
const match = (id: string, summary = ''): MatchData => ({ id, summary }) as unknown as MatchData;

describe('sealing a package item', () => {
  test('keeps entries within the bound in the package item', () => {
    const entries = [entry('A-1', 100), entry('A-2', 100)];
    expect(sealIfFull(entries)).toEqual({ open: entries, sealed: [] });
  });

  test('seals all entries once their JSON outgrows the bound; the package item starts empty', () => {
    const entries = Array.from({ length: 10 }, (_, index) => entry(`A-${index}`, 1000));
    expect(arrayJson(entries).length).toBeGreaterThan(OPEN_ENTRIES_CHARS);
    const { open, sealed } = sealIfFull(entries);
    expect(open).toEqual([]);
    expect(sealed).toEqual([arrayJson(entries)]);
  });

  test('cuts a large seal into segments within their bound, keeping the order', () => {
    const entries = Array.from({ length: 300 }, (_, index) => entry(`B-${String(index).padStart(3, '0')}`, 1000));
    const { sealed } = sealIfFull(entries);
    expect(sealed.length).toBeGreaterThan(2);
    for (const segment of sealed) expect(segment.length).toBeLessThanOrEqual(SEGMENT_CHARS);
    expect(sealed.flatMap((segment) => (JSON.parse(segment) as MatchData[]).map((item) => item.id))).toEqual(
      entries.map(([id]) => id),
    );
  });

  test('an entry larger than a segment is a segment of its own', () => {
    const { sealed } = sealIfFull([entry('C-1', 10), entry('C-2', SEGMENT_CHARS), entry('C-3', 10)]);
    expect(sealed.map((segment) => (JSON.parse(segment) as MatchData[]).map((item) => item.id))).toEqual([
      ['C-1'],
      ['C-2'],
      ['C-3'],
    ]);
  });
});

describe('dropping from a sealed segment', () => {
  test('answers the rewritten segment and the count dropped, or nothing when it held none of the ids', () => {
    const segment = arrayJson([entry('D-1'), entry('D-2'), entry('D-3')]);
    expect(dropFromSegment(segment, new Set(['X-1']))).toBeUndefined();
    const kept = dropFromSegment(segment, new Set(['D-2', 'X-1']));
    expect(kept?.dropped).toBe(1);
    expect((JSON.parse(kept!.entriesJson) as MatchData[]).map((item) => item.id)).toEqual(['D-1', 'D-3']);
  });
});

describe('reading a package with sealed segments', () => {
  test('takes each id once, from the latest place, ordered by id', () => {
    const merged = mergeEntries(
      [
        [match('E-2', 'old'), match('E-1')],
        [match('E-2', 'newer'), match('E-4')],
      ],
      [match('E-3'), match('E-4', 'newest')],
    );
    expect(merged.map((item) => [item.id, item.summary])).toEqual([
      ['E-1', ''],
      ['E-2', 'newer'],
      ['E-3', ''],
      ['E-4', 'newest'],
    ]);
  });

  test('a package without segments reads its own entries as stored', () => {
    const own = [match('F-2'), match('F-1')];
    expect(mergeEntries([], own)).toEqual(own);
  });
});
