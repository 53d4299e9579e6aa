/**
 * Whole-table maintenance (key-layout and credential migrations, index backfills): run at local start and by
 * `admin table migrate`, never on a request path.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../aws-clients';
import type { Key } from './keys';
import { batchWrite, getItem, updateItem, type Item } from './table-client';
import { globalIndex, tableDefinition, type GlobalIndexName } from './table-definition';

export interface ScanFilter {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Every page of a whole-table scan, the items the filter keeps (a page may be empty). */
export async function* scanPages(filter: ScanFilter): AsyncGenerator<Item[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: filter.expression,
        ExpressionAttributeNames: filter.names,
        ExpressionAttributeValues: filter.values,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Runs a migration unless the table's marker says it is done, then records the marker with the run's result. */
export async function runOnce<R extends object>(marker: Key, migrate: () => Promise<R>): Promise<R | undefined> {
  if (await getItem(marker)) return undefined;
  const result = await migrate();
  await batchWrite([{ ...marker, entity: 'Migration', completedAt: new Date().toISOString(), ...result }]);
  return result;
}

/**
 * Gives every item of `entity` that has no keys on `indexName` yet the keys `keysOf` names: the backfill of an index
 * that the entity's writes carry from some version on. A plain SET on items that still exist (one deleted meanwhile
 * is skipped: the condition fails quietly), so a re-run is harmless. Answers how many items it indexed.
 */
export async function addIndexKeys(
  entity: string,
  indexName: GlobalIndexName,
  keysOf: (item: Item) => { key: Key; index: Record<string, string> },
): Promise<number> {
  const index = globalIndex(indexName);
  let indexed = 0;
  const unindexed = scanPages({
    expression: '#entity = :entity AND attribute_not_exists(#indexKey)',
    names: { '#entity': 'entity', '#indexKey': index.partitionKey },
    values: { ':entity': entity },
  });
  for await (const page of unindexed) {
    for (const item of page) {
      const { key, index: indexKeys } = keysOf(item);
      const attributes = Object.entries(indexKeys);
      const updated = await updateItem(
        key,
        `SET ${attributes.map((_, at) => `#a${at} = :v${at}`).join(', ')}`,
        Object.fromEntries(attributes.map(([name], at) => [`#a${at}`, name])),
        Object.fromEntries(attributes.map(([, value], at) => [`:v${at}`, value])),
        `attribute_exists(${tableDefinition.partitionKey})`,
      );
      if (updated) indexed += 1;
    }
  }
  return indexed;
}
