/**
 * Typed bridge to dynalite (CommonJS, untyped). Besides the server factory we borrow
 * dynalite's own request validation, key encoding and condition evaluation, so the
 * transactions (embedded-transaction-plan.ts, embedded-transaction-engine.ts) judge expressions
 * exactly as dynalite's single-item calls do instead of re-implementing the expression language.
 * Pinned to dynalite 4.0.0's module layout (package has no "exports" map).
 */
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import { closeIteratorsOnDestroy, type IteratorStore } from './embedded-dynalite-iterators';
import { batchGetItem } from './embedded-dynalite-batch-get';
import { keepExpressionTrees } from './embedded-dynalite-expressions';
import { installStringKeys } from './embedded-dynalite-keys';
import { updatedItem } from './embedded-dynalite-update';
import { installValidations } from './embedded-dynalite-types';
import { filterLevelReads, type FilteredLevelPrototype } from './embedded-level-key-filter';
import {
  batchWriteItem,
  cacheTables,
  installActions,
  isDynaliteError as isStoreError,
  readItems,
  writeItems,
  type DynaliteStore,
  type ItemRead,
  type ItemWrite,
  type TableCache,
} from './embedded-dynalite-store';

const require = createRequire(import.meta.url);

/** A DynamoDB attribute value in wire JSON ({ S: 'x' }, { N: '1' }, { M: {...} }...). */
export type AttributeValue = Record<string, unknown>;
export type AttributeMap = Record<string, AttributeValue>;

/** The table fields dynalite's key helpers read (a DescribeTable `Table` has them). */
export interface TableShape {
  TableName: string;
  TableStatus?: string;
  KeySchema: { AttributeName: string; KeyType: string }[];
  AttributeDefinitions: { AttributeName: string; AttributeType: string }[];
  GlobalSecondaryIndexes?: unknown[];
  LocalSecondaryIndexes?: unknown[];
}

/** Error body in DynamoDB's JSON error shape. */
export interface DynamoErrorBody {
  __type: string;
  message?: string;
  Message?: string;
  [extra: string]: unknown;
}

interface DynaliteError {
  statusCode: number;
  body: DynamoErrorBody;
}

export interface DynaliteOptions {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
  maxItemSizeKb?: number;
}

interface ActionValidation {
  types: Record<string, unknown>;
  custom?: (data: Record<string, unknown>, store: unknown) => string | undefined;
}

/** dynalite's validations module; its checks are the engine's (embedded-dynalite-types.ts `installValidations`). */
interface ValidationsModule {
  checkTypes(data: Record<string, unknown>, types: Record<string, unknown>): Record<string, unknown>;
  checkValidations(
    data: Record<string, unknown>,
    types: Record<string, unknown>,
    custom: ActionValidation['custom'],
    store: unknown,
  ): void;
}

interface DbModule {
  MAX_SIZE: number;
  create: (options: DynaliteOptions) => unknown;
  validateKey(key: AttributeMap, table: TableShape): DynaliteError | null | undefined;
  validateItem(item: AttributeMap, table: TableShape): DynaliteError | null | undefined;
  createKey(item: AttributeMap, table: TableShape): string;
  checkConditional(
    validated: Record<string, unknown>,
    existingItem: AttributeMap | undefined,
  ): DynaliteError | null | undefined;
}

installActions({ batchWriteItem, batchGetItem });
export const createDynaliteServer = require('dynalite') as (options: DynaliteOptions) => Server;

interface LevelPrototype {
  _get(key: unknown, options: unknown): Promise<unknown>;
  _getSync?: (key: unknown, options: unknown) => unknown;
}

/**
 * dynalite reads LevelDB with classic-level's asynchronous get: each read is a hop to
 * libuv's thread pool and back (tens of µs of hand-off per read, several reads per
 * request, worse on a busy machine), for a lookup LevelDB answers in a few µs from
 * its cache. Reads go through classic-level's own synchronous get instead (same
 * flags, same snapshot handling, still a promise to abstract-level). Writes keep
 * the thread pool. The engines run on their own thread (engines.ts), so a read that
 * does touch the disk holds up only the engines.
 */
function readLevelDbSynchronously(): void {
  const { Level } = createRequire(require.resolve('dynalite'))('level') as { Level: { prototype: LevelPrototype } };
  const prototype = Level.prototype;
  const getSync = prototype._getSync;
  if (typeof getSync !== 'function') return; // another classic-level: leave it alone
  prototype._get = function (this: LevelPrototype, key: unknown, options: unknown): Promise<unknown> {
    try {
      return Promise.resolve(getSync.call(this, key, options));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
}
readLevelDbSynchronously();
// After the synchronous get, which it wraps: a read of a key never written does not reach LevelDB.
filterLevelReads(
  (createRequire(require.resolve('dynalite'))('level') as { Level: { prototype: FilteredLevelPrototype } }).Level
    .prototype,
);

/**
 * LevelDB options dynalite does not pass (it opens `new Level(path, { valueEncoding })`).
 * LevelDB reads its table files through mmap, and every page a read touched stays in the
 * process's RSS (file-backed) while the table is in LevelDB's table cache, which keeps up
 * to `maxOpenFiles` - 10 tables (default 1,000: the whole store of a large corpus). 74 is
 * LevelDB's minimum (64 cached tables); with 1 MB table files (LevelDB's smallest) at most
 * ~64 MB of tables are mapped at a time (docs/architecture/local-runtime.md "Local memory"). A table
 * leaving the cache is unmapped; reopening it reads its index and filter blocks again.
 * A 16 MB write buffer (classic-level's default: 4 MB) flushes a quarter as many level-0 tables for
 * LevelDB to compact: about 0.75x LevelDB's CPU for an import's writes, for at most 24 MB more memory
 * (the buffer and the one being flushed; docs/corpus-at-scale.md "LevelDB's write buffer").
 */
export const LEVELDB_OPEN_OPTIONS = {
  maxOpenFiles: 74,
  maxFileSize: 1024 * 1024,
  writeBufferSize: 16 * 1024 * 1024,
} as const;

interface LevelOpenPrototype {
  _open: (options: Record<string, unknown>) => Promise<void>;
}

function boundLevelDbTableCache(): void {
  const { Level } = createRequire(require.resolve('dynalite'))('level') as { Level: { prototype: LevelOpenPrototype } };
  const prototype = Level.prototype;
  const open = prototype._open;
  prototype._open = function (this: LevelOpenPrototype, options: Record<string, unknown>): Promise<void> {
    // Options a caller does pass still win.
    return open.call(this, { ...LEVELDB_OPEN_OPTIONS, ...options });
  };
}
boundLevelDbTableCache();
keepExpressionTrees();
installValidations();
installStringKeys();
const validations = require('dynalite/validations') as ValidationsModule;
const db = require('dynalite/db') as DbModule;

type ActionCallback = (error: unknown, data?: unknown) => void;
type Action = (store: unknown, data: Record<string, unknown>, callback: ActionCallback) => void;

/** The operations dynalite answers (its index.js `validOperations`), as its action modules are named. */
const OPERATIONS = [
  'BatchGetItem',
  'BatchWriteItem',
  'CreateTable',
  'DeleteItem',
  'DeleteTable',
  'DescribeTable',
  'DescribeTimeToLive',
  'GetItem',
  'ListTables',
  'PutItem',
  'Query',
  'Scan',
  'TagResource',
  'UntagResource',
  'ListTagsOfResource',
  'UpdateItem',
  'UpdateTable',
] as const;

interface OperationModules {
  action: Action;
  validation: ActionValidation;
}

/** dynalite's own action and validation per operation (the replaced batch actions included: embedded-dynalite-store.ts). */
const operationModules = new Map<string, OperationModules>(
  OPERATIONS.map((operation) => {
    const name = operation.charAt(0).toLowerCase() + operation.slice(1);
    return [
      operation,
      {
        action: require(`dynalite/actions/${name}`) as Action,
        validation: require(`dynalite/validations/${name}`) as ActionValidation,
      },
    ];
  }),
);

/** An answer of dynalite's: status and the JSON body it would send. */
export interface DynaliteReply {
  status: number;
  body: Record<string, unknown>;
}

/** A dynalite server and the store behind it (dynalite keeps it private; `db.create` is where it is made). */
export interface Dynalite {
  server: Server;
  /**
   * Runs one call as dynalite's request handler does once the envelope (signature, target, JSON)
   * was checked: its type checks and validations, then its action. For callers that checked the
   * envelope themselves (the front's in-process path, the transaction engine): no URL parsing,
   * request-id bytes or header work per call. `request` is consumed (validation rewrites it).
   */
  run: (operation: string, request: Record<string, unknown>) => Promise<DynaliteReply>;
  /**
   * The item an UpdateItem request (validated by `validateSingleItemRequest`, consumed) leaves when applied
   * to `existing`, by dynalite's own action, nothing written; or dynalite's refusal.
   */
  updatedItem: (
    validated: Record<string, unknown>,
    existing: AttributeMap | undefined,
  ) => Promise<{ item: AttributeMap } | { refused: DynaliteReply }>;
  /** The stored items of these keys (undefined = none), or the refusal of a missing table: a transaction's snapshot. */
  readItems: (reads: readonly ItemRead[]) => Promise<(AttributeMap | undefined)[] | DynaliteReply>;
  /**
   * Writes whole items and deletions (with their index entries) in one LevelDB batch, as dynalite's
   * PutItem and DeleteItem would once their conditions held: a transaction's Puts and Deletes.
   */
  writeItems: (writes: readonly ItemWrite[]) => Promise<DynaliteReply | undefined>;
  /** The table descriptions' cache: a table operation runs between `begin()` and `end()`. */
  tables: TableCache;
}

export function createDynalite(options: DynaliteOptions): Dynalite {
  const create = db.create;
  let store: unknown;
  db.create = (storeOptions) => (store = create(storeOptions));
  let server: Server;
  try {
    server = createDynaliteServer(options);
  } finally {
    db.create = create;
  }
  if (store === undefined)
    throw new Error('dynalite did not create its store through db.create (another dynalite version?)');
  closeIteratorsOnDestroy((store as { db: IteratorStore }).db);
  return {
    server,
    run: (operation, request) =>
      new Promise((resolve, reject) => {
        const modules = operationModules.get(operation);
        if (modules === undefined) {
          resolve({ status: 400, body: { __type: 'com.amazon.coral.service#UnknownOperationException' } });
          return;
        }
        let data: Record<string, unknown>;
        try {
          data = validations.checkTypes(request, modules.validation.types);
          validations.checkValidations(data, modules.validation.types, modules.validation.custom, store);
        } catch (error) {
          if (isDynaliteError(error)) resolve({ status: error.statusCode, body: error.body });
          else reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        modules.action(store, data, (error, answer) => {
          if (isDynaliteError(error)) resolve({ status: error.statusCode, body: error.body });
          else if (error) reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
          else resolve({ status: 200, body: (answer ?? {}) as Record<string, unknown> });
        });
      }),
    tables: cacheTables(store as DynaliteStore),
    readItems: async (reads) => {
      const items = await readItems(store as DynaliteStore, reads);
      return isStoreError(items) ? { status: items.statusCode, body: items.body } : items;
    },
    writeItems: async (writes) => {
      const refused = await writeItems(store as DynaliteStore, writes);
      return refused ? { status: refused.statusCode, body: refused.body } : undefined;
    },
    updatedItem: async (validated, existing) => {
      const outcome = await updatedItem(store as DynaliteStore & { options: unknown }, validated, existing);
      return 'refused' in outcome
        ? { refused: { status: outcome.refused.statusCode, body: outcome.refused.body } }
        : { item: outcome.item };
    },
  };
}

export type SingleItemAction = 'putItem' | 'updateItem' | 'deleteItem' | 'getItem';
const actionValidations: Record<SingleItemAction, ActionValidation> = {
  putItem: require('dynalite/validations/putItem') as ActionValidation,
  updateItem: require('dynalite/validations/updateItem') as ActionValidation,
  deleteItem: require('dynalite/validations/deleteItem') as ActionValidation,
  getItem: require('dynalite/validations/getItem') as ActionValidation,
};

// Only putItem's custom validation reads the store (for the maximum item size).
const validationStore = { options: { maxItemSize: db.MAX_SIZE } };

function isDynaliteError(error: unknown): error is DynaliteError {
  return typeof error === 'object' && error !== null && 'statusCode' in error && 'body' in error;
}

export type Validated =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; status: number; body: DynamoErrorBody };

/**
 * Runs dynalite's request validation for a single-item call (exactly what dynalite
 * does before PutItem/UpdateItem/...), returning the parsed request (with the parsed
 * condition in `_condition`) or the error DynamoDB would answer with.
 */
export function validateSingleItemRequest(
  action: SingleItemAction,
  request: Record<string, unknown>,
  options: { consume?: boolean } = {},
): Validated {
  const { types, custom } = actionValidations[action];
  try {
    // dynalite's validation rewrites its input: a copy, unless the caller hands the request over (`consume`).
    const data = validations.checkTypes(options.consume ? request : structuredClone(request), types);
    validations.checkValidations(data, types, custom, validationStore);
    return { ok: true, data };
  } catch (error) {
    if (isDynaliteError(error)) return { ok: false, status: error.statusCode, body: error.body };
    throw error;
  }
}

/** dynalite's key check for a Key (request-level ValidationException on mismatch). */
export function keyError(key: AttributeMap, table: TableShape): DynamoErrorBody | undefined {
  return db.validateKey(key, table)?.body;
}

/** dynalite's key check for a full item (PutItem). */
export function itemError(item: AttributeMap, table: TableShape): DynamoErrorBody | undefined {
  return db.validateItem(item, table)?.body;
}

/** dynalite's canonical encoding of an item's primary key (numbers normalised). */
export function encodeKey(item: AttributeMap, table: TableShape): string {
  return db.createKey(item, table);
}

/** True when the validated request's ConditionExpression holds for the item (undefined = absent). */
export function conditionHolds(validated: Record<string, unknown>, item: AttributeMap | undefined): boolean {
  return !db.checkConditional(validated, item);
}
