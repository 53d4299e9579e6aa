/**
 * `batchWrite` and `batchGet` marshall items themselves (util-dynamodb, the document client's options) and send
 * them by the low-level client: what they store and read back must be what the document client's single-item
 * calls store and read, for every shape an entity item takes.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { dynamoItems, tableName } from '../../shared/service/aws-clients';
import { batchGet, batchWrite, getItem, putItem, type Item } from '../../shared/service/data/table-client';

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

describe('batchWrite and batchGet', () => {
  it('store and read items exactly as the document client does', async () => {
    const pk = `TABLE_CLIENT#${randomUUID()}`;
    await putItem(shapes(pk, 'ONE'));
    await batchWrite([shapes(pk, 'BATCH')]);
    const raw = async (sk: string) =>
      (await dynamoItems().send(new GetItemCommand({ TableName: tableName(), Key: { pk: { S: pk }, sk: { S: sk } } })))
        .Item;
    const [single, batched] = [await raw('ONE'), await raw('BATCH')];
    expect(batched).toEqual({ ...single, sk: { S: 'BATCH' } });

    const [read] = await batchGet([{ pk, sk: 'BATCH' }]);
    expect(read).toEqual({ ...(await getItem({ pk, sk: 'ONE' })), sk: 'BATCH' });
    expect(read?.names).toEqual(new Set(['a', 'b']));

    await batchWrite([], [{ pk, sk: 'BATCH' }]);
    expect(await batchGet([{ pk, sk: 'BATCH' }])).toEqual([]);
  });
});
