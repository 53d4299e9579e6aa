/**
 * The embedded DynamoDB engine's transactional writes (commit, cancellation, condition checks, update expressions
 * and their rollback), exercised through the unchanged AWS SDK v3 (low-level client and DocumentClient).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TransactionCanceledException, TransactWriteItemsCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
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
});
