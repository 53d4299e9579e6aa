/**
 * BatchGetItem for dynalite's request handler (dynalite 4.0.0's action signature), reading the
 * keys of a request in one pass. dynalite runs a batch as up to 100 GetItem actions, each looking
 * its table up, validating its key again and reading through a callback that costs a promise and a
 * setImmediate; the scan's package lookups and the import's reads are batches of 100. Same checks,
 * same answer (order shuffled, the 16 MB response limit, consumed capacity) as dynalite's.
 */
import { createRequire } from 'node:module';
import {
  isDynaliteError,
  itemPrefix,
  tableOf,
  type AttributeMap,
  type DynaliteError,
  type DynaliteStore,
  type TableDescription,
} from './embedded-dynalite-store';

const require = createRequire(import.meta.url);

interface DbHelpers {
  MAX_SIZE: number;
  validateKey(key: AttributeMap, table: TableDescription): DynaliteError | null | undefined;
  validateKeyPaths(paths: unknown, table: TableDescription): DynaliteError | null | undefined;
  createKey(item: AttributeMap, table: TableDescription): string;
  mapPaths(paths: unknown[], item: AttributeMap): AttributeMap;
  itemSize(item: AttributeMap): number;
  addConsumedCapacity(
    data: Record<string, unknown>,
    isRead: boolean,
    item: AttributeMap | undefined,
  ): { CapacityUnits: number } | undefined;
}

const dbHelpers = require('dynalite/db') as DbHelpers;

interface TableRequest {
  Keys: AttributeMap[];
  AttributesToGet?: string[];
  ConsistentRead?: boolean;
  _projection?: { paths: unknown[]; nestedPaths?: unknown };
}

interface BatchGetData {
  RequestItems: Record<string, TableRequest>;
  ReturnConsumedCapacity?: string;
}

interface Read {
  key: AttributeMap;
  item: AttributeMap | undefined;
}

function shuffle<T>(values: T[]): void {
  for (let i = values.length - 1; i >= 1; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [values[i], values[j]] = [values[j] as T, values[i] as T];
  }
}

async function runBatchGet(
  store: DynaliteStore & { options: { maxItemSize: number } },
  data: BatchGetData,
): Promise<{ result: Record<string, unknown> } | { refused: DynaliteError }> {
  const tables: { name: string; request: TableRequest; table: TableDescription }[] = [];
  for (const [name, request] of Object.entries(data.RequestItems)) {
    const table = await tableOf(store, name);
    if (isDynaliteError(table)) return { refused: table };
    for (const key of request.Keys) {
      const invalid = dbHelpers.validateKey(key, table);
      if (invalid) return { refused: invalid };
    }
    const invalidPath = dbHelpers.validateKeyPaths(request._projection?.nestedPaths, table);
    if (invalidPath) return { refused: invalidPath };
    tables.push({ name, request, table });
  }
  const reads = await Promise.all(
    tables.map(async ({ request, table }) => {
      const prefix = itemPrefix(table.TableName);
      const items = (await Promise.all(
        request.Keys.map((key) => store.db.get(prefix + dbHelpers.createKey(key, table))),
      )) as (AttributeMap | undefined)[];
      return request.Keys.map((key, index): Read => ({ key, item: items[index] }));
    }),
  );

  const result: { Responses: Record<string, AttributeMap[]>; UnprocessedKeys: Record<string, unknown> } = {
    Responses: {},
    UnprocessedKeys: {},
  };
  const capacities = new Map<string, number>();
  const addCapacity = (table: string, units: number) => capacities.set(table, (capacities.get(table) ?? 0) + units);
  const limit = 1024 * 1024 + store.options.maxItemSize - 3;
  let totalSize = 0;
  tables.forEach(({ name, request }, tableIndex) => {
    const tableReads = reads[tableIndex] ?? [];
    shuffle(tableReads); // DynamoDB answers in no particular order; so does dynalite
    const paths = request._projection ? request._projection.paths : request.AttributesToGet;
    const capacityRequest = {
      TableName: name,
      ReturnConsumedCapacity: data.ReturnConsumedCapacity,
      ConsistentRead: request.ConsistentRead,
    };
    const items: AttributeMap[] = [];
    for (const { key, item } of tableReads) {
      const answered = item && paths ? dbHelpers.mapPaths(paths, item) : item;
      if (answered) {
        const newSize = totalSize + dbHelpers.itemSize(answered);
        if (newSize > limit) {
          const unprocessed = (result.UnprocessedKeys[name] ??= {
            Keys: [],
            ...(request.AttributesToGet ? { AttributesToGet: request.AttributesToGet } : {}),
            ...(request.ConsistentRead ? { ConsistentRead: request.ConsistentRead } : {}),
          }) as { Keys: AttributeMap[] };
          unprocessed.Keys.push(key);
          addCapacity(name, 1);
          continue;
        }
        totalSize = newSize;
      }
      const capacity = dbHelpers.addConsumedCapacity(capacityRequest, true, item);
      if (capacity) addCapacity(name, capacity.CapacityUnits);
      if (answered) items.push(answered);
    }
    result.Responses[name] = items;
  });
  const mode = data.ReturnConsumedCapacity;
  if (mode === 'TOTAL' || mode === 'INDEXES')
    return {
      result: {
        ...result,
        ConsumedCapacity: tables.map(({ name }) => ({
          CapacityUnits: capacities.get(name),
          TableName: name,
          Table: mode === 'INDEXES' ? { CapacityUnits: capacities.get(name) } : undefined,
        })),
      },
    };
  return { result };
}

/** dynalite's action signature: `batchGetItem(store, validatedData, callback)`. */
export function batchGetItem(
  store: DynaliteStore & { options: { maxItemSize: number } },
  data: BatchGetData,
  callback: (error: unknown, result?: unknown) => void,
): void {
  runBatchGet(store, data).then(
    (outcome) => ('result' in outcome ? callback(null, outcome.result) : callback(outcome.refused)),
    (error: unknown) => callback(error),
  );
}
