/**
 * The embedded DynamoDB engine's transactions, exercised through the unchanged AWS
 * SDK v3 (low-level client and DocumentClient), including racing writers that a
 * non-isolated implementation would get wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  ResourceNotFoundException,
  ScanCommand,
  TransactGetItemsCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactGetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { findRunningEngines, startEmbeddedEngines, type EmbeddedEngines } from '../../shared/local/engines';
import { rejection } from '../support/assertions';
import { createKeyValueTableCommand } from '../support/test-table';

const TABLE = 'transactions-test';

/** A client signing with the engines' own key pair (the only one they accept). */
function clientFor(engines: EmbeddedEngines): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: engines.dynamoEndpoint,
    region: 'us-east-1',
    credentials: engines.credentials,
  });
}

let counter = 0;
const uniquePk = (label: string) => `${label}#${Date.now()}#${++counter}`;

describe('embedded DynamoDB transactions', () => {
  let dataDir: string;
  let engines: EmbeddedEngines;
  let client: DynamoDBClient;
  let doc: DynamoDBDocumentClient;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-embedded-tx-'));
    engines = await startEmbeddedEngines({ dataDir, inMemory: true });
    client = clientFor(engines);
    doc = DynamoDBDocumentClient.from(client);
    await client.send(createKeyValueTableCommand(TABLE));
  });

  afterAll(async () => {
    client.destroy();
    await engines.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const get = async (pk: string, sk = 'item') =>
    (await doc.send(new GetCommand({ TableName: TABLE, Key: { pk, sk }, ConsistentRead: true }))).Item;

  it('commits Put, Update and Delete of a DocumentClient TransactWriteCommand together', async () => {
    const pk = uniquePk('commit');
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk, sk: 'doomed', n: 1 } }));
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk, sk: 'counter', n: 10 } }));

    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: TABLE,
              Item: { pk, sk: 'new', tags: ['a'] },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: TABLE,
              Key: { pk, sk: 'counter' },
              UpdateExpression: 'SET n = n + :step',
              ConditionExpression: 'n = :expected',
              ExpressionAttributeValues: { ':step': 5, ':expected': 10 },
            },
          },
          { Delete: { TableName: TABLE, Key: { pk, sk: 'doomed' }, ConditionExpression: 'attribute_exists(pk)' } },
        ],
      }),
    );

    expect(await get(pk, 'new')).toEqual({ pk, sk: 'new', tags: ['a'] });
    expect(await get(pk, 'counter')).toEqual({ pk, sk: 'counter', n: 15 });
    expect(await get(pk, 'doomed')).toBeUndefined();
  });

  it('cancels the whole transaction with CancellationReasons (and ALL_OLD items) when a condition fails', async () => {
    const pk = uniquePk('rollback');
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk, sk: 'taken', owner: 'first' } }));

    const error = await rejection(
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              Put: {
                TableName: TABLE,
                Item: { pk: { S: pk }, sk: { S: 'taken' }, owner: { S: 'second' } },
                ConditionExpression: 'attribute_not_exists(pk)',
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
            { Put: { TableName: TABLE, Item: { pk: { S: pk }, sk: { S: 'other' } } } },
            {
              Update: {
                TableName: TABLE,
                Key: { pk: { S: pk }, sk: { S: 'missing' } },
                UpdateExpression: 'SET #v = :v',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeNames: { '#v': 'value' },
                ExpressionAttributeValues: { ':v': { N: '1' } },
              },
            },
          ],
        }),
      ),
    );

    expect(error).toBeInstanceOf(TransactionCanceledException);
    const canceled = error as TransactionCanceledException;
    expect(canceled.$metadata.httpStatusCode).toBe(400);
    expect(canceled.message).toBe(
      'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None, ConditionalCheckFailed]',
    );
    expect(canceled.CancellationReasons).toEqual([
      {
        Code: 'ConditionalCheckFailed',
        Message: 'The conditional request failed',
        Item: { pk: { S: pk }, sk: { S: 'taken' }, owner: { S: 'first' } },
      },
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
    ]);
    expect(await get(pk, 'taken')).toEqual({ pk, sk: 'taken', owner: 'first' });
    expect(await get(pk, 'other')).toBeUndefined();
    expect(await get(pk, 'missing')).toBeUndefined();
  });

  it('applies the writes only when every ConditionCheck holds, and never writes the checked item', async () => {
    const pk = uniquePk('check');
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk, sk: 'lock', state: 'open', version: 3 } }));
    const transact = (state: string, sk: string) =>
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: TABLE,
                Key: { pk, sk: 'lock' },
                ConditionExpression: '#s = :state',
                ExpressionAttributeNames: { '#s': 'state' },
                ExpressionAttributeValues: { ':state': state },
              },
            },
            { Put: { TableName: TABLE, Item: { pk, sk, written: true } } },
          ],
        }),
      );

    await transact('open', 'allowed');
    expect(await get(pk, 'allowed')).toEqual({ pk, sk: 'allowed', written: true });

    const error = await rejection(transact('closed', 'refused'));
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual([
      'ConditionalCheckFailed',
      'None',
    ]);
    expect(await get(pk, 'refused')).toBeUndefined();
    expect(await get(pk, 'lock')).toEqual({ pk, sk: 'lock', state: 'open', version: 3 });

    // A ConditionCheck on a missing item must not create it.
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: TABLE,
              Key: { pk, sk: 'ghost' },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          { Put: { TableName: TABLE, Item: { pk, sk: 'after-ghost' } } },
        ],
      }),
    );
    expect(await get(pk, 'ghost')).toBeUndefined();
    expect(await get(pk, 'after-ghost')).toEqual({ pk, sk: 'after-ghost' });
  });

  it('evaluates update expressions like UpdateItem and rolls back items already applied when one fails', async () => {
    const pk = uniquePk('update');
    await doc.send(
      new PutCommand({ TableName: TABLE, Item: { pk, sk: 'doc', list: [1], count: 1, obsolete: 'x', label: 'text' } }),
    );

    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: TABLE,
              Key: { pk, sk: 'doc' },
              UpdateExpression:
                'SET #l = list_append(#l, :more), created = if_not_exists(created, :now), nested = :nested ADD #c :two REMOVE obsolete',
              ExpressionAttributeNames: { '#l': 'list', '#c': 'count' },
              ExpressionAttributeValues: {
                ':more': [2, 3],
                ':now': '2024-01-01',
                ':two': 2,
                ':nested': { a: { b: true } },
              },
            },
          },
        ],
      }),
    );
    expect(await get(pk, 'doc')).toEqual({
      pk,
      sk: 'doc',
      list: [1, 2, 3],
      count: 3,
      label: 'text',
      created: '2024-01-01',
      nested: { a: { b: true } },
    });

    // The first update is applied before the second fails at run time (ADD to a string):
    // DynamoDB reports a ValidationError reason and nothing of the transaction remains.
    const error = await rejection(
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: TABLE, Item: { pk, sk: 'fresh' } } },
            {
              Update: {
                TableName: TABLE,
                Key: { pk, sk: 'doc' },
                UpdateExpression: 'ADD #c :one',
                ExpressionAttributeNames: { '#c': 'count' },
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
            {
              Update: {
                TableName: TABLE,
                Key: { pk, sk: 'doc2' },
                UpdateExpression: 'SET x = :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
            {
              Update: {
                TableName: TABLE,
                Key: { pk, sk: 'doc3' },
                UpdateExpression: 'SET label = :s ADD label2 :one',
                ExpressionAttributeValues: { ':s': 's', ':one': 1 },
              },
            },
            {
              Update: {
                TableName: TABLE,
                Key: { pk, sk: 'text' },
                UpdateExpression: 'SET v = :s',
                ExpressionAttributeValues: { ':s': 'v' },
              },
            },
            {
              Update: {
                TableName: TABLE,
                Key: { pk, sk: 'doc4' },
                UpdateExpression: 'SET label = label + :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
          ],
        }),
      ),
    );
    expect(error).toBeInstanceOf(TransactionCanceledException);
    const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
    expect(reasons.map((reason) => reason.Code)).toEqual(['None', 'None', 'None', 'None', 'None', 'ValidationError']);
    expect(reasons[5]?.Message).toMatch(/attribute that does not exist|incorrect data type/);
    expect(await get(pk, 'doc')).toMatchObject({ count: 3 });
    for (const sk of ['fresh', 'doc2', 'doc3', 'text', 'doc4']) expect(await get(pk, sk)).toBeUndefined();
  });

  it('reads several items consistently with TransactGetItems', async () => {
    const pk = uniquePk('get');
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk, sk: 'one', n: 1, secret: 's' } }));
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk, sk: 'two', n: 2 } }));

    const result = await doc.send(
      new TransactGetCommand({
        TransactItems: [
          {
            Get: {
              TableName: TABLE,
              Key: { pk, sk: 'one' },
              ProjectionExpression: 'pk, #n',
              ExpressionAttributeNames: { '#n': 'n' },
            },
          },
          { Get: { TableName: TABLE, Key: { pk, sk: 'absent' } } },
          { Get: { TableName: TABLE, Key: { pk, sk: 'two' } } },
        ],
      }),
    );
    expect(result.Responses?.map((response) => response.Item)).toEqual([
      { pk, n: 1 },
      undefined,
      { pk, sk: 'two', n: 2 },
    ]);
  });

  it('rejects invalid transactions like DynamoDB, before writing anything', async () => {
    const pk = uniquePk('invalid');
    const put = (sk: string) => ({ Put: { TableName: TABLE, Item: { pk, sk } } });
    const expectValidation = async (work: Promise<unknown>, message: RegExp) => {
      const error = await rejection(work);
      expect(error.name).toBe('ValidationException');
      expect(error.message).toMatch(message);
    };

    await expectValidation(
      doc.send(
        new TransactWriteCommand({ TransactItems: Array.from({ length: 101 }, (_, index) => put(`i${index}`)) }),
      ),
      /length less than or equal to 100/,
    );
    await expectValidation(
      doc.send(
        new TransactWriteCommand({
          TransactItems: [put('same'), { Delete: { TableName: TABLE, Key: { pk, sk: 'same' } } }],
        }),
      ),
      /multiple operations on one item/,
    );
    await expectValidation(
      doc.send(
        new TransactGetCommand({
          TransactItems: [
            { Get: { TableName: TABLE, Key: { pk, sk: 'same' } } },
            { Get: { TableName: TABLE, Key: { pk, sk: 'same' } } },
          ],
        }),
      ),
      /multiple operations on one item/,
    );
    await expectValidation(
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            put('a'),
            {
              Put: {
                TableName: TABLE,
                Item: { pk, sk: 'b' },
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':unused': 1 },
              },
            },
          ],
        }),
      ),
      /unused/,
    );
    await expectValidation(
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            put('a'),
            { Update: { TableName: TABLE, Key: { pk, sk: 'b' }, UpdateExpression: 'SET = broken' } },
          ],
        }),
      ),
      /Invalid UpdateExpression/,
    );
    await expectValidation(
      doc.send(new TransactWriteCommand({ TransactItems: [put('a'), { Delete: { TableName: TABLE, Key: { pk } } }] })),
      /key element does not match the schema/,
    );
    await expectValidation(
      doc.send(new TransactWriteCommand({ TransactItems: [put('a'), { Put: { TableName: TABLE, Item: { pk } } }] })),
      /Missing the key sk/,
    );
    await expectValidation(
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: [{ ConditionCheck: { TableName: TABLE, Key: { pk: { S: pk }, sk: { S: 'a' } } } } as never],
        }),
      ),
      /conditionExpression.*must not be null/,
    );

    const missingTable = await rejection(
      doc.send(
        new TransactWriteCommand({ TransactItems: [{ Put: { TableName: 'no-such-table', Item: { pk, sk: 'a' } } }] }),
      ),
    );
    expect(missingTable).toBeInstanceOf(ResourceNotFoundException);

    const written = await client.send(
      new ScanCommand({
        TableName: TABLE,
        FilterExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: pk } },
        ConsistentRead: true,
      }),
    );
    expect(written.Count).toBe(0);
  });

  it('honours ClientRequestToken idempotency: a retried commit is not applied twice', async () => {
    const pk = uniquePk('token');
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk, sk: 'item', n: 0 } }));
    const increment = (token: string, by: number) =>
      doc.send(
        new TransactWriteCommand({
          ClientRequestToken: token,
          TransactItems: [
            {
              Update: {
                TableName: TABLE,
                Key: { pk, sk: 'item' },
                UpdateExpression: 'ADD n :by',
                ExpressionAttributeValues: { ':by': by },
              },
            },
          ],
        }),
      );
    const token = `token-${pk}`;
    await increment(token, 1);
    await increment(token, 1);
    expect(await get(pk)).toMatchObject({ n: 1 });
    const mismatch = await rejection(increment(token, 2));
    expect(mismatch.name).toBe('IdempotentParameterMismatchException');
    expect(await get(pk)).toMatchObject({ n: 1 });
  });

  it('isolates racing optimistic transactions, plain UpdateItem ADDs, rollbacks and concurrent readers', async () => {
    const pk = uniquePk('race');
    const TOTAL = 1000;
    const TRANSFERS = 50;
    const PLAIN_ADDS = 100;
    const FAILING = 20;
    const key = (sk: string): Record<string, AttributeValue> => ({ pk: { S: pk }, sk: { S: sk } });
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [TABLE]: [
            { PutRequest: { Item: { ...key('A'), balance: { N: String(TOTAL) }, version: { N: '0' } } } },
            { PutRequest: { Item: { ...key('B'), balance: { N: '0' }, version: { N: '0' } } } },
            { PutRequest: { Item: { ...key('hits'), n: { N: '0' } } } },
            { PutRequest: { Item: { ...key('text'), s: { S: 'not a number' } } } },
          ],
        },
      }),
    );

    let attempts = 0;
    // Read both accounts, then move 1 unit from A to B only if neither changed meanwhile.
    const transfer = async (): Promise<void> => {
      let retries = 0;
      for (;;) {
        attempts += 1;
        const [a, b] = await Promise.all(
          ['A', 'B'].map(
            async (sk) =>
              (await client.send(new GetItemCommand({ TableName: TABLE, Key: key(sk), ConsistentRead: true }))).Item,
          ),
        );
        const versionA = a?.version?.N ?? '0';
        const versionB = b?.version?.N ?? '0';
        const move = (sk: string, version: string, delta: number) => ({
          Update: {
            TableName: TABLE,
            Key: key(sk),
            UpdateExpression: 'SET balance = balance + :delta, version = version + :one',
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: {
              ':delta': { N: String(delta) },
              ':one': { N: '1' },
              ':version': { N: version },
            },
          },
        });
        try {
          await client.send(
            new TransactWriteItemsCommand({
              TransactItems: [
                move('A', versionA, -1),
                move('B', versionB, 1),
                {
                  Update: {
                    TableName: TABLE,
                    Key: key('hits'),
                    UpdateExpression: 'ADD n :one',
                    ExpressionAttributeValues: { ':one': { N: '1' } },
                  },
                },
              ],
            }),
          );
          return;
        } catch (error) {
          if (!(error instanceof TransactionCanceledException)) throw error;
        }
        // Exponential backoff with jitter, as real optimistic writers do, keeps the retry storm short.
        retries += 1;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 4 * 2 ** retries)));
      }
    };
    // Adds to "hits" and then fails at run time, so its applied ADD must be rolled back
    // without losing the plain ADDs that race with it.
    const failing = async (): Promise<void> => {
      const error = await rejection(
        client.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                Update: {
                  TableName: TABLE,
                  Key: key('hits'),
                  UpdateExpression: 'ADD n :one',
                  ExpressionAttributeValues: { ':one': { N: '1' } },
                },
              },
              {
                Update: {
                  TableName: TABLE,
                  Key: key('text'),
                  UpdateExpression: 'SET s = s + :one',
                  ExpressionAttributeValues: { ':one': { N: '1' } },
                },
              },
            ],
          }),
        ),
      );
      expect(error).toBeInstanceOf(TransactionCanceledException);
    };
    const plainAdd = () =>
      client.send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: key('hits'),
          UpdateExpression: 'ADD n :one',
          ExpressionAttributeValues: { ':one': { N: '1' } },
        }),
      );

    // Readers keep checking the invariant A + B = TOTAL through every read path while writers run.
    let writing = true;
    const observedSums: number[] = [];
    const sumOf = (items: (Record<string, AttributeValue> | undefined)[]) =>
      items.reduce((sum, item) => sum + Number(item?.balance?.N ?? Number.NaN), 0);
    const readPaths: (() => Promise<(Record<string, AttributeValue> | undefined)[]>)[] = [
      async () =>
        (
          (
            await client.send(
              new TransactGetItemsCommand({
                TransactItems: [
                  { Get: { TableName: TABLE, Key: key('A') } },
                  { Get: { TableName: TABLE, Key: key('B') } },
                ],
              }),
            )
          ).Responses ?? []
        ).map((response) => response.Item),
      async () =>
        (
          await client.send(
            new BatchGetItemCommand({
              RequestItems: { [TABLE]: { Keys: [key('A'), key('B')], ConsistentRead: true } },
            }),
          )
        ).Responses?.[TABLE] ?? [],
      async () =>
        (
          await client.send(
            new ScanCommand({
              TableName: TABLE,
              FilterExpression: 'pk = :pk AND attribute_exists(balance)',
              ExpressionAttributeValues: { ':pk': { S: pk } },
              ConsistentRead: true,
            }),
          )
        ).Items ?? [],
    ];
    const reader = async (read: (typeof readPaths)[number]): Promise<void> => {
      while (writing) observedSums.push(sumOf(await read()));
    };

    const readers = readPaths.map((read) => reader(read));
    await Promise.all([
      ...Array.from({ length: TRANSFERS }, () => transfer()),
      ...Array.from({ length: FAILING }, () => failing()),
      ...Array.from({ length: PLAIN_ADDS }, () => plainAdd()),
    ]);
    writing = false;
    await Promise.all(readers);

    const final = await client.send(
      new TransactGetItemsCommand({
        TransactItems: ['A', 'B', 'hits', 'text'].map((sk) => ({ Get: { TableName: TABLE, Key: key(sk) } })),
      }),
    );
    const [a, b, hits, text] = (final.Responses ?? []).map((response) => response.Item);
    expect(a?.balance?.N).toBe(String(TOTAL - TRANSFERS));
    expect(b?.balance?.N).toBe(String(TRANSFERS));
    expect(a?.version?.N).toBe(String(TRANSFERS));
    expect(hits?.n?.N).toBe(String(PLAIN_ADDS + TRANSFERS));
    expect(text?.s?.S).toBe('not a number');
    expect(attempts).toBeGreaterThan(TRANSFERS); // the optimistic writers really did collide
    expect(observedSums.length).toBeGreaterThan(0);
    expect(observedSums.filter((sum) => sum !== TOTAL)).toEqual([]);
  }, 30_000);

  it('lets exactly one of many racing transactions claim a unique name', async () => {
    const pk = uniquePk('unique');
    const RACERS = 20;
    const outcomes = await Promise.allSettled(
      Array.from({ length: RACERS }, (_, index) =>
        doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: TABLE,
                  Item: { pk, sk: 'name#widget', owner: index },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              { Put: { TableName: TABLE, Item: { pk, sk: `product#${index}`, name: 'widget' } } },
            ],
          }),
        ),
      ),
    );
    const winners = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [index] : []));
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        expect(outcome.reason).toBeInstanceOf(TransactionCanceledException);
        expect(
          (outcome.reason as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code),
        ).toEqual(['ConditionalCheckFailed', 'None']);
      }
    }
    const products = await client.send(
      new ScanCommand({
        TableName: TABLE,
        FilterExpression: 'pk = :pk AND begins_with(sk, :product)',
        ExpressionAttributeValues: { ':pk': { S: pk }, ':product': { S: 'product#' } },
        ConsistentRead: true,
      }),
    );
    expect(products.Items?.map((item) => item.sk?.S)).toEqual([`product#${winners[0]}`]);
    expect(await get(pk, 'name#widget')).toMatchObject({ owner: winners[0] });
  });
});

describe('embedded engines lifecycle', () => {
  it('publishes its endpoints in engines.json, refuses a second start and removes the file on stop', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-embedded-life-'));
    try {
      const engines = await startEmbeddedEngines({ dataDir, inMemory: true });
      const file = JSON.parse(await readFile(path.join(dataDir, 'engines.json'), 'utf8')) as Record<string, unknown>;
      expect(file).toEqual({
        pid: process.pid,
        dynamoEndpoint: engines.dynamoEndpoint,
        s3Endpoint: engines.s3Endpoint,
      });
      expect(engines.dynamoEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await findRunningEngines(dataDir)).toEqual({
        dataDir,
        dynamoEndpoint: engines.dynamoEndpoint,
        s3Endpoint: engines.s3Endpoint,
        credentials: engines.credentials,
      });
      await expect(startEmbeddedEngines({ dataDir, inMemory: true })).rejects.toThrow(/already run/);

      await engines.stop();
      await engines.stop(); // idempotent
      await expect(stat(path.join(dataDir, 'engines.json'))).rejects.toThrow();
      expect(await findRunningEngines(dataDir)).toBeUndefined();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps every acknowledged write in LevelDB across a stop and restart', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-embedded-disk-'));
    try {
      const first = await startEmbeddedEngines({ dataDir });
      const firstClient = clientFor(first);
      await firstClient.send(createKeyValueTableCommand('durable'));
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          firstClient.send(
            new TransactWriteItemsCommand({
              TransactItems: [
                { Put: { TableName: 'durable', Item: { pk: { S: 'p' }, sk: { S: `a${index}` } } } },
                { Put: { TableName: 'durable', Item: { pk: { S: 'p' }, sk: { S: `b${index}` } } } },
              ],
            }),
          ),
        ),
      );
      firstClient.destroy();
      await first.stop();
      await expect(stat(path.join(dataDir, 'dynamodb'))).resolves.toBeDefined();

      const second = await startEmbeddedEngines({ dataDir });
      const secondClient = clientFor(second);
      try {
        const items = await secondClient.send(new ScanCommand({ TableName: 'durable', ConsistentRead: true }));
        expect(items.Count).toBe(40);
      } finally {
        secondClient.destroy();
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
