/**
 * Undoing a transaction a crash interrupted, from its journal record (embedded-journal.ts):
 * run at start, before the embedded DynamoDB engine accepts a request.
 */
import type { AttributeMap, TableShape } from './embedded-dynalite';
import { errorType, type DynaliteCall } from './embedded-dynamo-wire';
import type { BeforeImage } from './embedded-journal';

/** A secondary index as DescribeTable gives it (the fields recovery reads). */
interface IndexShape {
  IndexName: string;
  KeySchema: { AttributeName: string; KeyType: string }[];
}

/** Puts one journalled before-image back. */
async function restoreBeforeImage(call: DynaliteCall, image: BeforeImage): Promise<void> {
  const reply = image.item
    ? await call('PutItem', { TableName: image.tableName, Item: image.item })
    : await call('DeleteItem', { TableName: image.tableName, Key: image.key });
  // A table deleted since has nothing left to restore.
  if (reply.status !== 200 && errorType(reply.body) !== 'ResourceNotFoundException')
    throw new Error(`Transaction recovery failed on ${image.tableName}: ${JSON.stringify(reply.body)}`);
}

/**
 * Puts one interrupted transaction's before-images back, then the index entries of its items.
 * dynalite writes an item's index entries before the item itself, so a crash between the two
 * leaves an entry for a write that never landed (a sweep reading the index then finds an item
 * that does not exist). Restoring the item does not remove it: dynalite drops only the entries
 * of the item as stored. An entry of a touched item that disagrees with its before-image is
 * written back as the item, so the restore that follows replaces it like any other.
 */
export async function restoreTransaction(call: DynaliteCall, images: readonly BeforeImage[]): Promise<void> {
  for (const image of images) await restoreBeforeImage(call, image);
  for (const tableName of new Set(images.map((image) => image.tableName))) {
    const described = await call('DescribeTable', { TableName: tableName });
    if (described.status !== 200) continue; // deleted since: nothing to repair
    const table = described.body.Table as TableShape & {
      GlobalSecondaryIndexes?: IndexShape[];
      LocalSecondaryIndexes?: IndexShape[];
    };
    const keyOf = (item: AttributeMap) =>
      JSON.stringify(table.KeySchema.map(({ AttributeName }) => item[AttributeName]));
    const touched = new Map(
      images.filter((image) => image.tableName === tableName).map((image) => [keyOf(image.key), image]),
    );
    for (const index of [...(table.GlobalSecondaryIndexes ?? []), ...(table.LocalSecondaryIndexes ?? [])]) {
      const agrees = (entry: AttributeMap, item: AttributeMap | undefined) =>
        item !== undefined &&
        index.KeySchema.every(
          ({ AttributeName }) => JSON.stringify(item[AttributeName]) === JSON.stringify(entry[AttributeName]),
        );
      let startKey: unknown;
      do {
        const page = await call('Scan', {
          TableName: tableName,
          IndexName: index.IndexName,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        });
        if (page.status !== 200)
          throw new Error(`Transaction recovery failed reading index ${index.IndexName}: ${JSON.stringify(page.body)}`);
        for (const entry of (page.body.Items ?? []) as AttributeMap[]) {
          const image = touched.get(keyOf(entry));
          if (!image || agrees(entry, image.item)) continue;
          const stray = await call('PutItem', { TableName: tableName, Item: entry });
          if (stray.status !== 200)
            throw new Error(`Transaction recovery failed on index ${index.IndexName}: ${JSON.stringify(stray.body)}`);
          await restoreBeforeImage(call, image);
        }
        startKey = page.body.LastEvaluatedKey;
      } while (startKey);
    }
  }
}
