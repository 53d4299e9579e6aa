/**
 * The embedded DynamoDB engine's transactions under racing writers that a non-isolated implementation would get
 * wrong: optimistic transfers, plain ADDs, rollbacks and concurrent readers, and a unique-name claim.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  GetItemCommand,
  ScanCommand,
  TransactGetItemsCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { rejection } from '../support/assertions';
import { TABLE, startTransactionTable, uniquePk } from '../support/embedded-transactions';

describe('embedded DynamoDB transactions', () => {
  let client: DynamoDBClient;
  let doc: DynamoDBDocumentClient;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ client, doc, stop } = await startTransactionTable());
  });

  afterAll(async () => {
    await stop();
  });

  const get = async (pk: string, sk = 'item') =>
    (await doc.send(new GetCommand({ TableName: TABLE, Key: { pk, sk }, ConsistentRead: true }))).Item;

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
