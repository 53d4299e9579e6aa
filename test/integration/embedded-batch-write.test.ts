/**
 * The embedded engine writes a BatchWriteItem as one LevelDB batch (shared/local/embedded-dynalite-store.ts):
 * items and their index entries must come out exactly as dynalite's item-by-item writes left them,
 * and a bad batch must be refused whole with DynamoDB's messages. The table description is cached
 * while the table is active, so a table deleted and created again must be seen by the next write.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { startEmbeddedEngines, type EmbeddedEngines } from '../../shared/local/engines';
import { clientFor, uniquePk } from '../support/embedded-transactions';
import { createActiveTable, createIndexedTableCommand, createKeyValueTableCommand } from '../support/test-table';

const TABLE = 'batch-write-test';
let dataDir: string;
let engines: EmbeddedEngines;
let client: DynamoDBClient;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-batch-write-'));
  // On disk: the LevelDB store is the one that takes the batches in production runs.
  engines = await startEmbeddedEngines({ dataDir });
  client = clientFor(engines);
  await createActiveTable(client, createIndexedTableCommand(TABLE));
});

afterAll(async () => {
  client.destroy();
  await engines.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const put = (pk: string, sk: string, extra: Record<string, string> = {}) => ({
  PutRequest: {
    Item: {
      pk: { S: pk },
      sk: { S: sk },
      ...Object.fromEntries(Object.entries(extra).map(([name, value]) => [name, { S: value }])),
    },
  },
});
const remove = (pk: string, sk: string) => ({ DeleteRequest: { Key: { pk: { S: pk }, sk: { S: sk } } } });

async function indexed(gsi1pk: string): Promise<string[]> {
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: gsi1pk } },
    }),
  );
  return Items.map((item) => `${item.sk?.S ?? ''}:${item.gsi1sk?.S ?? ''}:${item.note?.S ?? ''}`).sort();
}

describe('BatchWriteItem on the embedded engine', () => {
  it('writes items and keeps the global index in step on replace and delete', async () => {
    const pk = uniquePk('batch');
    const group = uniquePk('group');
    const other = uniquePk('other');
    const items = Array.from({ length: 25 }, (_, index) =>
      put(pk, `item-${String(index).padStart(2, '0')}`, { gsi1pk: group, gsi1sk: `v1-${index}`, note: 'first' }),
    );
    const first = await client.send(
      new BatchWriteItemCommand({ RequestItems: { [TABLE]: items }, ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(first.UnprocessedItems).toEqual({});
    expect(first.ConsumedCapacity).toEqual([{ TableName: TABLE, CapacityUnits: 25 }]);
    expect(await indexed(group)).toHaveLength(25);

    // Replace: one moves to another index key, one loses its index key, one is deleted, one is new.
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [TABLE]: [
            put(pk, 'item-00', { gsi1pk: other, gsi1sk: 'v2', note: 'moved' }),
            put(pk, 'item-01', { note: 'unindexed' }),
            put(pk, 'item-02', { gsi1pk: group, gsi1sk: 'v2-2', note: 'second' }),
            remove(pk, 'item-03'),
            put(pk, 'item-99', { gsi1pk: group, gsi1sk: 'v2-99', note: 'new' }),
          ],
        },
      }),
    );
    const inGroup = await indexed(group);
    expect(inGroup).toHaveLength(23);
    expect(inGroup).toContain('item-02:v2-2:second');
    expect(inGroup).toContain('item-99:v2-99:new');
    expect(inGroup.some((entry) => /^item-0[013]:/.test(entry))).toBe(false);
    expect(await indexed(other)).toEqual(['item-00:v2:moved']);
    const deleted = await client.send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: { S: pk }, sk: { S: 'item-03' } } }),
    );
    expect(deleted.Item).toBeUndefined();
    const unindexed = await client.send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: { S: pk }, sk: { S: 'item-01' } } }),
    );
    expect(unindexed.Item?.note?.S).toBe('unindexed');
  });

  it('refuses a batch with duplicate keys or a wrong key whole, with DynamoDB messages', async () => {
    const pk = uniquePk('refused');
    await expect(
      client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: [put(pk, 'a'), put(pk, 'b'), put(pk, 'a')] } })),
    ).rejects.toThrow('Provided list of item keys contains duplicates');
    await expect(
      client.send(
        new BatchWriteItemCommand({
          RequestItems: { [TABLE]: [put(pk, 'c'), { PutRequest: { Item: { pk: { S: pk } } } }] },
        }),
      ),
    ).rejects.toThrow('The provided key element does not match the schema');
    await expect(
      client.send(new BatchWriteItemCommand({ RequestItems: { 'no-such-table': [put(pk, 'd')] } })),
    ).rejects.toThrow('Requested resource not found');
    const written = await client.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: pk } },
      }),
    );
    expect(written.Items).toEqual([]);
  });

  it('answers BatchGetItem with the stored items, projected, missing keys left out', async () => {
    const pk = uniquePk('get');
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: { [TABLE]: [put(pk, 'a', { note: 'first', extra: 'x' }), put(pk, 'b', { note: 'second' })] },
      }),
    );
    const key = (sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
    const answer = await client.send(
      new BatchGetItemCommand({
        RequestItems: {
          [TABLE]: {
            Keys: [key('a'), key('missing'), key('b')],
            ProjectionExpression: '#sk, note',
            ExpressionAttributeNames: { '#sk': 'sk' },
          },
        },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    const items = (answer.Responses?.[TABLE] ?? []).sort((x, y) => String(x.sk?.S).localeCompare(String(y.sk?.S)));
    expect(items).toEqual([
      { sk: { S: 'a' }, note: { S: 'first' } },
      { sk: { S: 'b' }, note: { S: 'second' } },
    ]);
    expect(answer.UnprocessedKeys).toEqual({});
    expect(answer.ConsumedCapacity).toEqual([{ TableName: TABLE, CapacityUnits: 1.5 }]);
    await expect(
      client.send(new BatchGetItemCommand({ RequestItems: { [TABLE]: { Keys: [{ pk: { S: pk } }] } } })),
    ).rejects.toThrow('The provided key element does not match the schema');
    await expect(
      client.send(new BatchGetItemCommand({ RequestItems: { 'no-such-table': { Keys: [key('a')] } } })),
    ).rejects.toThrow('Requested resource not found');
  });

  it('sees a table recreated with an index after the table was cached', async () => {
    const name = `${TABLE}-recreated`;
    await createActiveTable(client, createKeyValueTableCommand(name));
    await waitUntil(name, 'ACTIVE');
    await client.send(new BatchWriteItemCommand({ RequestItems: { [name]: [put('p', 'cached', { gsi1pk: 'g' })] } }));
    await client.send(new DeleteTableCommand({ TableName: name }));
    await waitUntil(name, 'GONE');
    await createActiveTable(client, createIndexedTableCommand(name));
    await waitUntil(name, 'ACTIVE');
    // A stale description (no index) would write the item without its index entry.
    await client.send(
      new BatchWriteItemCommand({ RequestItems: { [name]: [put('p', 'after', { gsi1pk: 'g', gsi1sk: 's' })] } }),
    );
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: name,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'g' } },
      }),
    );
    expect(Items.map((item) => item.sk?.S)).toEqual(['after']);
  });
});

async function waitUntil(name: string, status: 'ACTIVE' | 'GONE'): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const table = await client.send(new DescribeTableCommand({ TableName: name })).then(
      (described) => described.Table,
      (error: unknown) => {
        if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
        throw error;
      },
    );
    if (status === 'GONE' ? table === undefined : table?.TableStatus === 'ACTIVE') return;
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error(`${name} did not become ${status}`);
}
