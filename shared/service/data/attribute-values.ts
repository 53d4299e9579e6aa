/**
 * Items as table-client's callers hold them (plain objects) and as DynamoDB takes them (attribute values):
 * marshalled by util-dynamodb with the document client's options, so what is stored is what the document
 * client would store (test/integration/table-client-batches.test.ts).
 */
import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { DYNAMO_MARSHALL_OPTIONS, DYNAMO_UNMARSHALL_OPTIONS } from '../aws-clients';

export type Item = Record<string, unknown>;
/** A transaction item as the callers build it (`tx`): items, keys and values as plain objects. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** An item, a key or a map of expression values as attribute values, marshalled as the document client would. */
export function toAttributes(item: Item): Record<string, AttributeValue> {
  return marshall(item, DYNAMO_MARSHALL_OPTIONS);
}

/** An item DynamoDB answered, as a plain object. */
export function toItem<T extends Item = Item>(item: Record<string, AttributeValue>): T {
  return unmarshall(item, DYNAMO_UNMARSHALL_OPTIONS) as T;
}

/** The item of an answer that may have none (a GetItem of a missing key). */
export function fromAttributes<T extends Item = Item>(item: Record<string, AttributeValue> | undefined): T | undefined {
  return item ? toItem<T>(item) : undefined;
}

const valuesOf = (values: Item | undefined) => (values ? { ExpressionAttributeValues: toAttributes(values) } : {});

/** A transaction item as DynamoDB takes it: its item, key and expression values marshalled. */
export function toTransactWriteItem({ Put, Update, Delete, ConditionCheck }: TransactItem): TransactWriteItem {
  if (Put) return { Put: { ...Put, Item: toAttributes(Put.Item ?? {}), ...valuesOf(Put.ExpressionAttributeValues) } };
  if (Update)
    return {
      Update: { ...Update, Key: toAttributes(Update.Key ?? {}), ...valuesOf(Update.ExpressionAttributeValues) },
    };
  if (Delete)
    return {
      Delete: { ...Delete, Key: toAttributes(Delete.Key ?? {}), ...valuesOf(Delete.ExpressionAttributeValues) },
    };
  if (ConditionCheck)
    return {
      ConditionCheck: {
        ...ConditionCheck,
        Key: toAttributes(ConditionCheck.Key ?? {}),
        ...valuesOf(ConditionCheck.ExpressionAttributeValues),
      },
    };
  throw new Error('a transaction item must be a Put, Update, Delete or ConditionCheck');
}
