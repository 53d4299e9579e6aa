/**
 * LevelDB alone under the corpus import's write pattern (docs/architecture/local-runtime.md "Cost per item
 * written"): per chunk of 5,000 records, an advisory item of 2.2 KB each and a rewrite of every package item
 * the chunk touches (packages skewed as in full-corpus.ts, 650 bytes per entry, at most 350 KB), in batches of
 * 75 operations, through classic-level with the engine's table options. Prints the process's CPU seconds
 * (LevelDB's write and compaction threads included), to compare LevelDB options without the engine.
 * `keys=ordered` leaves out dynalite's hash prefix (six hex digits of MD5 of the partition key, which spreads
 * every batch over the whole key range), to see what the engine's key order costs LevelDB's compactions
 * (docs/corpus-at-scale.md "Advisory items without the record's text").
 *
 * `npx tsx test/bench/leveldb-writes.ts [records=200000] [writeBufferMb=16] [compression=1] [keys=hashed|ordered]`
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { unit } from './full-corpus';

const require = createRequire(import.meta.url);
const { Level } = require(createRequire(require.resolve('dynalite')).resolve('level')) as {
  Level: new (
    location: string,
    options: Record<string, unknown>,
  ) => {
    open(): Promise<void>;
    close(): Promise<void>;
    batch(operations: { type: 'put'; key: string; value: string }[]): Promise<void>;
  };
};

const records = Number(process.argv[2] ?? 200_000);
const writeBufferMb = Number(process.argv[3] ?? 16);
const compression = process.argv[4] !== '0';
const keyOrder = process.argv[5] === 'ordered' ? 'ordered' : 'hashed';
const CHUNK = 5_000;

const prefix = (key: string) => (keyOrder === 'ordered' ? '' : createHash('md5').update(key).digest('hex').slice(0, 6));
const text = (seed: number, length: number) => {
  const piece = `{\\"id\\":\\"GHSA-${seed}\\",\\"affected\\":[{\\"package\\":{\\"ecosystem\\":\\"Debian:12\\",\\"name\\":\\"libcore${seed % 97}\\"},\\"ranges\\":[{\\"type\\":\\"ECOSYSTEM\\",\\"events\\":[{\\"introduced\\":\\"0\\"},{\\"fixed\\":\\"1.${seed % 20}.${seed % 9}-1+deb12u2\\"}]}]}]} `;
  return piece.repeat(Math.ceil(length / piece.length)).slice(0, length);
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vexdesk-leveldb-writes-'));
  const db = new Level(dir, {
    valueEncoding: 'utf8',
    maxOpenFiles: 74,
    maxFileSize: 1024 * 1024,
    writeBufferSize: writeBufferMb * 1024 * 1024,
    compression,
  });
  await db.open();
  const counts = new Map<string, number>();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  let bytes = 0;
  for (let start = 0; start < records; start += CHUNK) {
    const operations: { type: 'put'; key: string; value: string }[] = [];
    const touched = new Set<string>();
    for (let index = start; index < start + CHUNK; index += 1) {
      const id = `adv${index}`;
      operations.push({
        type: 'put',
        key: `item-t~${prefix(id)}/${id}`,
        value: `{"pk":{"S":"${id}"},"advisoryJson":{"S":"${text(index, 2200)}"}}`,
      });
      const name = `pkg${Math.floor(9000 * unit(index, 1) ** 2)}`;
      counts.set(name, (counts.get(name) ?? 0) + 1);
      touched.add(name);
    }
    for (const name of touched) {
      const entries = counts.get(name) ?? 0;
      operations.push({
        type: 'put',
        key: `item-t~${prefix(name)}/${name}`,
        value: `{"pk":{"S":"${name}"},"entriesJson":{"S":"${text(entries, Math.min(350_000, entries * 650))}"}}`,
      });
    }
    for (let offset = 0; offset < operations.length; offset += 75) {
      const batch = operations.slice(offset, offset + 75);
      bytes += batch.reduce((sum, operation) => sum + operation.value.length, 0);
      await db.batch(batch);
    }
  }
  await db.close();
  const used = process.cpuUsage(cpu);
  console.log(
    `${records} records, write buffer ${writeBufferMb} MB, compression ${compression}, keys ${keyOrder}: ${((used.user + used.system) / 1e6).toFixed(1)} CPU-s, ${((performance.now() - t0) / 1000).toFixed(1)} s, ${(bytes / 1e9).toFixed(2)} GB written`,
  );
  rmSync(dir, { recursive: true, force: true });
}

void main();
