/**
 * The embedded DynamoDB engine keeps the parsed trees of expressions without values
 * (shared/local/embedded-dynalite-expressions.ts): a request whose expressions were seen before is judged exactly
 * as a first one, in transactions and single-item calls alike.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { rejection } from '../support/assertions';
import { TABLE, startTransactionTable, uniquePk } from '../support/embedded-transactions';

describe('expressions the engine has parsed before', () => {
  let doc: DynamoDBDocumentClient;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ doc, stop } = await startTransactionTable());
  });

  afterAll(async () => {
    await stop();
  });

  const get = async (pk: string) =>
    (await doc.send(new GetCommand({ TableName: TABLE, Key: { pk, sk: 'item' }, ConsistentRead: true }))).Item;

  it('holds a repeated condition against each item anew', async () => {
    const create = (pk: string, n: number) => ({
      Put: { TableName: TABLE, Item: { pk, sk: 'item', n }, ConditionExpression: 'attribute_not_exists(pk)' },
    });
    const [first, second] = [uniquePk('tree'), uniquePk('tree')];
    await doc.send(new TransactWriteCommand({ TransactItems: [create(first, 1), create(second, 2)] }));
    const again = await rejection(doc.send(new TransactWriteCommand({ TransactItems: [create(first, 3)] })));
    expect(again.name).toBe('TransactionCanceledException');
    expect((await get(first))?.n).toBe(1);
    expect((await get(second))?.n).toBe(2);
  });

  it('counts a name as used by each expression that uses it, whatever was parsed first', async () => {
    const pk = uniquePk('names');
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk, sk: 'item', flag: true, keep: 1 } }));
    // The condition is first parsed after an update expression that uses the same name...
    await doc.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk, sk: 'item' },
        UpdateExpression: 'REMOVE #flag',
        ConditionExpression: 'attribute_exists(#flag)',
        ExpressionAttributeNames: { '#flag': 'flag' },
      }),
    );
    expect(await get(pk)).toEqual({ pk, sk: 'item', keep: 1 });
    // ...and then alone: the name is still used (the condition fails on the item, not on validation).
    const alone = await rejection(
      doc.send(
        new DeleteCommand({
          TableName: TABLE,
          Key: { pk, sk: 'item' },
          ConditionExpression: 'attribute_exists(#flag)',
          ExpressionAttributeNames: { '#flag': 'flag' },
        }),
      ),
    );
    expect(alone.name).toBe('ConditionalCheckFailedException');
  });

  it('still refuses a name no expression uses, and a reserved word, however often they come', async () => {
    const pk = uniquePk('refused');
    for (let round = 0; round < 2; round += 1) {
      const unused = await rejection(
        doc.send(
          new PutCommand({
            TableName: TABLE,
            Item: { pk, sk: 'item' },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': 'pk', '#other': 'other' },
          }),
        ),
      );
      expect(unused.name).toBe('ValidationException');
      expect(unused.message).toMatch(/unused in expressions: keys: \{#other\}/);
      const reserved = await rejection(
        doc.send(
          new PutCommand({ TableName: TABLE, Item: { pk, sk: 'item' }, ConditionExpression: 'attribute_exists(name)' }),
        ),
      );
      expect(reserved.name).toBe('ValidationException');
      expect(reserved.message).toMatch(/reserved keyword/);
    }
    expect(await get(pk)).toBeUndefined();
  });
});
