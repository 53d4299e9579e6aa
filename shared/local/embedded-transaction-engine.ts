/**
 * The embedded DynamoDB engine's transactions, run on dynalite with DynamoDB's semantics
 * (all or nothing, CancellationReasons, isolation, idempotency tokens).
 *
 * A write transaction runs under the engine's exclusive lock in three steps: check every
 * item's key against its table; snapshot the items (read straight from the store) and evaluate
 * every ConditionExpression with dynalite's evaluator against the snapshot (a failure cancels
 * before anything is written); then apply the writes: each Update as dynalite's UpdateItem
 * action (which evaluates the update expression, and may still refuse it), then every Put and
 * Delete with their index entries in one LevelDB batch. If an Update fails, the Updates
 * applied are restored from the snapshot and nothing else is written. With a journal, the
 * snapshots are durable before the first write and dropped after the last (embedded-journal.ts).
 *
 * Fault injection (crash tests only): VEXDESK_ENGINE_CRASH_AFTER_ITEMS=k kills the whole
 * process with SIGKILL in the first transaction with at least k item writes, once k of
 * them are applied (the Puts' and Deletes' batch counts as all of them at once; 0 = right
 * after its journal record is durable; k = its number of writes = after all of them, before
 * the record is cleared). Smaller transactions commit normally.
 */
import { randomUUID } from 'node:crypto';
import { conditionHolds, type AttributeMap, type Dynalite, type TableShape } from './embedded-dynalite';
import type { EngineGate } from './embedded-dynamo-gate';
import {
  ERROR_TYPE,
  errorMessage,
  errorType,
  isRecord,
  isReply,
  type DynaliteCall,
  type Reply,
} from './embedded-dynamo-wire';
import type { ItemWrite } from './embedded-dynalite-store';
import type { BeforeImage, TransactionJournal } from './embedded-journal';
import {
  checkItemKeys,
  planGetTransaction,
  planWriteTransaction,
  type PlannedItem,
  type PlannedWrite,
} from './embedded-transaction-plan';

/** DynamoDB remembers a ClientRequestToken for 10 minutes. */
const IDEMPOTENCY_WINDOW_MS = 10 * 60 * 1000;

const CRASH_AFTER_ITEMS_VARIABLE = 'VEXDESK_ENGINE_CRASH_AFTER_ITEMS';

/** The crash tests' kill point, from the environment; undefined = never. */
export function crashPointFromEnvironment(): number | undefined {
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

interface CancellationReason {
  Code: string;
  Message?: string;
  Item?: AttributeMap;
}

function cancellation(reasons: CancellationReason[]): Reply {
  const codes = reasons.map((reason) => reason.Code).join(', ');
  return {
    status: 400,
    body: {
      __type: ERROR_TYPE.canceled,
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`,
      CancellationReasons: reasons,
    },
  };
}

/** The cancellation reason of a write dynalite refused after every condition held. */
function writeFailureReason(failure: Reply): CancellationReason {
  const type = errorType(failure.body);
  const message = errorMessage(failure.body);
  if (type === 'ValidationException') return { Code: 'ValidationError', ...(message ? { Message: message } : {}) };
  if (type === 'ConditionalCheckFailedException')
    return { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };
  return { Code: type.replace(/Exception$/, '') || 'InternalError', ...(message ? { Message: message } : {}) };
}

export interface TransactionEngineOptions {
  /** dynalite's API, for snapshots, table descriptions and rollbacks. */
  call: DynaliteCall;
  /** dynalite's write actions, run on requests the plan already validated (Updates). */
  write: Dynalite['write'];
  /** The snapshot of a transaction's items, straight from the store. */
  readItems: Dynalite['readItems'];
  /** A transaction's Puts and Deletes, in one LevelDB batch. */
  writeItems: Dynalite['writeItems'];
  /** The lock and refusal states shared with the engine's other requests. */
  gate: EngineGate;
  /** Omitted = no journal (in-memory engines). */
  journal?: TransactionJournal | undefined;
  /** Kill the process after this many item writes (crash tests); undefined = never. */
  crashAfterItems?: number | undefined;
}

export class TransactionEngine {
  private readonly succeededTokens = new Map<string, { fingerprint: string; expiresAt: number }>();
  /** Key schemas of ACTIVE tables; forgotten whenever a table-level call passes through. */
  private readonly activeTables = new Map<string, TableShape>();

  constructor(private readonly options: TransactionEngineOptions) {}

  /** A table was created, changed or deleted: its key schema must be read again. */
  forgetTables(): void {
    this.activeTables.clear();
  }

  async transactWrite(request: Record<string, unknown>): Promise<Reply> {
    const plan = planWriteTransaction(request);
    if (isReply(plan)) return plan;
    const { writes: ops, token, fingerprint } = plan;
    const { gate, journal, crashAfterItems } = this.options;

    return gate.withLock('exclusive', async () => {
      const now = Date.now();
      this.pruneTokens(now);
      const earlier = token === undefined ? undefined : this.succeededTokens.get(token);
      if (earlier) {
        // A retry of a committed transaction succeeds without running it again (DynamoDB idempotency).
        if (earlier.fingerprint === fingerprint) return { status: 200, body: {} };
        return {
          status: 400,
          body: {
            __type: ERROR_TYPE.idempotency,
            message: 'Specified idempotency token was used with different request parameters',
          },
        };
      }

      const invalid = await this.resolveItems(ops);
      if (invalid) return invalid;
      const before = await this.options.readItems(ops);
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
      const entry = await gate.guarded(() =>
        journal?.write(
          randomUUID(),
          writes.map(({ op, index }): BeforeImage => {
            const item = before[index];
            return { tableName: op.tableName, key: op.key, ...(item ? { item } : {}) };
          }),
        ),
      );
      // Updates run on dynalite's action with the requests validated above (it applies the update
      // expression, and may still reject it); the items are distinct, so they run side by side. The
      // Puts and Deletes, whose outcome the snapshot decides, go to LevelDB afterwards in one batch.
      const updates = writes.filter(({ op }) => op.kind === 'Update');
      const applyUpdates = (some: typeof writes) =>
        Promise.all(some.map(({ op }) => this.options.write('updateItem', op.validated)));
      const writeWholeItems = () =>
        this.options.writeItems(
          writes
            .filter(({ op }) => op.kind !== 'Update')
            .map(({ op, index }): ItemWrite => {
              const existing = before[index];
              const item = op.kind === 'Put' ? (op.validated.Item as AttributeMap) : undefined;
              return {
                tableName: op.tableName,
                key: op.key,
                ...(existing ? { existing } : {}),
                ...(item ? { item } : {}),
              };
            }),
        );
      if (crashAfterItems !== undefined && crashAfterItems <= writes.length) {
        // k item writes applied (the batch counts as the rest at once), then the process dies as a kill -9 would.
        await applyUpdates(updates.slice(0, crashAfterItems));
        if (crashAfterItems > updates.length) await writeWholeItems();
        crash();
      }
      const replies = await applyUpdates(updates);
      const applied: number[] = [];
      let failed = false;
      for (const [position, { index }] of updates.entries()) {
        const reply = replies[position] as Reply;
        if (reply.status === 200) {
          applied.push(index);
          continue;
        }
        failed = true;
        reasons[index] = writeFailureReason(reply);
      }
      if (!failed) {
        const refused = await writeWholeItems();
        if (refused) {
          failed = true;
          for (const { op, index } of writes) if (op.kind !== 'Update') reasons[index] = writeFailureReason(refused);
        }
      }
      if (failed) {
        await gate.guarded(() => this.rollback(ops, before, applied));
        await gate.guarded(() => entry?.clear());
        return cancellation(reasons);
      }
      await gate.guarded(() => entry?.clear());

      if (token !== undefined) this.succeededTokens.set(token, { fingerprint, expiresAt: now + IDEMPOTENCY_WINDOW_MS });
      return { status: 200, body: {} };
    });
  }

  async transactGet(request: Record<string, unknown>): Promise<Reply> {
    const gets = planGetTransaction(request);
    if (isReply(gets)) return gets;
    const { call, gate } = this.options;
    return gate.withLock('shared', async () => {
      const invalid = await this.resolveItems(gets);
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

  private pruneTokens(now: number): void {
    for (const [token, entry] of this.succeededTokens) if (entry.expiresAt <= now) this.succeededTokens.delete(token);
  }

  /** Loads the tables, checks keys and rejects two operations on one item. */
  private async resolveItems(items: readonly PlannedItem[]): Promise<Reply | undefined> {
    const tables = new Map<string, TableShape>();
    for (const name of new Set(items.map((item) => item.tableName))) {
      let table = this.activeTables.get(name);
      if (!table) {
        const described = await this.options.call('DescribeTable', { TableName: name });
        if (described.status !== 200) return described;
        table = described.body.Table as TableShape;
        if (table.TableStatus !== 'ACTIVE' && table.TableStatus !== 'UPDATING')
          return { status: 400, body: { __type: ERROR_TYPE.notFound, message: 'Requested resource not found' } };
        if (table.TableStatus === 'ACTIVE') this.activeTables.set(name, table);
      }
      tables.set(name, table);
    }
    return checkItemKeys(items, tables);
  }

  /** Puts back the pre-transaction state of the items already written. */
  private async rollback(
    ops: readonly PlannedWrite[],
    before: readonly (AttributeMap | undefined)[],
    applied: readonly number[],
  ): Promise<void> {
    const { call } = this.options;
    const replies = await Promise.all(
      applied.map((index) => {
        const op = ops[index] as PlannedWrite;
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
}
