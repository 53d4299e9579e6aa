/**
 * Embedded DynamoDB-compatible engine: dynalite (LevelDB) behind a loopback HTTP
 * front that adds what dynalite lacks, TransactWriteItems and TransactGetItems, with
 * DynamoDB's semantics (all or nothing, CancellationReasons, isolation).
 *
 * Isolation: every request passes one readers-writer lock. Writes (PutItem,
 * UpdateItem, DeleteItem, BatchWriteItem, table changes, TransactWriteItems) hold it
 * exclusively until their response is complete; reads (GetItem, Query, Scan,
 * BatchGetItem, TransactGetItems...) hold it shared. So no read ever sees a
 * half-applied transaction and no write interleaves with one.
 *
 * A transaction runs under the exclusive lock in three steps: validate every item
 * with dynalite's own validation and key checks; snapshot the items and evaluate
 * every ConditionExpression with dynalite's evaluator against the snapshot (a
 * failure cancels before anything is written); then replay each write as the
 * equivalent single-item call against dynalite (which evaluates the update
 * expression) and, if any of them fails, restore the snapshots of those applied.
 *
 * Across a crash: with a journal directory, the snapshots of the items a transaction
 * writes are made durable before its first write and dropped after its last (see
 * embedded-journal.ts); start-up undoes any transaction left over before the engine
 * listens. A journal or rollback failure leaves the engine refusing every request
 * until restarted (recovery then puts the state back), rather than risk a later write
 * being undone by a stale record.
 *
 * Authentication: every request must carry a SigV4 signature made with the data
 * directory's key pair (sigv4-verifier.ts), else DynamoDB's own 400 answers
 * (UnrecognizedClientException, InvalidSignatureException...). dynalite itself listens
 * only on a Unix socket in a private (0700) directory: the front's internal hop.
 *
 * Fault injection (crash tests only): VEXDESK_ENGINE_CRASH_AFTER_ITEMS=k kills the
 * whole process with SIGKILL in the first transaction with at least k item writes, once
 * k of them are applied (0 = right after its journal record is durable; k = its number
 * of writes = after all of them, before the record is cleared). Smaller transactions
 * commit normally.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  conditionHolds,
  createDynalite,
  encodeKey,
  itemError,
  keyError,
  validateSingleItemRequest,
  type AttributeMap,
  type SingleItemAction,
  type TableShape,
} from './embedded-dynalite';
import { TransactionJournal, type BeforeImage } from './embedded-journal';
import { ReadWriteLock, type Release } from './embedded-lock';
import { verifySigV4, type EngineCredentials, type Verdict } from './sigv4-verifier';

export interface EmbeddedDynamo {
  endpoint: string;
  stop(): Promise<void>;
}

export interface EmbeddedDynamoOptions {
  /** The only key pair requests may be signed with. */
  credentials: EngineCredentials;
  /** LevelDB directory; omitted = in memory. */
  path?: string;
  /** Loopback port of the front; 0 or omitted = random. */
  port?: number;
  /** Directory of the transaction journal; omitted = no journal (in-memory engines). */
  journalDir?: string;
  /** Private (0700) directory for dynalite's socket; omitted = a new temporary one. */
  socketDir?: string;
}

const API_PREFIX = 'DynamoDB_20120810.';
const JSON_TYPE = 'application/x-amz-json-1.0';
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
const MAX_TRANSACTION_ITEMS = 100;
/** DynamoDB remembers a ClientRequestToken for 10 minutes. */
const IDEMPOTENCY_WINDOW_MS = 10 * 60 * 1000;
const SHARED_OPERATIONS = new Set([
  'GetItem',
  'BatchGetItem',
  'Query',
  'Scan',
  'DescribeTable',
  'ListTables',
  'DescribeTimeToLive',
  'ListTagsOfResource',
]);

/** Calls that change a table's definition or existence (they invalidate the key-schema cache). */
const TABLE_OPERATIONS = new Set(['CreateTable', 'UpdateTable', 'DeleteTable']);

const TYPE = {
  validation: 'com.amazon.coral.validate#ValidationException',
  serialization: 'com.amazon.coral.service#SerializationException',
  canceled: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
  notFound: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException',
  idempotency: 'com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException',
  internal: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
  missingToken: 'com.amazon.coral.service#MissingAuthenticationTokenException',
  incompleteSignature: 'com.amazon.coral.service#IncompleteSignatureException',
  unrecognizedClient: 'com.amazon.coral.service#UnrecognizedClientException',
  invalidSignature: 'com.amazon.coral.service#InvalidSignatureException',
} as const;

/** A secondary index as DescribeTable gives it (the fields recovery reads). */
interface IndexShape {
  IndexName: string;
  KeySchema: { AttributeName: string; KeyType: string }[];
}

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

interface CancellationReason {
  Code: string;
  Message?: string;
  Item?: AttributeMap;
}

type WriteKind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

interface PlannedItem {
  tableName: string;
  /** Primary key only (for snapshots, restores, duplicate detection). */
  key: AttributeMap;
  /** The whole Put item or the Key; what dynalite's key checks look at. */
  keyed: AttributeMap;
  isPut: boolean;
}

interface WriteOp extends PlannedItem {
  kind: WriteKind;
  /** The equivalent single-item request parsed by dynalite's validation (carries `_condition`); what its action runs. */
  validated: Record<string, unknown>;
  returnOldOnFailure: boolean;
}

class EngineStopped extends Error {}

/** The engine refuses requests after a failure that left the store to be recovered at restart. */
class EngineBroken extends Error {}

const CRASH_AFTER_ITEMS_VARIABLE = 'VEXDESK_ENGINE_CRASH_AFTER_ITEMS';

function crashPoint(): number | undefined {
  const raw = process.env[CRASH_AFTER_ITEMS_VARIABLE];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${CRASH_AFTER_ITEMS_VARIABLE} must be a whole number, got "${raw}"`);
  return value;
}

function crash(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL did not end the process');
}

const validationError = (message: string): Reply => ({ status: 400, body: { __type: TYPE.validation, message } });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
function planWrite(entry: unknown, index: number): WriteOp | Reply {
  const present = isRecord(entry) ? WRITE_KINDS.filter((kind) => entry[kind] !== undefined) : [];
  const kind = present[0];
  if (!isRecord(entry) || present.length !== 1 || kind === undefined)
    return validationError('TransactItems can only contain one of Check, Put, Update or Delete');
  const body = entry[kind];
  if (!isRecord(body))
    return { status: 400, body: { __type: TYPE.serialization, Message: `Expected a structure for ${kind}` } };
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
  const validated = validateSingleItemRequest(action, request);
  if (!validated.ok) return { status: validated.status, body: validated.body };
  const isPut = kind === 'Put';
  const keyed = (isPut ? validated.data.Item : validated.data.Key) as AttributeMap;
  return {
    kind,
    validated: validated.data,
    returnOldOnFailure: onFailure === 'ALL_OLD',
    tableName: validated.data.TableName as string,
    // A copy: dynalite's actions build a new item on the request's Key in place (the validated
    // request is what they run), and snapshots, the journal and rollbacks need the key as it was.
    key: structuredClone(keyed),
    keyed,
    isPut,
  };
}

/** Parses one TransactItems entry of TransactGetItems. */
function planGet(entry: unknown): (PlannedItem & { request: Record<string, unknown> }) | Reply {
  if (!isRecord(entry) || !isRecord(entry.Get)) return validationError('TransactItems can only contain Get');
  const request = pickDefined(entry.Get, ['TableName', 'Key', 'ProjectionExpression', 'ExpressionAttributeNames']);
  const validated = validateSingleItemRequest('getItem', request);
  if (!validated.ok) return { status: validated.status, body: validated.body };
  const key = validated.data.Key as AttributeMap;
  return { tableName: validated.data.TableName as string, key, keyed: key, isPut: false, request };
}

function isReply(value: unknown): value is Reply {
  return isRecord(value) && typeof value.status === 'number' && isRecord(value.body);
}

function errorType(body: Record<string, unknown>): string {
  const type = typeof body.__type === 'string' ? body.__type : '';
  return type.slice(type.indexOf('#') + 1);
}

function errorMessage(body: Record<string, unknown>): string | undefined {
  const message = body.message ?? body.Message;
  return typeof message === 'string' ? message : undefined;
}

function cancellation(reasons: CancellationReason[]): Reply {
  const codes = reasons.map((reason) => reason.Code).join(', ');
  return {
    status: 400,
    body: {
      __type: TYPE.canceled,
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`,
      CancellationReasons: reasons,
    },
  };
}

/** DynamoDB answers authentication failures with 400 (not 403) and these types. */
function signatureRejection(verdict: Exclude<Verdict, { ok: true }>): Reply {
  const type =
    verdict.problem === 'missing'
      ? TYPE.missingToken
      : verdict.problem === 'malformed'
        ? TYPE.incompleteSignature
        : verdict.problem === 'unknown-key'
          ? TYPE.unrecognizedClient
          : TYPE.invalidSignature;
  const message =
    verdict.problem === 'unknown-key' ? 'The security token included in the request is invalid.' : verdict.message;
  return { status: 400, body: { __type: type, message } };
}

/** Unix socket paths are limited to about 100 bytes (sun_path). */
const MAX_SOCKET_PATH = 100;

/**
 * Where dynalite listens: in the given private directory (a socket left by a killed
 * process is replaced; engines.ts admits one engine per data directory), or in a new
 * temporary 0700 directory when none is given or its path is too long for a socket.
 */
async function privateSocketPath(directory: string | undefined): Promise<string> {
  const inDirectory = directory === undefined ? undefined : path.join(directory, 'dynalite.sock');
  if (inDirectory !== undefined && Buffer.byteLength(inDirectory) <= MAX_SOCKET_PATH) {
    await rm(inDirectory, { force: true });
    return inDirectory;
  }
  return path.join(await mkdtemp(path.join(tmpdir(), 'vexdesk-dynalite-')), 'dynalite.sock');
}

/** Listens on a loopback port, or on a Unix socket path. */
function listen(server: http.Server, port: number | string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    };
    if (typeof port === 'string') server.listen(port, listening);
    else server.listen(port, '127.0.0.1', listening);
  });
}

function readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_REQUEST_BYTES ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, reply: Reply): void {
  const payload = Buffer.from(JSON.stringify(reply.body));
  res.writeHead(reply.status, {
    'Content-Type': JSON_TYPE,
    'Content-Length': payload.length,
    'x-amzn-RequestId': randomBytes(39).toString('base64url').toUpperCase().slice(0, 52),
    // The SDK may check DynamoDB's CRC32 of the body.
    'x-amz-crc32': crc32(payload),
  });
  res.end(payload);
}

export async function startEmbeddedDynamo(options: EmbeddedDynamoOptions): Promise<EmbeddedDynamo> {
  // Tables become ACTIVE at once: real DynamoDB takes seconds, nothing local should wait.
  const { server: dynalite, write: writeValidated } = createDynalite({
    ...(options.path ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  // Not a loopback port: any local user could reach dynalite there, around the front's checks.
  const socketPath = await privateSocketPath(options.socketDir);
  // Nothing connects to it (the front hands requests to dynalite's handler in-process); it is
  // dynalite's own listener, which its close() expects.
  await listen(dynalite, socketPath);
  const removeSocket = () =>
    rm(options.socketDir === undefined ? path.dirname(socketPath) : socketPath, { recursive: true, force: true });
  const lock = new ReadWriteLock();
  const succeededTokens = new Map<string, { fingerprint: string; expiresAt: number }>();
  /** Key schemas of ACTIVE tables; forgotten whenever a table-level call passes through. */
  const activeTables = new Map<string, TableShape>();
  const crashAfterItems = crashPoint();
  let stopped = false;
  let broken: Error | undefined;

  let journal: TransactionJournal | undefined;

  /** Puts one journalled before-image back (recovery at start). */
  async function restoreBeforeImage(image: BeforeImage): Promise<void> {
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
  async function restoreTransaction(images: readonly BeforeImage[]): Promise<void> {
    for (const image of images) await restoreBeforeImage(image);
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
            throw new Error(
              `Transaction recovery failed reading index ${index.IndexName}: ${JSON.stringify(page.body)}`,
            );
          for (const entry of (page.body.Items ?? []) as AttributeMap[]) {
            const image = touched.get(keyOf(entry));
            if (!image || agrees(entry, image.item)) continue;
            const stray = await call('PutItem', { TableName: tableName, Item: entry });
            if (stray.status !== 200)
              throw new Error(`Transaction recovery failed on index ${index.IndexName}: ${JSON.stringify(stray.body)}`);
            await restoreBeforeImage(image);
          }
          startKey = page.body.LastEvaluatedKey;
        } while (startKey);
      }
    }
  }

  /**
   * One call to dynalite's own API, handed to its request handler in-process as `handle` hands
   * a client's request (dynalite checks no signature). A transaction makes two such calls per
   * item (snapshot, write): through an HTTP round trip over the socket each, that hop was most of
   * a transaction's cost in the engine (docs/triage-continuity.md "Measured").
   */
  function call(operation: string, payload: Record<string, unknown>): Promise<Reply> {
    const data = Buffer.from(JSON.stringify(payload));
    return new Promise((resolve, reject) => {
      const request = Object.assign(Readable.from([data]), {
        method: 'POST',
        url: '/',
        headers: {
          'content-type': JSON_TYPE,
          'content-length': String(data.length),
          'x-amz-target': `${API_PREFIX}${operation}`,
          'x-amz-date': '20000101T000000Z',
          authorization:
            'AWS4-HMAC-SHA256 Credential=local/20000101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        },
      });
      // The part of http.ServerResponse dynalite's handler uses (status, headers, one end()).
      const response = {
        statusCode: 200,
        contentType: JSON_TYPE,
        setHeader: () => response,
        end: (body?: string | Buffer) => {
          try {
            const parsed: unknown = JSON.parse(body === undefined ? '{}' : body.toString());
            resolve({ status: response.statusCode, body: isRecord(parsed) ? parsed : {} });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
          return response;
        },
      };
      dynalite.emit('request', request, response);
    });
  }

  async function withLock<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    const release = await (exclusive ? lock.exclusive() : lock.shared());
    try {
      if (stopped) throw new EngineStopped();
      if (broken) throw new EngineBroken(broken.message);
      return await work();
    } finally {
      release();
    }
  }

  /** Loads the tables, checks keys and rejects two operations on one item. */
  async function resolveItems(items: readonly PlannedItem[]): Promise<Reply | undefined> {
    const tables = new Map<string, TableShape>();
    for (const name of new Set(items.map((item) => item.tableName))) {
      let table = activeTables.get(name);
      if (!table) {
        const described = await call('DescribeTable', { TableName: name });
        if (described.status !== 200) return described;
        table = described.body.Table as TableShape;
        if (table.TableStatus !== 'ACTIVE' && table.TableStatus !== 'UPDATING')
          return { status: 400, body: { __type: TYPE.notFound, message: 'Requested resource not found' } };
        if (table.TableStatus === 'ACTIVE') activeTables.set(name, table);
      }
      tables.set(name, table);
    }
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

  async function snapshot(items: readonly PlannedItem[]): Promise<(AttributeMap | undefined)[] | Reply> {
    const replies = await Promise.all(
      items.map((item) => call('GetItem', { TableName: item.tableName, Key: item.key, ConsistentRead: true })),
    );
    const failed = replies.find((reply) => reply.status !== 200);
    if (failed) return failed;
    return replies.map((reply) => (isRecord(reply.body.Item) ? (reply.body.Item as AttributeMap) : undefined));
  }

  function pruneTokens(now: number): void {
    for (const [token, entry] of succeededTokens) if (entry.expiresAt <= now) succeededTokens.delete(token);
  }

  async function transactWrite(request: Record<string, unknown>): Promise<Reply> {
    const problem = lengthProblem(request.TransactItems);
    if (problem) return validationError(`1 validation error detected: ${problem}`);
    const ops: WriteOp[] = [];
    for (const [index, entry] of (request.TransactItems as unknown[]).entries()) {
      const planned = planWrite(entry, index);
      if (isReply(planned)) return planned;
      ops.push(planned);
    }
    const token = typeof request.ClientRequestToken === 'string' ? request.ClientRequestToken : undefined;
    const fingerprint = createHash('sha256').update(JSON.stringify(request.TransactItems)).digest('hex');

    return withLock(true, async () => {
      const now = Date.now();
      pruneTokens(now);
      const earlier = token === undefined ? undefined : succeededTokens.get(token);
      if (earlier) {
        // A retry of a committed transaction succeeds without running it again (DynamoDB idempotency).
        if (earlier.fingerprint === fingerprint) return { status: 200, body: {} };
        return {
          status: 400,
          body: {
            __type: TYPE.idempotency,
            message: 'Specified idempotency token was used with different request parameters',
          },
        };
      }

      const invalid = await resolveItems(ops);
      if (invalid) return invalid;
      const before = await snapshot(ops);
      if (isReply(before)) return before;

      // Every condition is judged against the state before the transaction, before any write.
      const reasons: CancellationReason[] = ops.map((op, index) => {
        const existing = before[index];
        if (conditionHolds(op.validated, existing)) return { Code: 'None' };
        return {
          Code: 'ConditionalCheckFailed',
          Message: 'The conditional request failed',
          ...(op.returnOldOnFailure && existing ? { Item: existing } : {}),
        };
      });
      if (reasons.some((reason) => reason.Code !== 'None')) return cancellation(reasons);

      const writes = ops.flatMap((op, index) => (op.kind === 'ConditionCheck' ? [] : [{ op, index }]));
      // Journal durable -> item writes -> journal cleared -> response.
      const entry = await guarded(() =>
        journal?.write(
          randomUUID(),
          writes.map(({ op, index }): BeforeImage => {
            const item = before[index];
            return { tableName: op.tableName, key: op.key, ...(item ? { item } : {}) };
          }),
        ),
      );
      // Replay the writes on dynalite's actions with the requests validated above; dynalite
      // applies each update expression (and may still reject it). The items are distinct, so
      // the calls are independent and run side by side.
      const apply = (some: typeof writes) =>
        Promise.all(
          some.map(({ op }) =>
            writeValidated(
              op.kind === 'Put' ? 'putItem' : op.kind === 'Update' ? 'updateItem' : 'deleteItem',
              op.validated,
            ),
          ),
        );
      if (crashAfterItems !== undefined && crashAfterItems <= writes.length) {
        // Exactly k writes applied, then the process dies as a kill -9 would.
        await apply(writes.slice(0, crashAfterItems));
        crash();
      }
      const replies = await apply(writes);
      const applied: number[] = [];
      let failed = false;
      for (const [position, { index }] of writes.entries()) {
        const reply = replies[position] as Reply;
        if (reply.status === 200) {
          applied.push(index);
          continue;
        }
        failed = true;
        const type = errorType(reply.body);
        const message = errorMessage(reply.body);
        reasons[index] =
          type === 'ValidationException'
            ? { Code: 'ValidationError', ...(message ? { Message: message } : {}) }
            : type === 'ConditionalCheckFailedException'
              ? { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }
              : { Code: type.replace(/Exception$/, '') || 'InternalError', ...(message ? { Message: message } : {}) };
      }
      if (failed) {
        await guarded(() => rollback(ops, before, applied));
        await guarded(() => entry?.clear());
        return cancellation(reasons);
      }
      await guarded(() => entry?.clear());

      if (token !== undefined) succeededTokens.set(token, { fingerprint, expiresAt: now + IDEMPOTENCY_WINDOW_MS });
      return { status: 200, body: {} };
    });
  }

  /**
   * Runs a step whose failure leaves the store for recovery to repair (a journal record
   * that may or may not be on disk, a rollback half done): from then on the engine
   * refuses every request, so no later write can be undone by that record at restart.
   */
  async function guarded<T>(step: () => Promise<T> | undefined): Promise<T | undefined> {
    try {
      return await step();
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error));
      console.error('[embedded-dynamo] refusing requests until restarted (recovery repairs the store)', broken);
      throw new EngineBroken(broken.message);
    }
  }

  /** Puts back the pre-transaction state of the items already written. */
  async function rollback(
    ops: readonly WriteOp[],
    before: readonly (AttributeMap | undefined)[],
    applied: readonly number[],
  ) {
    const replies = await Promise.all(
      applied.map((index) => {
        const op = ops[index] as WriteOp;
        const previous = before[index];
        return previous
          ? call('PutItem', { TableName: op.tableName, Item: previous })
          : call('DeleteItem', { TableName: op.tableName, Key: op.key });
      }),
    );
    const failure = replies.find((reply) => reply.status !== 200);
    // Leaves the engine inconsistent (only on a LevelDB failure); loud rather than silent.
    if (failure) throw new Error(`Transaction rollback failed: ${JSON.stringify(failure.body)}`);
  }

  async function transactGet(request: Record<string, unknown>): Promise<Reply> {
    const problem = lengthProblem(request.TransactItems);
    if (problem) return validationError(`1 validation error detected: ${problem}`);
    const gets: (PlannedItem & { request: Record<string, unknown> })[] = [];
    for (const entry of request.TransactItems as unknown[]) {
      const planned = planGet(entry);
      if (isReply(planned)) return planned;
      gets.push(planned);
    }
    return withLock(false, async () => {
      const invalid = await resolveItems(gets);
      if (invalid) return invalid;
      const replies = await Promise.all(gets.map((get) => call('GetItem', { ...get.request, ConsistentRead: true })));
      const failed = replies.find((reply) => reply.status !== 200);
      if (failed) return failed;
      return {
        status: 200,
        body: { Responses: replies.map((reply) => (isRecord(reply.body.Item) ? { Item: reply.body.Item } : {})) },
      };
    });
  }

  async function handleTransaction(operation: string, raw: Buffer, res: http.ServerResponse) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      send(res, { status: 400, body: { __type: TYPE.serialization } });
      return;
    }
    if (!isRecord(parsed)) {
      send(res, { status: 400, body: { __type: TYPE.serialization } });
      return;
    }
    send(res, operation === 'TransactWriteItems' ? await transactWrite(parsed) : await transactGet(parsed));
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const target = req.headers['x-amz-target'];
    const operation =
      typeof target === 'string' && target.startsWith(API_PREFIX) ? target.slice(API_PREFIX.length) : '';
    try {
      const body = await readBody(req);
      if (body === undefined) {
        res.writeHead(413).end();
        return;
      }
      // Real DynamoDB answers a CORS preflight and the GET health check unsigned.
      if (req.method !== 'OPTIONS' && req.method !== 'GET') {
        const verdict = await verifySigV4(
          { method: req.method ?? 'POST', url: req.url ?? '/', headers: req.headers, body },
          options.credentials,
        );
        if (!verdict.ok) {
          send(res, signatureRejection(verdict));
          return;
        }
      }
      if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
        await handleTransaction(operation, body, res);
        return;
      }
      // Everything else is dynalite's own handler, run while holding the lock until the
      // response is complete (dynalite answers a write only after LevelDB took it).
      const release: Release = await (SHARED_OPERATIONS.has(operation) || req.method === 'GET'
        ? lock.shared()
        : lock.exclusive());
      if (stopped || broken || res.destroyed) {
        // A client that already hung up would never emit 'close' on res again.
        release();
        if (stopped) throw new EngineStopped();
        if (broken) throw new EngineBroken(broken.message);
        return;
      }
      res.once('close', release);
      if (TABLE_OPERATIONS.has(operation)) activeTables.clear();
      // The body was read for the signature check: dynalite gets it replayed.
      const replay = Object.assign(Readable.from(body.length > 0 ? [body] : []), {
        headers: req.headers,
        method: req.method,
        url: req.url,
      });
      dynalite.emit('request', replay, res);
    } catch (error) {
      if (error instanceof EngineStopped) {
        res.destroy();
        return;
      }
      if (!(error instanceof EngineBroken)) console.error('[embedded-dynamo] request failed', error);
      if (!res.headersSent)
        send(res, {
          status: 500,
          body: { __type: TYPE.internal, message: error instanceof Error ? error.message : String(error) },
        });
      else res.destroy();
    }
  }

  const front = http.createServer((req, res) => void handle(req, res));
  let port: number;
  try {
    // Recovery completes before the front listens: no request sees a torn transaction.
    journal = options.journalDir === undefined ? undefined : await TransactionJournal.open(options.journalDir);
    const undone = await journal?.recover(restoreTransaction);
    if (undone) console.error(`[embedded-dynamo] undid ${undone} transaction(s) interrupted by a crash`);
    port = await listen(front, options.port ?? 0);
  } catch (error) {
    await new Promise<void>((resolve) => dynalite.close(() => resolve()));
    await removeSocket();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop() {
      stopping ??= (async () => {
        const frontClosed = new Promise<void>((resolve) => front.close(() => resolve()));
        // Waits for every request already admitted; later ones are turned away.
        const release = await lock.exclusive();
        stopped = true;
        release();
        front.closeAllConnections();
        await frontClosed;
        // dynalite's close() also closes LevelDB, flushing every acknowledged write.
        await new Promise<void>((resolve, reject) => dynalite.close((error) => (error ? reject(error) : resolve())));
        await removeSocket();
      })();
      return stopping;
    },
  };
}
