/**
 * The embedded engine answers reads of LevelDB keys never written from a Bloom filter in memory
 * (shared/local/embedded-level-key-filter.ts): every written key must still be read from LevelDB,
 * whichever way it was written (put, array batch, chained batch; string or bytes) and whether it was
 * written before the store was opened (the filter's build) or after; and items stored before an
 * engine restart must be read, replaced and re-indexed as before.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  QueryCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { startEmbeddedEngines } from '../../shared/local/engines';
import '../../shared/local/embedded-dynalite'; // installs the filter on dynalite's classic-level
import { keyFilterOf } from '../../shared/local/embedded-level-key-filter';
import { clientFor } from '../support/embedded-transactions';
import { createActiveTable, createIndexedTableCommand } from '../support/test-table';

interface ChainedBatch {
  put(key: string, value: string): ChainedBatch;
  write(): Promise<void>;
}
interface Level {
  open(): Promise<void>;
  close(): Promise<void>;
  put(key: string | Buffer, value: string): Promise<void>;
  get(key: string | Buffer): Promise<string | undefined>;
  del(key: string): Promise<void>;
  batch(operations: { type: 'put'; key: string; value: string }[]): Promise<void>;
  batch(): ChainedBatch;
}
const require = createRequire(import.meta.url);
const { Level } = createRequire(require.resolve('dynalite'))('level') as {
  Level: new (location: string, options: { valueEncoding: string }) => Level;
};

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'vexdesk-key-filter-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function filterReady(db: Level): Promise<void> {
  for (let waited = 0; !keyFilterOf(db)?.ready; waited += 10) {
    if (waited > 10_000) throw new Error('the key filter was not built within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const absentKeys = Array.from({ length: 2000 }, (_, index) => `item-table~absent/${index}`);

describe('LevelDB key filter', () => {
  it('reads every key written, by any write path, before and after the store was reopened', async () => {
    const location = path.join(directory, 'paths');
    const before = Array.from({ length: 5000 }, (_, index) => `item-table~${index.toString(16)}/before`);
    let db = new Level(location, { valueEncoding: 'utf8' });
    await db.open();
    await db.batch(before.map((key) => ({ type: 'put', key, value: `v:${key}` })));
    await db.close();

    db = new Level(location, { valueEncoding: 'utf8' });
    await db.open();
    await filterReady(db);
    await db.put('item-table~put/string', 'put');
    await db.put(Buffer.from('item-table~put/bytes'), 'bytes');
    await db.put('item-table~put/ünïcode', 'unicode');
    await db.batch([{ type: 'put', key: 'item-table~batch/array', value: 'array' }]);
    await db.batch().put('item-table~batch/chained', 'chained').write();

    for (const key of before) expect(await db.get(key)).toBe(`v:${key}`);
    expect(await db.get(Buffer.from('item-table~put/string'))).toBe('put');
    expect(await db.get('item-table~put/bytes')).toBe('bytes');
    expect(await db.get(Buffer.from('item-table~put/ünïcode', 'utf8'))).toBe('unicode');
    expect(await db.get('item-table~batch/array')).toBe('array');
    expect(await db.get('item-table~batch/chained')).toBe('chained');

    // Deleted keys stay in the filter (a Bloom filter cannot forget): the read goes to LevelDB, which has none.
    await db.del('item-table~batch/array');
    expect(await db.get('item-table~batch/array')).toBeUndefined();
    // Keys never written are answered by the filter, nearly all of them.
    const filter = keyFilterOf(db)!;
    expect(absentKeys.filter((key) => filter.mightHold(key)).length).toBeLessThan(10);
    for (const key of absentKeys.slice(0, 100)) expect(await db.get(key)).toBeUndefined();
    await db.close();
  });

  it('reads from LevelDB until the filter is built, and a store closed while building opens again', async () => {
    const location = path.join(directory, 'closed-early');
    let db = new Level(location, { valueEncoding: 'utf8' });
    await db.open();
    await db.batch(Array.from({ length: 20_000 }, (_, index) => ({ type: 'put', key: `k${index}`, value: 'v' })));
    await db.close();

    db = new Level(location, { valueEncoding: 'utf8' });
    await db.open();
    expect(await db.get('k19999')).toBe('v');
    await db.close();

    db = new Level(location, { valueEncoding: 'utf8' });
    await db.open();
    await filterReady(db);
    expect(await db.get('k0')).toBe('v');
    expect(await db.get('k19999')).toBe('v');
    await db.close();
  });
});

describe('the key filter build', () => {
  it('reads the keys of a large store in a few steps, each a hop to the thread pool', async () => {
    const location = path.join(directory, 'steps');
    let db = new Level(location, { valueEncoding: 'utf8' });
    await db.open();
    // Keys of dynalite's length (~100 bytes): 16 KB of them per step would be ~160 keys, 250 steps.
    const keys = Array.from(
      { length: 40_000 },
      (_, index) => `item-vexdesk~${index.toString(16).padStart(6, '0')}/${'ab'.repeat(40)}/`,
    );
    await db.batch(keys.map((key) => ({ type: 'put', key, value: 'v' })));
    await db.close();

    db = new Level(location, { valueEncoding: 'utf8' });
    let steps = 0;
    const keysOf = (db as unknown as { keys: (options: object) => { nextv: (size: number) => Promise<unknown[]> } })
      .keys;
    Object.assign(db, {
      keys(this: Level, options: object) {
        const iterator = keysOf.call(this, options);
        const nextv = iterator.nextv.bind(iterator);
        iterator.nextv = (size: number) => {
          steps += 1;
          return nextv(size);
        };
        return iterator;
      },
    });
    await db.open();
    await filterReady(db);
    expect(steps).toBeLessThanOrEqual(6);
    for (const key of keys.slice(0, 100)) expect(await db.get(key)).toBe('v');
    await db.close();
  });

  it('leaves a store with a key that is not UTF-8 unfiltered, every read going to LevelDB', async () => {
    const location = path.join(directory, 'not-utf8');
    let db = new Level(location, { valueEncoding: 'utf8' });
    await db.open();
    const bytesKey = Buffer.from([0x69, 0x74, 0x65, 0x6d, 0xff, 0xfe, 0x01]);
    await db.put(bytesKey, 'bytes');
    await db.batch(Array.from({ length: 100 }, (_, index) => ({ type: 'put', key: `k${index}`, value: 'v' })));
    await db.close();

    db = new Level(location, { valueEncoding: 'utf8' });
    await db.open();
    await new Promise((resolve) => setTimeout(resolve, 500)); // a store of a few keys: built by now, were it built
    expect(keyFilterOf(db)?.ready).toBe(false);
    expect(await db.get(bytesKey)).toBe('bytes');
    expect(await db.get('k99')).toBe('v');
    await db.close();
  });
});

describe('the embedded engine with the key filter', () => {
  const TABLE = 'key-filter-test';
  const items = Array.from({ length: 50 }, (_, index) => ({
    pk: { S: `item-${index}` },
    sk: { S: 'v' },
    gsi1pk: { S: 'before' },
    gsi1sk: { S: `item-${index}` },
  }));

  it('reads, replaces and re-indexes items it stored before a restart', async () => {
    const dataDir = path.join(directory, 'engine');
    let engines = await startEmbeddedEngines({ dataDir });
    let client: DynamoDBClient = clientFor(engines);
    await createActiveTable(client, createIndexedTableCommand(TABLE));
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: { [TABLE]: items.slice(0, 25).map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: { [TABLE]: items.slice(25).map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
    client.destroy();
    await engines.stop();

    engines = await startEmbeddedEngines({ dataDir });
    client = clientFor(engines);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500)); // a store of a few keys: built by now
      const read = await client.send(
        new BatchGetItemCommand({
          RequestItems: {
            [TABLE]: {
              Keys: [...items, { pk: { S: 'never' }, sk: { S: 'v' } }].map(({ pk, sk }) => ({ pk, sk })).slice(0, 100),
            },
          },
        }),
      );
      expect(read.Responses?.[TABLE]).toHaveLength(50);

      // Replacing moves each item's index entry: the replace must have read the item it replaced.
      for (const slice of [items.slice(0, 25), items.slice(25)])
        await client.send(
          new BatchWriteItemCommand({
            RequestItems: {
              [TABLE]: slice.map((item) => ({ PutRequest: { Item: { ...item, gsi1pk: { S: 'after' } } } })),
            },
          }),
        );
      const indexed = async (gsi1pk: string) =>
        (
          await client.send(
            new QueryCommand({
              TableName: TABLE,
              IndexName: 'gsi1',
              KeyConditionExpression: 'gsi1pk = :pk',
              ExpressionAttributeValues: { ':pk': { S: gsi1pk } },
            }),
          )
        ).Count;
      expect(await indexed('before')).toBe(0);
      expect(await indexed('after')).toBe(50);
    } finally {
      client.destroy();
      await engines.stop();
    }
  });
});
