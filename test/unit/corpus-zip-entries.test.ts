/**
 * The zip reader of the corpus import (random access through the central directory, resumable at
 * an entry index, CRC-checked) and the admin CLI's progress report.
 */
import { describe, expect, test } from '@jest/globals';
import { strToU8, zipSync } from 'fflate';
import {
  readZipEntries,
  zipEntryCount,
  ZipFormatError,
  type RandomAccessSource,
} from '../../shared/service/corpus/parse/zip-entries';
import { importProgressReporter } from '../../shared/service/corpus/import-progress';

function memorySource(bytes: Uint8Array): RandomAccessSource & { reads: number } {
  const buffer = Buffer.from(bytes);
  const source = {
    size: buffer.length,
    reads: 0,
    read: (offset: number, length: number) => {
      source.reads += 1;
      return Promise.resolve(buffer.subarray(offset, Math.min(buffer.length, offset + length)));
    },
  };
  return source;
}

const files = Object.fromEntries(
  Array.from({ length: 30 }, (_, index) => [`REC-${index}.json`, strToU8(JSON.stringify({ id: `REC-${index}` }))]),
);

async function names(source: RandomAccessSource, from = 0): Promise<string[]> {
  const result: string[] = [];
  for await (const entry of readZipEntries(source, from)) {
    expect(JSON.parse(Buffer.from(entry.bytes).toString('utf8'))).toEqual({ id: entry.name.replace('.json', '') });
    result.push(`${entry.index}:${entry.name}`);
  }
  return result;
}

describe('zip entries', () => {
  test('reads every entry in central-directory order, deflated or stored, in few reads', async () => {
    for (const level of [0, 6] as const) {
      const source = memorySource(zipSync(files, { level }));
      expect(await zipEntryCount(source)).toBe(30);
      expect(await names(source)).toEqual(Object.keys(files).map((name, index) => `${index}:${name}`));
      expect(source.reads).toBeLessThan(6);
    }
  });

  test('starts at an entry index: a resumed import reads only what is left', async () => {
    const source = memorySource(zipSync(files));
    expect(await names(source, 27)).toEqual(['27:REC-27.json', '28:REC-28.json', '29:REC-29.json']);
    expect(await names(source, 30)).toEqual([]);
  });

  test('a truncated archive has no central directory; a damaged entry fails its CRC', async () => {
    const zip = zipSync(files, { level: 0 });
    await expect(zipEntryCount(memorySource(zip.subarray(0, zip.length - 100)))).rejects.toThrow(ZipFormatError);
    const damaged = Buffer.from(zip);
    const at = damaged.indexOf('{"id":"REC-3"}');
    damaged[at + 2] = 'X'.charCodeAt(0);
    await expect(names(memorySource(damaged))).rejects.toThrow(/entry 3 \(REC-3.json\) does not match its CRC-32/);
  });
});

describe('import progress', () => {
  const progress = (read: number) => ({
    path: '/data/all.zip',
    read,
    total: 1000,
    summary: { read, written: read - 10, unchanged: 10, withdrawn: 0, errors: 0, packagesWritten: read },
  });

  test('writes JSON lines with rate and ETA when not on a terminal, at most every few seconds', () => {
    let clock = 0;
    const lines: string[] = [];
    const reporter = importProgressReporter({ isTTY: false, write: (text) => lines.push(text) }, () => clock);
    clock = 10_000;
    reporter.onProgress(progress(500));
    clock = 11_000;
    reporter.onProgress(progress(600));
    reporter.done();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      type: 'progress',
      path: '/data/all.zip',
      read: 500,
      total: 1000,
      written: 490,
      unchanged: 10,
      errors: 0,
      recordsPerSecond: 50,
      etaSeconds: 10,
    });
  });

  test('redraws one line with a bar, the rate and the ETA on a terminal', () => {
    let clock = 0;
    const output: string[] = [];
    const reporter = importProgressReporter({ isTTY: true, write: (text) => output.push(text) }, () => clock);
    clock = 100_000;
    reporter.onProgress(progress(250));
    reporter.done();
    expect(output[0]).toMatch(/^\r\[######\.{18}\] {2}25% 250\/1,000 records, 3\/s, ETA 5m00s, written 240/);
    expect(output.at(-1)).toBe('\n');
  });
});
