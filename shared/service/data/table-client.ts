/**
 * Thin helpers over DynamoDB: consistent reads, prefix queries, transactions with readable cancellation
 * reasons, batched writes. Data modules compose these; nothing here knows an entity. Items are plain objects
 * here and attribute values on the wire: every call marshalls its items and keys once (util-dynamodb, the
 * document client's options) and goes through the low-level client, whose middleware stack is resolved once per
 * command (aws-clients.ts `dynamoItems`).
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactGetItemsCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  UpdateItemCommand,
  type AttributeValue,
  type QueryCommandInput,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { dynamoItems, tableName } from '../aws-clients';
import {
  fromAttributes,
  toAttributes,
  toItem,
  toTransactWriteItem,
  type Item,
  type TransactItem,
} from './attribute-values';
import { inParallel } from '../concurrency';
import type { Key } from './keys';
import { globalIndex, type GlobalIndexName } from './table-definition';

export type { Item, TransactItem } from './attribute-values';

/** Whole items this process has just written: the items it put, and an update's item as it left it. */
export type WriteObserver = (items: readonly Item[]) => void;
const writeObservers = new Set<WriteObserver>();

/**
 * Calls `observer` after each successful write of this process (the local runtime wakes its notification
 * dispatcher so, shared/local/background.ts; nothing observes on AWS). Answers the function that stops it.
 */
export function observeWrites(observer: WriteObserver): () => void {
  writeObservers.add(observer);
  return () => writeObservers.delete(observer);
}

function written(items: readonly Item[]): void {
  if (items.length === 0) return;
  for (const observer of writeObservers) observer(items);
}

export async function getItem<T extends Item>(key: Key): Promise<T | undefined> {
  const result = await dynamoItems().send(
    new GetItemCommand({ TableName: tableName(), Key: toAttributes(key), ConsistentRead: true }),
  );
  return fromAttributes<T>(result.Item);
}

/** Consistent multi-item read (up to 100 keys); missing items come back as undefined, in order. */
export async function getItems<T extends Item>(itemKeys: Key[]): Promise<(T | undefined)[]> {
  if (itemKeys.length === 0) return [];
  const result = await dynamoItems().send(
    new TransactGetItemsCommand({
      TransactItems: itemKeys.map((key) => ({ Get: { TableName: tableName(), Key: toAttributes(key) } })),
    }),
  );
  return (result.Responses ?? []).map((response) => fromAttributes<T>(response.Item));
}

export interface PrefixQuery {
  pk: string;
  skPrefix?: string;
  indexName?: string;
  /** Name of the partition-key attribute when querying an index. */
  pkAttribute?: string;
  skAttribute?: string;
  skBetween?: [string, string];
  projection?: string[];
  filter?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
  descending?: boolean;
  pageSize?: number;
}

/** The query of one partition of a global index (the index's key attributes by its name). */
export function onIndex(indexName: GlobalIndexName, pk: string): PrefixQuery {
  const index = globalIndex(indexName);
  return { pk, indexName, pkAttribute: index.partitionKey, skAttribute: index.sortKey };
}

/** Pages through every item of a key range; callers stream instead of loading huge results at once. */
export async function* queryPages<T extends Item>(query: PrefixQuery): AsyncGenerator<T[]> {
  const pkName = query.pkAttribute ?? 'pk';
  const skName = query.skAttribute ?? 'sk';
  const names: Record<string, string> = { '#pk': pkName, ...(query.filter?.names ?? {}) };
  const values: Record<string, unknown> = { ':pk': query.pk, ...(query.filter?.values ?? {}) };
  let keyCondition = '#pk = :pk';
  if (query.skPrefix !== undefined) {
    names['#sk'] = skName;
    values[':skPrefix'] = query.skPrefix;
    keyCondition += ' AND begins_with(#sk, :skPrefix)';
  } else if (query.skBetween) {
    names['#sk'] = skName;
    values[':skFrom'] = query.skBetween[0];
    values[':skTo'] = query.skBetween[1];
    keyCondition += ' AND #sk BETWEEN :skFrom AND :skTo';
  }
  let projection: string | undefined;
  if (query.projection) {
    projection = query.projection
      .map((attribute, index) => {
        names[`#p${index}`] = attribute;
        return `#p${index}`;
      })
      .join(', ');
  }
  const attributeValues = toAttributes(values);
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const input: QueryCommandInput = {
      TableName: tableName(),
      KeyConditionExpression: keyCondition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: attributeValues,
      ...(query.indexName ? { IndexName: query.indexName } : { ConsistentRead: true }),
      ...(projection ? { ProjectionExpression: projection } : {}),
      ...(query.filter ? { FilterExpression: query.filter.expression } : {}),
      ...(query.descending ? { ScanIndexForward: false } : {}),
      ...(query.pageSize ? { Limit: query.pageSize } : {}),
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    };
    const page = await dynamoItems().send(new QueryCommand(input));
    yield (page.Items ?? []).map((item) => toItem<T>(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

export async function queryAll<T extends Item>(query: PrefixQuery): Promise<T[]> {
  const all: T[] = [];
  for await (const page of queryPages<T>(query)) all.push(...page);
  return all;
}

/** A transaction that failed; `reasons` holds DynamoDB's per-item cancellation codes in request order. */
export class TransactionFailedError extends Error {
  constructor(readonly reasons: string[]) {
    super(`Transaction cancelled: ${reasons.join(', ')}`);
    this.name = 'TransactionFailedError';
  }

  /** True when the item at `index` failed its condition. */
  failedAt(index: number): boolean {
    return this.reasons[index] === 'ConditionalCheckFailed';
  }
}

export async function transactWrite(items: TransactItem[]): Promise<void> {
  try {
    await dynamoItems().send(new TransactWriteItemsCommand({ TransactItems: items.map(toTransactWriteItem) }));
    if (writeObservers.size > 0) written(items.flatMap((item) => (item.Put?.Item ? [item.Put.Item] : [])));
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      throw new TransactionFailedError((error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None'));
    }
    throw error;
  }
}

/** Whether a single-item write failed its condition. */
export function isConditionFailure(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'ConditionalCheckFailedException';
}

/** One item written on its own; false when `condition` did not hold. */
export async function putItem(
  item: Item,
  condition?: string,
  names?: Record<string, string>,
  values?: Record<string, unknown>,
): Promise<boolean> {
  try {
    await dynamoItems().send(
      new PutItemCommand({
        TableName: tableName(),
        Item: toAttributes(item),
        ...(condition ? { ConditionExpression: condition } : {}),
        ...(names && Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ...(values && Object.keys(values).length > 0 ? { ExpressionAttributeValues: toAttributes(values) } : {}),
      }),
    );
    written([item]);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** One item updated on its own; answers its new state, or undefined when `condition` did not hold. */
export async function updateItem(
  key: Key,
  update: string,
  names: Record<string, string> | undefined,
  values: Record<string, unknown> | undefined,
  condition?: string,
): Promise<Item | undefined> {
  try {
    const result = await dynamoItems().send(
      new UpdateItemCommand({
        TableName: tableName(),
        Key: toAttributes(key),
        UpdateExpression: update,
        ...(names && Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ...(values && Object.keys(values).length > 0 ? { ExpressionAttributeValues: toAttributes(values) } : {}),
        ...(condition ? { ConditionExpression: condition } : {}),
        ReturnValues: 'ALL_NEW',
      }),
    );
    const attributes = fromAttributes(result.Attributes);
    if (attributes) written([attributes]);
    return attributes;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Builders for transaction items against the one table. */
export const tx = {
  put(item: Item, condition?: string, names?: Record<string, string>, values?: Record<string, unknown>): TransactItem {
    return {
      Put: {
        TableName: tableName(),
        Item: item,
        ...(condition ? { ConditionExpression: condition } : {}),
        ...(names ? { ExpressionAttributeNames: names } : {}),
        ...(values ? { ExpressionAttributeValues: values } : {}),
      },
    };
  },
  /** Put that fails when an item with this key already exists. */
  create(item: Item): TransactItem {
    return tx.put(item, 'attribute_not_exists(pk)');
  },
  update(
    key: Key,
    update: string,
    names: Record<string, string>,
    values: Record<string, unknown> | undefined,
    condition?: string,
  ): TransactItem {
    return {
      Update: {
        TableName: tableName(),
        Key: key,
        UpdateExpression: update,
        ExpressionAttributeNames: names,
        ...(values && Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
        ...(condition ? { ConditionExpression: condition } : {}),
      },
    };
  },
  delete(key: Key, condition?: string, names?: Record<string, string>, values?: Record<string, unknown>): TransactItem {
    return {
      Delete: {
        TableName: tableName(),
        Key: key,
        ...(condition ? { ConditionExpression: condition } : {}),
        ...(names ? { ExpressionAttributeNames: names } : {}),
        ...(values ? { ExpressionAttributeValues: values } : {}),
      },
    };
  },
  check(key: Key, condition: string, names?: Record<string, string>, values?: Record<string, unknown>): TransactItem {
    return {
      ConditionCheck: {
        TableName: tableName(),
        Key: key,
        ConditionExpression: condition,
        ...(names ? { ExpressionAttributeNames: names } : {}),
        ...(values ? { ExpressionAttributeValues: values } : {}),
      },
    };
  },
};

const BATCH_LIMIT = 25;

/**
 * Writes puts and deletes in batches of 25, a few batches in flight, retrying
 * unprocessed items with backoff. Callers never put and delete the same key
 * in one call, so batch order does not matter. Items are marshalled once here and
 * sent by the low-level client: an import writes hundreds of thousands of them, and
 * the document client's own walks of each input cost it several per cent of its CPU.
 */
export async function batchWrite(
  puts: Item[],
  deletes: Key[] = [],
  options: { concurrency?: number } = {},
): Promise<void> {
  const requests: WriteRequest[] = [
    ...puts.map((item) => ({ PutRequest: { Item: toAttributes(item) } })),
    ...deletes.map((key) => ({ DeleteRequest: { Key: toAttributes(key) } })),
  ];
  const chunks: WriteRequest[][] = [];
  for (let offset = 0; offset < requests.length; offset += BATCH_LIMIT)
    chunks.push(requests.slice(offset, offset + BATCH_LIMIT));
  await inParallel(chunks, options.concurrency ?? 4, async (chunk) => {
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > 8) throw new Error('BatchWriteItem kept returning unprocessed items');
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 10));
      const result = await dynamoItems().send(new BatchWriteItemCommand({ RequestItems: { [tableName()]: pending } }));
      pending = result.UnprocessedItems?.[tableName()] ?? [];
    }
  });
  written(puts);
}

/**
 * Builds a SET/REMOVE update expression from a patch: `undefined` leaves a
 * field alone, `null` removes it, anything else sets it.
 */
export function patchExpression(patch: Record<string, unknown>): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  const sets: string[] = [];
  const removes: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  Object.entries(patch).forEach(([field, value], index) => {
    if (value === undefined) return;
    names[`#f${index}`] = field;
    if (value === null) {
      removes.push(`#f${index}`);
    } else {
      values[`:v${index}`] = value;
      sets.push(`#f${index} = :v${index}`);
    }
  });
  const parts = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ].filter(Boolean);
  return { expression: parts.join(' '), names, values };
}

const BATCH_GET_LIMIT = 100;

/**
 * Reads many items by key (100 per BatchGetItem, a few requests in flight),
 * retrying unprocessed keys. Missing items are simply absent from the result.
 * Reads are strongly consistent unless `eventuallyConsistent` (half the read
 * units on DynamoDB), for items whose stale absence costs only a redundant write.
 * Keys and items are (un)marshalled here, as in `batchWrite`.
 */
export async function batchGet<T extends Item>(
  itemKeys: Key[],
  options: { concurrency?: number; projection?: readonly string[]; eventuallyConsistent?: boolean } = {},
): Promise<T[]> {
  // Attribute names go through placeholders: some (`source`, `name`) are reserved words.
  const projection = options.projection
    ? {
        ProjectionExpression: options.projection.map((_, index) => `#p${index}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(options.projection.map((name, index) => [`#p${index}`, name])),
      }
    : {};
  const chunks: Record<string, AttributeValue>[][] = [];
  for (let offset = 0; offset < itemKeys.length; offset += BATCH_GET_LIMIT)
    chunks.push(itemKeys.slice(offset, offset + BATCH_GET_LIMIT).map(toAttributes));
  const results: T[] = [];
  await inParallel(chunks, options.concurrency ?? 4, async (chunk) => {
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > 8) throw new Error('BatchGetItem kept returning unprocessed keys');
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 10));
      const response = await dynamoItems().send(
        new BatchGetItemCommand({
          RequestItems: {
            [tableName()]: { Keys: pending, ConsistentRead: !options.eventuallyConsistent, ...projection },
          },
        }),
      );
      for (const item of response.Responses?.[tableName()] ?? []) results.push(toItem<T>(item));
      pending = response.UnprocessedKeys?.[tableName()]?.Keys ?? [];
    }
  });
  return results;
}
