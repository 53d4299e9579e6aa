/**
 * The bucket fingerprints of an OSV archive (shared/service/corpus/archive-fingerprints.ts): taken
 * from the central directory alone, independent of the entries' order, and moved only in the buckets
 * of the entries that changed, were added or were removed.
 */
import { describe, expect, test } from '@jest/globals';
import { strToU8, zipSync } from 'fflate';
import { archiveBuckets, BUCKETS } from '../../shared/service/corpus/archive-fingerprints';
import { readZipEntries, zipEntryCount, type RandomAccessSource } from '../../shared/service/corpus/parse/zip-entries';

function memorySource(bytes: Uint8Array): RandomAccessSource {
  const buffer = Buffer.from(bytes);
  return {
    size: buffer.length,
    read: (offset, length) => Promise.resolve(buffer.subarray(offset, Math.min(buffer.length, offset + length))),
  };
}

const record = (index: number, revision = 0) => strToU8(JSON.stringify({ id: `REC-${index}`, revision }));
const names = Array.from({ length: 200 }, (_, index) => `REC-${index}.json`);

async function bucketsOf(entries: [string, Uint8Array][]) {
  const source = memorySource(zipSync(Object.fromEntries(entries)));
  return { source, ...(await archiveBuckets(source, await zipEntryCount(source))) };
}

function differing(a: string[], b: string[]): number[] {
  return a.flatMap((fingerprint, bucket) => (fingerprint === b[bucket] ? [] : [bucket]));
}

describe('archive bucket fingerprints', () => {
  test('the same entries in another order give the same fingerprints; non-records have no bucket', async () => {
    const entries = names.map((name, index): [string, Uint8Array] => [name, record(index)]);
    const forward = await bucketsOf([...entries, ['README.md', strToU8('not a record')]]);
    const backward = await bucketsOf([...entries].reverse());
    expect(forward.fingerprints).toHaveLength(BUCKETS);
    expect(differing(forward.fingerprints, backward.fingerprints)).toEqual([]);
    expect(forward.bucketOf[names.length]).toBe(-1);
  });

  test('a changed, an added and a removed entry move only their own buckets', async () => {
    const entries = names.map((name, index): [string, Uint8Array] => [name, record(index)]);
    const before = await bucketsOf(entries);
    const after = await bucketsOf([
      ...entries.slice(0, 5),
      ['REC-5.json', record(5, 1)],
      ...entries.slice(7),
      ['REC-900.json', record(900)],
    ]);
    const moved = differing(before.fingerprints, after.fingerprints).sort((a, b) => a - b);
    const expected = [
      ...new Set([before.bucketOf[5]!, before.bucketOf[6]!, after.bucketOf[after.bucketOf.length - 1]!]),
    ];
    expect(moved).toEqual(expected.sort((a, b) => a - b));
    // The reader reads only the entries asked for.
    const read: string[] = [];
    for await (const entry of readZipEntries(after.source, 0, (index) => after.bucketOf[index] === before.bucketOf[5]))
      read.push(entry.name);
    expect(read).toContain('REC-5.json');
    expect(read.length).toBeLessThan(5);
  });
});
