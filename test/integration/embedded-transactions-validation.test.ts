/**
 * The embedded DynamoDB engine's transactional reads, its validation of transactions before anything is written,
 * and ClientRequestToken idempotency, exercised through the unchanged AWS SDK v3.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ResourceNotFoundException,
  ScanCommand,
  TransactWriteItemsCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  PutCommand,
  TransactGetCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
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
});
