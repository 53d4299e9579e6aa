/**
 * What the embedded engine changes inside dynalite's store (dynalite 4.0.0's layout) to make its
 * writes and its table lookups cheap, without changing what a request answers:
 *
 * - BatchWriteItem as one LevelDB write batch. dynalite runs a batch as up to 25 PutItem/DeleteItem
 *   actions in parallel, each looking its table up again, taking a per-key lock and writing the item
 *   and every index entry as its own asynchronous LevelDB put (a hop through libuv's thread pool, a
 *   promise and a setImmediate each): about 100 LevelDB writes for a batch of 25 items with three
 *   indexes. Here the batch reads the items it replaces, computes the same index entries with
 *   dynalite's own helpers and writes everything in one LevelDB batch (atomic, where dynalite's was
 *   not). The per-key locks are not needed: every write holds the front's exclusive lock
 *   (embedded-dynamo-gate.ts), so no other write runs meanwhile.
 * - A transaction's snapshot and writes (`readItems`, `writeItems`): its items read by key without a
 *   GetItem request each, and all its writes, with their index entries, in one LevelDB batch.
 * - The table description cached while the table is ACTIVE. dynalite reads it from LevelDB and
 *   parses its JSON for every request and again for every item of a batch. Table operations (which
 *   mutate the object they read) run with the cache off and empty it when they end.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export type AttributeMap = Record<string, Record<string, unknown>>;

export interface DynaliteError {
  statusCode: number;
  body: { __type: string; message?: string };
}

export interface TableDescription {
  TableName: string;
  TableStatus?: string;
  KeySchema: { AttributeName: string; KeyType: string }[];
  LocalSecondaryIndexes?: unknown[];
  GlobalSecondaryIndexes?: unknown[];
}

type TableCallback = (error: unknown, table?: TableDescription) => void;

interface LevelOperation {
  type: 'put' | 'del';
  key: string;
  value?: unknown;
  /** A put's value given as its JSON text already (what dynalite's `json` value encoding would store). */
  valueEncoding?: 'utf8';
}

/** The parts of dynalite's store (db.create's result) used here. */
export interface DynaliteStore {
  db: {
    get(key: string): Promise<unknown>;
    batch(operations: LevelOperation[]): Promise<void>;
  };
  getTable(name: string, checkStatus: boolean | TableCallback, callback?: TableCallback): void;
}

interface IndexActions {
  puts: { index: string; key: string; item: AttributeMap }[];
  deletes: { index: string; key: string }[];
}

interface DbHelpers {
  validateKey(key: AttributeMap, table: TableDescription): DynaliteError | null | undefined;
  validateItem(item: AttributeMap, table: TableDescription): DynaliteError | null | undefined;
  validationError(message: string): DynaliteError;
  createKey(item: AttributeMap, table: TableDescription): string;
  getIndexActions(
    indexes: unknown[],
    existing: AttributeMap | undefined,
    item: AttributeMap | undefined,
    table: TableDescription,
  ): IndexActions;
  addConsumedCapacity(
    data: Record<string, unknown>,
    isRead: boolean,
    newItem: AttributeMap | undefined,
    oldItem?: AttributeMap,
  ): { CapacityUnits: number; TableName: string } | undefined;
}

const dbHelpers = require('dynalite/db') as DbHelpers;

// dynalite keeps items and index entries in one LevelDB under these prefixes (db/index.js getSubDb).
export const itemPrefix = (tableName: string) => `item-${tableName}~`;
const indexPrefix = (kind: 'Local' | 'Global', tableName: string, indexName: string) =>
  `index-${kind.toLowerCase()}~${tableName}~${indexName}~`;

interface WriteRequest {
  PutRequest?: { Item: AttributeMap };
  DeleteRequest?: { Key: AttributeMap };
}

interface BatchWriteData {
  RequestItems: Record<string, WriteRequest[]>;
  ReturnConsumedCapacity?: string;
}

/** The table, or dynalite's refusal (ResourceNotFoundException); a store failure rejects. */
export function tableOf(store: DynaliteStore, name: string): Promise<TableDescription | DynaliteError> {
  return new Promise((resolve, reject) => {
    store.getTable(name, false, (error, table) => {
      if (isDynaliteError(error)) resolve(error);
      else if (error || !table) reject(error instanceof Error ? error : new Error(`table ${name}: ${String(error)}`));
      else resolve(table);
    });
  });
}

interface PlannedWrite {
  table: TableDescription;
  key: string;
  item?: AttributeMap;
}

/** dynalite's checks of a batch, in its order: key shapes per table, then duplicate keys. */
function planTable(table: TableDescription, requests: WriteRequest[]): PlannedWrite[] | DynaliteError {
  const seen = new Set<string>();
  const planned: PlannedWrite[] = [];
  for (const request of requests) {
    let key: string | undefined;
    if (request.PutRequest) {
      const invalid = dbHelpers.validateItem(request.PutRequest.Item, table);
      if (invalid) return invalid;
      key = dbHelpers.createKey(request.PutRequest.Item, table);
      planned.push({ table, key, item: request.PutRequest.Item });
    } else if (request.DeleteRequest) {
      const invalid = dbHelpers.validateKey(request.DeleteRequest.Key, table);
      if (invalid) return invalid;
      key = dbHelpers.createKey(request.DeleteRequest.Key, table);
      planned.push({ table, key });
    }
    if (key !== undefined && seen.has(key))
      return dbHelpers.validationError('Provided list of item keys contains duplicates');
    if (key !== undefined) seen.add(key);
  }
  return planned;
}

function levelOperations(write: PlannedWrite, existing: AttributeMap | undefined): LevelOperation[] {
  const { table, key, item } = write;
  const deletes: LevelOperation[] = [];
  const puts: LevelOperation[] = [];
  // The item and its entries in indexes that project ALL are one object: its JSON is made once, not per entry.
  let itemJson: string | undefined;
  const put = (levelKey: string, value: AttributeMap): LevelOperation => ({
    type: 'put',
    key: levelKey,
    value: value === item ? (itemJson ??= JSON.stringify(item)) : JSON.stringify(value),
    valueEncoding: 'utf8',
  });
  for (const kind of ['Local', 'Global'] as const) {
    const indexes = table[`${kind}SecondaryIndexes`] ?? [];
    if (indexes.length === 0) continue;
    const actions = dbHelpers.getIndexActions(indexes, existing, item, table);
    for (const entry of actions.deletes)
      deletes.push({ type: 'del', key: indexPrefix(kind, table.TableName, entry.index) + entry.key });
    for (const entry of actions.puts)
      puts.push(put(indexPrefix(kind, table.TableName, entry.index) + entry.key, entry.item));
  }
  const itemKey = itemPrefix(table.TableName) + key;
  return [...deletes, ...puts, item ? put(itemKey, item) : { type: 'del', key: itemKey }];
}

export function isDynaliteError(error: unknown): error is DynaliteError {
  return typeof error === 'object' && error !== null && 'statusCode' in error && 'body' in error;
}

const keyMembersByTable = new WeakMap<TableDescription, string[][]>();

/**
 * The key attributes of each of the table's indexes, as they open a member of the item's JSON (`"name":`);
 * once per table description (cached while the table is active), not per item written.
 */
function indexKeyMembers(table: TableDescription): string[][] {
  let members = keyMembersByTable.get(table);
  if (!members) {
    const indexes = [...(table.LocalSecondaryIndexes ?? []), ...(table.GlobalSecondaryIndexes ?? [])] as {
      KeySchema: { AttributeName: string }[];
    }[];
    members = indexes.map((index) => index.KeySchema.map((key) => `${JSON.stringify(key.AttributeName)}:`));
    keyMembersByTable.set(table, members);
  }
  return members;
}

/**
 * The item a write replaces, as far as the write needs it: its index entries to drop (dynalite's
 * getIndexActions looks only at an existing item that has every key attribute of an index) and, when
 * the request asks for consumed capacity, its size. Read as JSON text and parsed only when some index's
 * key attributes all appear in it as members, or for capacity: the import rewrites package items of
 * hundreds of kilobytes that are in no index, and parsing each one it replaces was most of the read.
 * A member name inside a string value is escaped (`\"name\":`), so the text test can only err towards
 * parsing.
 */
async function replacedItem(
  store: DynaliteStore,
  levelKey: string,
  table: TableDescription,
  capacity: boolean,
): Promise<AttributeMap | undefined> {
  const text = (await readText.call(store.db, levelKey, { valueEncoding: 'utf8' })) as string | undefined;
  if (text === undefined) return undefined;
  const indexed = indexKeyMembers(table).some((members) => members.every((member) => text.includes(member)));
  return indexed || capacity ? (JSON.parse(text) as AttributeMap) : {};
}

/** abstract-level's own get, which takes options (dynalite's wrapper of `db.get` takes none). */
const readText = (
  createRequire(require.resolve('dynalite'))('level') as {
    Level: { prototype: { get: (key: string, options: { valueEncoding: 'utf8' }) => Promise<unknown> } };
  }
).Level.prototype.get;

/** Writes the batch, or answers the request's refusal (nothing written). */
async function runBatchWrite(
  store: DynaliteStore,
  data: BatchWriteData,
): Promise<{ result: Record<string, unknown> } | { refused: DynaliteError }> {
  const writes: PlannedWrite[] = [];
  for (const tableName of Object.keys(data.RequestItems)) {
    const table = await tableOf(store, tableName);
    if (isDynaliteError(table)) return { refused: table };
    const planned = planTable(table, data.RequestItems[tableName] ?? []);
    if (!Array.isArray(planned)) return { refused: planned };
    writes.push(...planned);
  }
  const mode = data.ReturnConsumedCapacity;
  const capacity = mode === 'TOTAL' || mode === 'INDEXES';
  const existing = await Promise.all(
    writes.map((write) => replacedItem(store, itemPrefix(write.table.TableName) + write.key, write.table, capacity)),
  );
  await store.db.batch(writes.flatMap((write, index) => levelOperations(write, existing[index])));

  const result: Record<string, unknown> = { UnprocessedItems: {} };
  if (mode === 'TOTAL' || mode === 'INDEXES') {
    const units = new Map<string, number>();
    writes.forEach((write, index) => {
      const request = { TableName: write.table.TableName, ReturnConsumedCapacity: mode };
      const capacity = write.item
        ? dbHelpers.addConsumedCapacity(request, false, existing[index], write.item)
        : dbHelpers.addConsumedCapacity(request, false, existing[index]);
      units.set(write.table.TableName, (units.get(write.table.TableName) ?? 0) + (capacity?.CapacityUnits ?? 0));
    });
    result.ConsumedCapacity = [...units].map(([TableName, CapacityUnits]) => ({
      CapacityUnits,
      TableName,
      Table: mode === 'INDEXES' ? { CapacityUnits } : undefined,
    }));
  }
  return { result };
}

/** An item a transaction reads, by its primary key. */
export interface ItemRead {
  tableName: string;
  key: AttributeMap;
}

/** A whole-item write of a transaction: `item` replaces `existing` (the item stored now), or deletes it when absent. */
export interface ItemWrite extends ItemRead {
  item?: AttributeMap;
  existing?: AttributeMap;
}

async function tablesOf(
  store: DynaliteStore,
  reads: readonly ItemRead[],
): Promise<Map<string, TableDescription> | DynaliteError> {
  const tables = new Map<string, TableDescription>();
  for (const { tableName } of reads) {
    if (tables.has(tableName)) continue;
    const table = await tableOf(store, tableName);
    if (isDynaliteError(table)) return table;
    tables.set(tableName, table);
  }
  return tables;
}

/**
 * The stored items of these keys (undefined = none), read from LevelDB as dynalite's GetItem does, without
 * a request to validate per item (the transaction checked the keys); or the refusal of a missing table.
 */
export async function readItems(
  store: DynaliteStore,
  reads: readonly ItemRead[],
): Promise<(AttributeMap | undefined)[] | DynaliteError> {
  const tables = await tablesOf(store, reads);
  if (isDynaliteError(tables)) return tables;
  return (await Promise.all(
    reads.map(({ tableName, key }) =>
      store.db.get(itemPrefix(tableName) + dbHelpers.createKey(key, tables.get(tableName)!)),
    ),
  )) as (AttributeMap | undefined)[];
}

/**
 * Writes whole items and deletions with their index entries (dynalite's own index helpers) in one LevelDB
 * batch: all of them or, on a LevelDB failure, none. What dynalite's PutItem and DeleteItem write, once their
 * condition held against `existing`.
 */
export async function writeItems(
  store: DynaliteStore,
  writes: readonly ItemWrite[],
): Promise<DynaliteError | undefined> {
  if (writes.length === 0) return undefined;
  const tables = await tablesOf(store, writes);
  if (isDynaliteError(tables)) return tables;
  const operations: LevelOperation[] = [];
  for (const { tableName, key, item, existing } of writes) {
    const table = tables.get(tableName)!;
    const planned: PlannedWrite = { table, key: dbHelpers.createKey(key, table), ...(item ? { item } : {}) };
    operations.push(...levelOperations(planned, existing));
  }
  await store.db.batch(operations);
  return undefined;
}

/** dynalite's action signature: `batchWriteItem(store, validatedData, callback)`. */
export function batchWriteItem(
  store: DynaliteStore,
  data: BatchWriteData,
  callback: (error: unknown, result?: unknown) => void,
): void {
  runBatchWrite(store, data).then(
    (outcome) => ('result' in outcome ? callback(null, outcome.result) : refuse(outcome.refused)),
    refuse,
  );
  function refuse(error: unknown): void {
    // dynalite's own rewording of key mismatches in a batch.
    if (isDynaliteError(error) && /Missing the key|Type mismatch for key/.test(error.body.message ?? ''))
      error.body.message = 'The provided key element does not match the schema';
    callback(error);
  }
}

/**
 * Makes dynalite's request handler run the given actions: dynalite loads its actions with
 * `require('./actions/<name>')` when its index module is first loaded, so the cached modules are
 * replaced before that. Throws if dynalite's index was loaded already (the swap would be silently lost).
 */
export function installActions(actions: Record<string, unknown>): void {
  const indexPath = require.resolve('dynalite');
  if (require.cache[indexPath]) throw new Error('dynalite was loaded before its actions could be replaced');
  for (const [name, action] of Object.entries(actions)) {
    const actionPath = require.resolve(`dynalite/actions/${name}`);
    require(actionPath);
    const cached = require.cache[actionPath];
    if (!cached) throw new Error(`dynalite/actions/${name} is not in the module cache`);
    cached.exports = action;
  }
}

export interface TableCache {
  /** Call when a table operation starts: lookups go to LevelDB until `end`. */
  begin: () => void;
  /** Call when it ended (its response is complete). */
  end: () => void;
}

/** Caches `store.getTable` answers for ACTIVE tables (see the header). */
export function cacheTables(store: DynaliteStore): TableCache {
  const lookUp = store.getTable.bind(store);
  const active = new Map<string, TableDescription>();
  let suspended = 0;
  store.getTable = (name, checkStatus, callback) => {
    const done = (typeof checkStatus === 'function' ? checkStatus : callback) as TableCallback;
    const cached = suspended === 0 ? active.get(name) : undefined;
    if (cached) {
      process.nextTick(done, null, cached);
      return;
    }
    lookUp(name, checkStatus, (error, table) => {
      if (!error && table?.TableStatus === 'ACTIVE' && suspended === 0) active.set(name, table);
      done(error, table);
    });
  };
  return {
    begin: () => {
      suspended += 1;
      active.clear();
    },
    end: () => {
      suspended = Math.max(0, suspended - 1);
      active.clear();
    },
  };
}
