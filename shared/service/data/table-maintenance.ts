/**
 * Whole-table maintenance (key-layout and credential migrations, index backfills): run at local start and by
 * `admin table migrate`, never on a request path.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../aws-clients';
import type { Key } from './keys';
import { batchWrite, getItem, type Item } from './table-client';

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
