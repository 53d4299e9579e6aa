/**
 * The embedded DynamoDB engine's transactions, run on dynalite with DynamoDB's semantics
 * (all or nothing, CancellationReasons, isolation, idempotency tokens).
 *
 * A write transaction runs under the engine's exclusive lock in three steps: check every
 * item's key against its table; snapshot the items (read straight from the store) and evaluate
 * every ConditionExpression with dynalite's evaluator against the snapshot (a failure cancels
 * before anything is written); then make every write the item it leaves (a Put's item, a
 * Delete's absence, an Update's result from dynalite's own UpdateItem action run against the
 * snapshot, which may still refuse it: embedded-dynalite-update.ts) and write them all, with
 * their index entries, in one LevelDB batch. LevelDB applies a batch whole or not at all, also
 * when the process dies during it, so a transaction needs no journal and no rollback; start-up
 * still undoes a journal record an earlier version left (embedded-journal.ts).
 *
 * Fault injection (crash tests only): VEXDESK_ENGINE_CRASH_AFTER_ITEMS=k kills the whole
 * process with SIGKILL in the first transaction with at least k item writes: before its batch
 * when k is less than its number of writes (the writes land together, so none is applied),
 * after it when k equals it. Smaller transactions commit normally.
 */
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
import { checkItemKeys, planGetTransaction, planWriteTransaction, type PlannedItem } from './embedded-transaction-plan';

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
  /** dynalite's API, for table descriptions and TransactGetItems. */
  call: DynaliteCall;
  /** The item an Update leaves, by dynalite's UpdateItem action against the snapshot; or its refusal. */
  updatedItem: Dynalite['updatedItem'];
  /** The snapshot of a transaction's items, straight from the store. */
  readItems: Dynalite['readItems'];
  /** A transaction's writes, in one LevelDB batch. */
  writeItems: Dynalite['writeItems'];
  /** The lock and refusal states shared with the engine's other requests. */
  gate: EngineGate;
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
    const { gate, crashAfterItems } = this.options;

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

      // Every write as the item it leaves; an Update dynalite refuses cancels the transaction, nothing written.
      const writes: ItemWrite[] = [];
      let refused = false;
      for (const [index, op] of ops.entries()) {
        if (op.kind === 'ConditionCheck') continue;
        const existing = before[index];
        let item: AttributeMap | undefined;
        if (op.kind === 'Put') item = op.validated.Item as AttributeMap;
        else if (op.kind === 'Update') {
          const outcome = await this.options.updatedItem(op.validated, existing);
          if ('refused' in outcome) {
            reasons[index] = writeFailureReason(outcome.refused);
            refused = true;
            continue;
          }
          item = outcome.item;
        }
        writes.push({
          tableName: op.tableName,
          key: op.key,
          ...(existing ? { existing } : {}),
          ...(item ? { item } : {}),
        });
      }
      if (refused) return cancellation(reasons);
      if (crashAfterItems !== undefined && crashAfterItems <= writes.length) {
        // As a kill -9 would: before the batch, or once it is written (before the client is answered).
        if (crashAfterItems === writes.length) await this.options.writeItems(writes);
        crash();
      }
      const failed = await this.options.writeItems(writes);
      if (failed) return failed;

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

  /**
   * Tokens are added once each with the same window, so the map's insertion order is their expiry order: the
   * first one still valid ends the sweep (a sweep of every token took a second of each test server's CPU).
   */
  private pruneTokens(now: number): void {
    for (const [token, entry] of this.succeededTokens) {
      if (entry.expiresAt > now) return;
      this.succeededTokens.delete(token);
    }
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
}
