/**
 * Transaction planning for the embedded DynamoDB engine: TransactWriteItems and
 * TransactGetItems requests parsed into one planned item per entry, each validated by
 * dynalite's own validation, with DynamoDB's answers for a request that is malformed.
 * Nothing here reads or writes the store; the engine (embedded-transaction-engine.ts)
 * runs the plans.
 */
import { createHash } from 'node:crypto';
import {
  encodeKey,
  itemError,
  keyError,
  validateSingleItemRequest,
  type AttributeMap,
  type SingleItemAction,
  type TableShape,
} from './embedded-dynalite';
import { ERROR_TYPE, isRecord, isReply, validationError, type Reply } from './embedded-dynamo-wire';

const MAX_TRANSACTION_ITEMS = 100;

type WriteKind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

/** One item a transaction reads or writes. */
export interface PlannedItem {
  tableName: string;
  /** Primary key only (for snapshots, restores, duplicate detection). */
  key: AttributeMap;
  /** The whole Put item or the Key; what dynalite's key checks look at. */
  keyed: AttributeMap;
  isPut: boolean;
}

export interface PlannedWrite extends PlannedItem {
  kind: WriteKind;
  /** The equivalent single-item request parsed by dynalite's validation (carries `_condition`); what its action runs. */
  validated: Record<string, unknown>;
  returnOldOnFailure: boolean;
}

export interface PlannedGet extends PlannedItem {
  /** The equivalent GetItem request. */
  request: Record<string, unknown>;
}

export interface WriteTransactionPlan {
  writes: PlannedWrite[];
  /** ClientRequestToken, if the client sent one. */
  token: string | undefined;
  /** Tells a retry of the same transaction from another one under the same token. */
  fingerprint: string;
}

/** DynamoDB's "N validation error(s) detected" wording for a list-length constraint. */
function lengthProblem(items: unknown): string | undefined {
  if (!Array.isArray(items))
    return "Value null at 'transactItems' failed to satisfy constraint: Member must not be null";
  if (items.length < 1)
    return "Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1";
  if (items.length > MAX_TRANSACTION_ITEMS)
    return `Value '[${items.length} items]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to ${MAX_TRANSACTION_ITEMS}`;
  return undefined;
}

function pickDefined(source: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const field of fields) if (source[field] !== undefined) picked[field] = source[field];
  return picked;
}

const EXPRESSION_FIELDS = ['ConditionExpression', 'ExpressionAttributeNames', 'ExpressionAttributeValues'] as const;
const WRITE_SHAPES: Record<WriteKind, { action: SingleItemAction; fields: readonly string[]; member: string }> = {
  Put: { action: 'putItem', fields: ['TableName', 'Item', ...EXPRESSION_FIELDS], member: 'put' },
  Update: {
    action: 'updateItem',
    fields: ['TableName', 'Key', 'UpdateExpression', ...EXPRESSION_FIELDS],
    member: 'update',
  },
  Delete: { action: 'deleteItem', fields: ['TableName', 'Key', ...EXPRESSION_FIELDS], member: 'delete' },
  // Validated like a conditional DeleteItem (same fields) but never sent to dynalite.
  ConditionCheck: {
    action: 'deleteItem',
    fields: ['TableName', 'Key', ...EXPRESSION_FIELDS],
    member: 'conditionCheck',
  },
};
const WRITE_KINDS = Object.keys(WRITE_SHAPES) as WriteKind[];

/** Parses one TransactItems entry of TransactWriteItems; a Reply is a request-level error. */
function planWrite(entry: unknown, index: number): PlannedWrite | Reply {
  const present = isRecord(entry) ? WRITE_KINDS.filter((kind) => entry[kind] !== undefined) : [];
  const kind = present[0];
  if (!isRecord(entry) || present.length !== 1 || kind === undefined)
    return validationError('TransactItems can only contain one of Check, Put, Update or Delete');
  const body = entry[kind];
  if (!isRecord(body))
    return { status: 400, body: { __type: ERROR_TYPE.serialization, Message: `Expected a structure for ${kind}` } };
  const { action, fields, member } = WRITE_SHAPES[kind];
  const path = `transactItems.${index + 1}.member.${member}`;
  const required =
    kind === 'ConditionCheck' ? 'ConditionExpression' : kind === 'Update' ? 'UpdateExpression' : undefined;
  if (required && body[required] === undefined)
    return validationError(
      `1 validation error detected: Value null at '${path}.${required[0]?.toLowerCase()}${required.slice(1)}' failed to satisfy constraint: Member must not be null`,
    );
  const onFailure = body.ReturnValuesOnConditionCheckFailure;
  if (onFailure !== undefined && onFailure !== 'ALL_OLD' && onFailure !== 'NONE')
    return validationError(
      `1 validation error detected: Value '${typeof onFailure === 'string' ? onFailure : JSON.stringify(onFailure)}' at '${path}.returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]`,
    );
  const request = pickDefined(body, fields);
  // The transaction's request is the engine's own (parsed from the wire): validated in place, not copied.
  const validated = validateSingleItemRequest(action, request, { consume: true });
  if (!validated.ok) return { status: validated.status, body: validated.body };
  const isPut = kind === 'Put';
  const keyed = (isPut ? validated.data.Item : validated.data.Key) as AttributeMap;
  return {
    kind,
    validated: validated.data,
    returnOldOnFailure: onFailure === 'ALL_OLD',
    tableName: validated.data.TableName as string,
    // A copy: dynalite's UpdateItem action builds a new item on the request's Key in place (the
    // validated request is what it runs), and the snapshot and the batch need the key as it was.
    // A Put's key is narrowed to the key attributes and copied by checkItemKeys: copying the whole
    // item here would be wasted.
    key: isPut ? keyed : structuredClone(keyed),
    keyed,
    isPut,
  };
}

/** Parses one TransactItems entry of TransactGetItems. */
function planGet(entry: unknown): PlannedGet | Reply {
  if (!isRecord(entry) || !isRecord(entry.Get)) return validationError('TransactItems can only contain Get');
  const request = pickDefined(entry.Get, ['TableName', 'Key', 'ProjectionExpression', 'ExpressionAttributeNames']);
  const validated = validateSingleItemRequest('getItem', request);
  if (!validated.ok) return { status: validated.status, body: validated.body };
  const key = validated.data.Key as AttributeMap;
  return { tableName: validated.data.TableName as string, key, keyed: key, isPut: false, request };
}

/**
 * A TransactWriteItems request as planned writes, or the error DynamoDB answers it with. Consumes `request`
 * (dynalite's validation rewrites its items in place): pass one of the caller's own, as parsed from the wire.
 */
export function planWriteTransaction(request: Record<string, unknown>): WriteTransactionPlan | Reply {
  const problem = lengthProblem(request.TransactItems);
  if (problem) return validationError(`1 validation error detected: ${problem}`);
  // Before validation rewrites the items: a retry is recognised by the request as it was sent.
  const fingerprint = createHash('sha256').update(JSON.stringify(request.TransactItems)).digest('hex');
  const writes: PlannedWrite[] = [];
  for (const [index, entry] of (request.TransactItems as unknown[]).entries()) {
    const planned = planWrite(entry, index);
    if (isReply(planned)) return planned;
    writes.push(planned);
  }
  const token = typeof request.ClientRequestToken === 'string' ? request.ClientRequestToken : undefined;
  return { writes, token, fingerprint };
}

/** A TransactGetItems request as planned reads, or the error DynamoDB answers it with. */
export function planGetTransaction(request: Record<string, unknown>): PlannedGet[] | Reply {
  const problem = lengthProblem(request.TransactItems);
  if (problem) return validationError(`1 validation error detected: ${problem}`);
  const gets: PlannedGet[] = [];
  for (const entry of request.TransactItems as unknown[]) {
    const planned = planGet(entry);
    if (isReply(planned)) return planned;
    gets.push(planned);
  }
  return gets;
}

/**
 * Checks every item's key against its table's key schema and rejects two operations on one
 * item. A Put's `key` is narrowed here to the key attributes (it carries the whole item).
 */
export function checkItemKeys(
  items: readonly PlannedItem[],
  tables: ReadonlyMap<string, TableShape>,
): Reply | undefined {
  const seen = new Set<string>();
  for (const item of items) {
    const table = tables.get(item.tableName) as TableShape;
    const problem = item.isPut ? itemError(item.keyed, table) : keyError(item.keyed, table);
    if (problem) return { status: 400, body: problem };
    if (item.isPut) {
      // A Put carries the whole item; snapshots and restores need only its key.
      item.key = structuredClone(
        Object.fromEntries(
          table.KeySchema.map(({ AttributeName }) => [
            AttributeName,
            item.keyed[AttributeName] as AttributeMap[string],
          ]),
        ),
      );
    }
    const identity = `${item.tableName}\u0000${encodeKey(item.key, table)}`;
    if (seen.has(identity))
      return validationError('Transaction request cannot include multiple operations on one item');
    seen.add(identity);
  }
  return undefined;
}
