/**
 * table-client marshalls items itself (util-dynamodb, the document client's options) and sends them by the
 * low-level client, batched or not: what it stores and reads back must be what the document client's calls store
 * and read, for every shape an entity item takes.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, dynamoItems, tableName } from '../../shared/service/aws-clients';
import {
  batchGet,
  batchWrite,
  getItem,
  putItem,
  queryAll,
  transactWrite,
  tx,
  type Item,
} from '../../shared/service/data/table-client';

const shapes = (pk: string, sk: string): Item => ({
  pk,
  sk,
  entity: 'TableClientShapes',
  text: 'quotes " and \\ and ünïcødé 🙂',
  empty: '',
  count: 42,
  ratio: 0.125,
  negative: -7,
  flag: false,
  nothing: null,
  skipped: undefined,
  list: ['a', 1, true, null, { nested: ['x'], gone: undefined }],
  emptyList: [],
  map: { inner: { deeper: 3 }, gone: undefined, blank: {} },
  names: new Set(['b', 'a']),
  numbers: new Set([3, 1]),
  bytes: new Uint8Array([0, 1, 255]),
});

describe('table-client', () => {
  it('stores and reads items exactly as the document client does, one by one and batched', async () => {
    const pk = `TABLE_CLIENT#${randomUUID()}`;
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: shapes(pk, 'DOCUMENT') }));
    await putItem(shapes(pk, 'ONE'));
    await batchWrite([shapes(pk, 'BATCH')]);
    await transactWrite([tx.put(shapes(pk, 'TRANSACT'))]);
    const raw = async (sk: string) =>
      (await dynamoItems().send(new GetItemCommand({ TableName: tableName(), Key: { pk: { S: pk }, sk: { S: sk } } })))
        .Item;
    const document = await raw('DOCUMENT');
    for (const sk of ['ONE', 'BATCH', 'TRANSACT']) expect(await raw(sk)).toEqual({ ...document, sk: { S: sk } });

    const asDocument = (await dynamo().send(new GetCommand({ TableName: tableName(), Key: { pk, sk: 'DOCUMENT' } })))
      .Item;
    expect(await getItem({ pk, sk: 'DOCUMENT' })).toEqual(asDocument);
    const [read] = await batchGet([{ pk, sk: 'BATCH' }]);
    expect(read).toEqual({ ...asDocument, sk: 'BATCH' });
    expect(read?.names).toEqual(new Set(['a', 'b']));
    const queried = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      }),
    );
    expect(await queryAll({ pk })).toEqual(queried.Items);

    await batchWrite([], [{ pk, sk: 'BATCH' }]);
    expect(await batchGet([{ pk, sk: 'BATCH' }])).toEqual([]);
  });
});
