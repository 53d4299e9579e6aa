/**
 * The embedded DynamoDB engine's transactions stay all-or-nothing when the process is
 * killed (SIGKILL) between two of a transaction's item writes: the engines run alone in
 * a child process that the engine itself kills after k of the n writes
 * (VEXDESK_ENGINE_CRASH_AFTER_ITEMS), and a restart on the same data directory must show
 * the transaction either wholly applied or not at all.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { startEngineChild, type EngineChild } from '../support/engine-child';
import { rejection } from '../support/assertions';
import { createActiveTable, createIndexedTableCommand, createKeyValueTableCommand } from '../support/test-table';
import { writeIndexEntryOnly } from '../support/dynalite-store';

const TABLE = 'crash-test';
const UPDATED = ['a', 'b', 'c', 'd'];
// 0: after the journal record, before any item; 6: after every item, before the record is cleared.
const ROUNDS = [0, 1, 3, 5, 6];
type Item = Record<string, unknown>;

function clientFor(engines: EngineChild): DynamoDBDocumentClient {
  // One attempt: a retry would reach the restarted engine and muddle the round.
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: engines.dynamoEndpoint,
      region: 'us-east-1',
      credentials: engines.credentials,
      maxAttempts: 1,
    }),
  );
}

async function tableState(doc: DynamoDBDocumentClient): Promise<Item[]> {
  const { Items = [] } = await doc.send(new ScanCommand({ TableName: TABLE, ConsistentRead: true }));
  return Items.sort((left, right) => String(left.sk).localeCompare(String(right.sk)));
}

/** Six writes (four updates, a put, a delete) and a condition check, all in one transaction. */
function roundTransaction(round: string) {
  return new TransactWriteCommand({
    TransactItems: [
      ...UPDATED.map((sk) => ({
        Update: {
          TableName: TABLE,
          Key: { pk: 'p', sk },
          UpdateExpression: 'SET v = v + :one, lastRound = :round',
          ExpressionAttributeValues: { ':one': 1, ':round': round },
        },
      })),
      {
        Put: {
          TableName: TABLE,
          Item: { pk: 'p', sk: `added-${round}`, v: 0 },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Delete: {
          TableName: TABLE,
          Key: { pk: 'p', sk: `doomed-${round}` },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      {
        ConditionCheck: {
          TableName: TABLE,
          Key: { pk: 'p', sk: 'guard' },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    ],
  });
}

/** What the table holds once the round's transaction applied in full. */
function applied(before: Item[], round: string): Item[] {
  const after = before
    .filter((item) => item.sk !== `doomed-${round}`)
    .map((item) => (UPDATED.includes(String(item.sk)) ? { ...item, v: Number(item.v) + 1, lastRound: round } : item));
  after.push({ pk: 'p', sk: `added-${round}`, v: 0 });
  return after.sort((left, right) => String(left.sk).localeCompare(String(right.sk)));
}

describe('embedded DynamoDB transactions across a crash', () => {
  let dataDir: string;
  let engines: EngineChild | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-embedded-crash-'));
    engines = await startEngineChild(dataDir);
    const doc = clientFor(engines);
    await createActiveTable(doc, createKeyValueTableCommand(TABLE));
    // A new table is ACTIVE only after CreateTable answers (as on AWS); a loaded machine can put first.
    await waitUntilTableExists({ client: doc, maxWaitTime: 60 }, { TableName: TABLE });
    // Every round deletes its own item, so later rounds start from a known state too.
    for (const sk of [...UPDATED, 'guard', ...ROUNDS.map((k) => `doomed-k${k}`), 'doomed-mixed'])
      await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'p', sk, v: 0 } }));
    doc.destroy();
    await engines.stop();
    engines = undefined;
  });

  afterEach(async () => {
    await engines?.stop();
    engines = undefined;
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it.each(ROUNDS)('shows all or nothing after a SIGKILL once %i of 6 item writes are applied', async (k) => {
    const round = `k${k}`;
    engines = await startEngineChild(dataDir, { VEXDESK_ENGINE_CRASH_AFTER_ITEMS: String(k) });
    let doc = clientFor(engines);
    const before = await tableState(doc);
    await rejection(doc.send(roundTransaction(round)));
    expect(await engines.exited).toBe('SIGKILL');
    doc.destroy();

    engines = await startEngineChild(dataDir);
    doc = clientFor(engines);
    const after = await tableState(doc);
    expect([before, applied(before, round)]).toContainEqual(after);
    expect(await readdir(path.join(dataDir, 'dynamodb-journal'))).toEqual([]);

    // The recovered engine goes on committing transactions.
    if (after.some((item) => item.sk === `doomed-${round}`)) {
      await doc.send(roundTransaction(round));
      expect(await tableState(doc)).toEqual(applied(before, round));
    }
    doc.destroy();
  });

  it('keeps the transactions acknowledged before the crash and undoes only the interrupted one', async () => {
    // Two-write transactions stay below the crash point of 3 and commit; the six-write one is killed after its third.
    engines = await startEngineChild(dataDir, { VEXDESK_ENGINE_CRASH_AFTER_ITEMS: '3' });
    let doc = clientFor(engines);
    const start = await tableState(doc);
    const bump = (sk: string, tag: string) => ({
      Update: {
        TableName: TABLE,
        Key: { pk: 'p', sk },
        UpdateExpression: 'SET v = v + :one, lastRound = :tag',
        ExpressionAttributeValues: { ':one': 1, ':tag': tag },
      },
    });
    await Promise.all([
      doc.send(new TransactWriteCommand({ TransactItems: [bump('a', 'small-1'), bump('b', 'small-1')] })),
      doc.send(new TransactWriteCommand({ TransactItems: [bump('c', 'small-2'), bump('d', 'small-2')] })),
    ]);
    await doc.send(new TransactWriteCommand({ TransactItems: [bump('a', 'small-3'), bump('c', 'small-3')] }));
    const acknowledged = await tableState(doc);
    expect(acknowledged).not.toEqual(start);
    await rejection(doc.send(roundTransaction('mixed')));
    expect(await engines.exited).toBe('SIGKILL');
    doc.destroy();

    engines = await startEngineChild(dataDir);
    doc = clientFor(engines);
    expect(await tableState(doc)).toEqual(acknowledged);
    expect(await readdir(path.join(dataDir, 'dynamodb-journal'))).toEqual([]);
    doc.destroy();
  });

  it('drops the index entry of a write the crash cut between its index entry and its item', async () => {
    const indexed = 'crash-test-indexed';
    engines = await startEngineChild(dataDir);
    let doc = clientFor(engines);
    await createActiveTable(doc, createIndexedTableCommand(indexed));
    await waitUntilTableExists({ client: doc, maxWaitTime: 60 }, { TableName: indexed });
    await doc.send(
      new PutCommand({ TableName: indexed, Item: { pk: 'p', sk: 'kept', gsi1pk: 'PENDING', gsi1sk: 'old', v: 1 } }),
    );
    await engines.stop();
    engines = undefined;
    doc.destroy();

    // What a SIGKILL inside dynalite's writes of a transaction leaves: a new item's index entry without the
    // item, an updated item's new index entry beside its old self, and the transaction's journal record.
    await writeIndexEntryOnly(path.join(dataDir, 'dynamodb'), indexed, 'gsi1', {
      pk: { S: 'p' },
      sk: { S: 'created' },
      gsi1pk: { S: 'PENDING' },
      gsi1sk: { S: 'new' },
    });
    await writeIndexEntryOnly(path.join(dataDir, 'dynamodb'), indexed, 'gsi1', {
      pk: { S: 'p' },
      sk: { S: 'kept' },
      gsi1pk: { S: 'PENDING' },
      gsi1sk: { S: 'moved' },
      v: { N: '2' },
    });
    await writeFile(
      path.join(dataDir, 'dynamodb-journal', `${Date.now().toString().padStart(15, '0')}-000000001-torn.json`),
      JSON.stringify({
        transaction: 'torn',
        items: [
          { tableName: indexed, key: { pk: { S: 'p' }, sk: { S: 'created' } } },
          {
            tableName: indexed,
            key: { pk: { S: 'p' }, sk: { S: 'kept' } },
            item: { pk: { S: 'p' }, sk: { S: 'kept' }, gsi1pk: { S: 'PENDING' }, gsi1sk: { S: 'old' }, v: { N: '1' } },
          },
        ],
      }),
    );

    engines = await startEngineChild(dataDir);
    doc = clientFor(engines);
    const { Items = [] } = await doc.send(
      new QueryCommand({
        TableName: indexed,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pending',
        ExpressionAttributeValues: { ':pending': 'PENDING' },
      }),
    );
    expect(Items).toEqual([{ pk: 'p', sk: 'kept', gsi1pk: 'PENDING', gsi1sk: 'old', v: 1 }]);
    expect(await readdir(path.join(dataDir, 'dynamodb-journal'))).toEqual([]);
    doc.destroy();
  });
});
