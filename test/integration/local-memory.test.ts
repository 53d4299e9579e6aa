/**
 * The local server's memory (docs/architecture/local-runtime.md "Local memory"): V8 sizes a
 * thread's young generation from the heap limit, 64 MB semi-spaces on a machine with several GB,
 * and a thread keeps what a burst of requests made it commit. Both threads of `npm start` (the API
 * and the embedded engines) are held to 16 MB semi-spaces; these tests drive real traffic and read
 * the committed new space from Node's diagnostic report.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BatchWriteItemCommand, DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { LEVELDB_OPEN_OPTIONS } from '../../shared/local/embedded-dynalite';
import { startEmbeddedEngines, type EmbeddedEngines } from '../../shared/local/engines';
import { createActiveTable, createKeyValueTableCommand } from '../support/test-table';

const TABLE = 'local-memory-test';
/** Two 16 MB semi-spaces and a page of V8's own: what a thread's new space commits at most under the bound (unbounded: ~134 MB). */
const NEW_SPACE_LIMIT = 34 * 1024 * 1024;

interface ThreadReport {
  header: { threadId: number };
  javascriptHeap: { heapSpaces: Record<string, { memorySize: number }> };
}

/** The node flags of package.json's start script, as `npm start` passes them. */
function startScriptNodeFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  return (/\bnode((?:\s+--[\w-]+=\S+)*)\s+--import tsx\/esm bin\/start\.ts/.exec(scripts.start)?.[1] ?? '')
    .split(/\s+/)
    .filter(Boolean);
}

function workerReports(): ThreadReport[] {
  return (process.report.getReport() as unknown as { workers: ThreadReport[] }).workers;
}

describe('local server memory', () => {
  let dataDir: string;
  let engines: EmbeddedEngines;
  let client: DynamoDBClient;
  let threadsBefore: Set<number>;

  beforeAll(async () => {
    threadsBefore = new Set(workerReports().map((report) => report.header.threadId));
    dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-local-memory-'));
    // On disk, as `npm start` runs them (in memory the items would live in the engine's heap).
    engines = await startEmbeddedEngines({ dataDir });
    client = new DynamoDBClient({
      endpoint: engines.dynamoEndpoint,
      region: 'us-east-1',
      credentials: engines.credentials,
    });
    await createActiveTable(client, createKeyValueTableCommand(TABLE));
  });

  afterAll(async () => {
    client.destroy();
    await engines?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the engine thread young generation bounded through a burst of writes and reads', async () => {
    // An import-like burst: 6,000 items of ~2 KB in batches of 25, 8 batches in flight, then a full scan.
    const payload = 'x'.repeat(2048);
    const batches = Array.from({ length: 240 }, (_, batch) =>
      Array.from({ length: 25 }, (_, index): Record<string, AttributeValue> => ({
        pk: { S: `PKG#${batch}` },
        sk: { S: `ADV#${index}` },
        data: { S: `${batch}-${index}-${payload}` },
        n: { N: String(batch * 25 + index) },
      })),
    );
    for (let start = 0; start < batches.length; start += 8)
      await Promise.all(
        batches
          .slice(start, start + 8)
          .map((items) =>
            client.send(
              new BatchWriteItemCommand({ RequestItems: { [TABLE]: items.map((Item) => ({ PutRequest: { Item } })) } }),
            ),
          ),
      );
    let scanned = 0;
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({ TableName: TABLE, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }),
      );
      scanned += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    expect(scanned).toBe(6000);

    const engineThreads = workerReports().filter((report) => !threadsBefore.has(report.header.threadId));
    expect(engineThreads).toHaveLength(1);
    const newSpace = engineThreads[0]?.javascriptHeap.heapSpaces.new_space?.memorySize ?? Number.NaN;
    expect(newSpace).toBeLessThanOrEqual(NEW_SPACE_LIMIT);
  });

  it('starts the API thread of `npm start` with the same young generation bound', () => {
    const flags = startScriptNodeFlags();
    // Allocation with a high survival rate, which is what makes V8 grow the new space.
    const probe = `const v8 = require('node:v8'); let kept = [];
      for (let i = 0; i < 3e6; i++) { kept.push({ i, s: 'x' + i }); if (kept.length > 2e5) kept = []; }
      process.stdout.write(String(v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size));`;
    const newSpace = Number(execFileSync(process.execPath, [...flags, '-e', probe], { encoding: 'utf8' }));
    expect(newSpace).toBeLessThanOrEqual(NEW_SPACE_LIMIT);
  });

  it('starts `npm start` with old generations held to 2x growth: a promoting probe peaks under 3/4 of V8 default', () => {
    const flags = startScriptNodeFlags();
    // A live set, and a churn whose objects survive a few scavenges before they die (as a scan's batch writes
    // do): V8 promotes them, and lets the old generation grow by up to 4x between full collections by default.
    const probe = `const v8 = require('node:v8'); const oldSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
      const live = []; for (let i = 0; i < 4e5; i++) live.push({ i, s: 'live' + i, a: [i, i + 1] });
      let recent = []; let peak = 0;
      for (let round = 0; round < 60; round++) {
        for (let i = 0; i < 1e5; i++) recent.push({ i, s: 'x' + i, a: [i] });
        if (recent.length > 3e5) recent = [];
        peak = Math.max(peak, oldSpace().space_size);
      }
      process.stdout.write(String(peak));`;
    const peakOldSpace = (nodeFlags: string[]) =>
      Number(execFileSync(process.execPath, [...nodeFlags, '-e', probe], { encoding: 'utf8' }));
    const withStartFlags = peakOldSpace(flags);
    const withV8Default = peakOldSpace(flags.filter((flag) => !flag.startsWith('--heap-growing-percent')));
    expect(withStartFlags).toBeLessThan(withV8Default * 0.75);
  });

  it('keeps at most 64 LevelDB tables mapped by the LevelDB class dynalite opens, however many tables it reads', async () => {
    // The class dynalite's `new Level(path, { valueEncoding })` resolves to, patched by embedded-dynalite.ts.
    const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve('dynalite'));
    const { Level } = dynaliteRequire('level') as { Level: new (location: string, options: object) => LevelDb };
    const location = path.join(dataDir, 'table-cache');
    // 1 MB tables either way (LevelDB's smallest), so ~110 MB of incompressible values make more tables than the cap
    // with room to spare (75 MB once left exactly 64 tables on a loaded machine: the memtable and unmerged level-0 files hold some).
    // A 4 MB write buffer (LevelDB's default; the engine's 16 MB flushes larger level-0 tables): the cap on the
    // table cache is what is tested, and smaller level-0 tables make more tables of the same data.
    const db = new Level(location, {
      valueEncoding: 'buffer',
      maxFileSize: LEVELDB_OPEN_OPTIONS.maxFileSize,
      writeBufferSize: 4 * 1024 * 1024,
    });
    await db.open();
    try {
      // Random keys: compactions rewrite (and split) the tables instead of moving them.
      for (let batch = 0; batch < 110; batch += 1)
        await db.batch(
          Array.from({ length: 10 }, () => ({
            type: 'put' as const,
            key: randomBytes(8).toString('hex'),
            value: randomBytes(100_000),
          })),
        );
      let read = 0;
      for await (const entry of db.iterator()) read += entry.length;
      expect(read).toBe(2 * 1100);

      const tables = readdirSync(location).filter((name) => name.endsWith('.ldb')).length;
      const mapped = new Set(
        readFileSync('/proc/self/maps', 'utf8')
          .split('\n')
          .filter((line) => line.includes(location) && line.endsWith('.ldb'))
          .map((line) => line.split(/\s+/).at(-1)),
      );
      expect(tables).toBeGreaterThan(64);
      // LevelDB's table cache holds maxOpenFiles - 10 tables; one that leaves it is unmapped (default: 990).
      expect(mapped.size).toBeLessThanOrEqual(LEVELDB_OPEN_OPTIONS.maxOpenFiles - 10);
    } finally {
      await db.close();
    }
  }, 180_000);
});

interface LevelDb {
  open(): Promise<void>;
  close(): Promise<void>;
  batch(operations: { type: 'put'; key: string; value: Buffer }[]): Promise<void>;
  iterator(): AsyncIterable<[string, Buffer]>;
}
