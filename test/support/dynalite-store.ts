/**
 * Writes straight into a stopped engine's LevelDB through dynalite's own store module,
 * for tests that need a state only a SIGKILL inside one of dynalite's writes leaves
 * (it writes an item's index entries first, then the item). Pinned to dynalite 4.0.0's layout.
 */
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

type Callback<T> = (error: Error | null, value: T) => void;
type AttributeMap = Record<string, Record<string, unknown>>;
interface SubDb {
  put(key: string, value: unknown, callback: Callback<void>): void;
}
interface Store {
  db: { close(): Promise<void> };
  getTable(
    name: string,
    callback: Callback<{ GlobalSecondaryIndexes?: { IndexName: string; KeySchema: unknown[] }[] }>,
  ): void;
  getIndexDb(type: 'global' | 'local', tableName: string, indexName: string): SubDb;
}
interface DbModule {
  create(options: { path: string }): Store;
  createIndexKey(item: AttributeMap, table: unknown, keySchema: unknown[]): string;
}

const dynaliteDb = createRequire(import.meta.url)('dynalite/db') as DbModule;

/** Writes the global-index entry `item` would have, and not the item: the torn half of a PutItem. */
export async function writeIndexEntryOnly(
  levelPath: string,
  tableName: string,
  indexName: string,
  item: AttributeMap,
): Promise<void> {
  const store = dynaliteDb.create({ path: levelPath });
  try {
    const table = await promisify(store.getTable.bind(store))(tableName);
    const index = table.GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === indexName);
    if (!index) throw new Error(`${tableName} has no global index ${indexName}`);
    const indexDb = store.getIndexDb('global', tableName, indexName);
    await promisify(indexDb.put.bind(indexDb))(dynaliteDb.createIndexKey(item, table, index.KeySchema), item);
  } finally {
    await store.db.close();
  }
}
