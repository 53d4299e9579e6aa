/**
 * Data module of deliveries: one item per message and channel, the delivery log (gsi2, newest first per
 * shard) and, while an attempt is owed, an entry of the global due index (gsi3) that the dispatcher reads.
 * An attempt is claimed before it is made (the attempt counter moves and the due time moves a lease ahead),
 * so a process that dies mid-attempt leaves a delivery that comes due again: at least once, never lost.
 */
import { mergeSorted } from '../audit/audit-read';
import { keys } from '../data/keys';
import { notifyShards } from '../data/keys/notifications';
import {
  getItem,
  getItems,
  putItem,
  tx,
  updateItem,
  type Item,
  type PrefixQuery,
  type TransactItem,
} from '../data/table-client';
import { tableDefinition } from '../data/table-definition';
import type { ConditionalUpdate } from '../data/update-batcher';
import { eventId } from '../events/event-store';
import type { DeliveryStatus, DeliveryView } from '../schemas/notifications';
import type { NotificationMessage } from './messages';
import type { DeliveryOutcome } from './transports';

/** Deliveries are kept 30 days in the log. */
const RETENTION_SECONDS = 30 * 24 * 60 * 60;
/** A consistent multi-item read takes up to 100 keys. */
const MAX_ITEMS_PER_READ = 100;

export interface StoredDelivery {
  id: string;
  teamId: string;
  channelId: string;
  ruleId: string | null;
  status: DeliveryStatus;
  attempt: number;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number | null;
  error: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  /** When retrying began (creation or the last redelivery): retries stop 24 h after it. */
  retryingSince: string;
  message: NotificationMessage;
}

/** A delivery's id derives from the team, the channel and the message: a message reaches a channel once. */
export function deliveryIdOf(teamId: string, channelId: string, messageId: string): string {
  return eventId('notification-delivery', teamId, channelId, messageId);
}

/** A new delivery of `message` to a channel, owed at once. */
export function newDelivery(
  teamId: string,
  channelId: string,
  ruleId: string | null,
  message: NotificationMessage,
  at: string,
): StoredDelivery {
  return {
    id: deliveryIdOf(teamId, channelId, message.id),
    teamId,
    channelId,
    ruleId,
    status: 'pending',
    attempt: 0,
    responseStatus: null,
    responseBody: null,
    durationMs: null,
    error: null,
    nextAttemptAt: at,
    createdAt: at,
    lastAttemptAt: null,
    retryingSince: at,
    message,
  };
}

function toDelivery(item: Item): StoredDelivery {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const count = (value: unknown) => (typeof value === 'number' ? value : null);
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    channelId: String(item.channelId),
    ruleId: text(item.ruleId),
    status: item.status as DeliveryStatus,
    attempt: Number(item.attempt ?? 0),
    responseStatus: count(item.responseStatus),
    responseBody: text(item.responseBody),
    durationMs: count(item.durationMs),
    error: text(item.error),
    nextAttemptAt: text(item.nextAttemptAt),
    createdAt: String(item.createdAt),
    lastAttemptAt: text(item.lastAttemptAt),
    retryingSince: String(item.retryingSince ?? item.createdAt),
    message: (typeof item.message === 'string' ? JSON.parse(item.message) : item.message) as NotificationMessage,
  };
}

export function toDeliveryView(delivery: StoredDelivery): DeliveryView {
  return {
    id: delivery.id,
    channelId: delivery.channelId,
    ruleId: delivery.ruleId,
    eventId: delivery.message.id,
    eventType: delivery.message.type as DeliveryView['eventType'],
    status: delivery.status,
    attempt: delivery.attempt,
    responseStatus: delivery.responseStatus,
    responseBody: delivery.responseBody,
    durationMs: delivery.durationMs,
    error: delivery.error,
    nextAttemptAt: delivery.nextAttemptAt,
    createdAt: delivery.createdAt,
    lastAttemptAt: delivery.lastAttemptAt,
  };
}

function deliveryItem(delivery: StoredDelivery): Item {
  return {
    ...keys.notificationDelivery(delivery.teamId, delivery.id),
    ...keys.notificationDeliveryLog(delivery.teamId, delivery.id, delivery.createdAt),
    ...(delivery.nextAttemptAt !== null
      ? keys.notificationDue(delivery.teamId, delivery.id, delivery.nextAttemptAt)
      : {}),
    entity: 'NotificationDelivery',
    ...delivery,
    // JSON text: the message is only ever read whole, and one string is far cheaper to write and read than its
    // nested attributes (deliveries written before are maps; both are read).
    message: JSON.stringify(delivery.message),
    eventId: delivery.message.id,
    [tableDefinition.timeToLiveAttribute]: Math.floor(Date.parse(delivery.createdAt) / 1000) + RETENTION_SECONDS,
  };
}

export interface DeliveryFilter {
  channelId?: string | undefined;
  status?: DeliveryStatus | undefined;
  eventId?: string | undefined;
}

function logQueries(teamId: string, filter: DeliveryFilter): PrefixQuery[] {
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const field of ['channelId', 'status', 'eventId'] as const) {
    const value = filter[field];
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    conditions.push(`#${field} = :${field}`);
  }
  const index = tableDefinition.globalIndexes[1];
  return keys.notificationDeliveryLogPartitions(teamId).map(({ gsi2pk }) => ({
    pk: gsi2pk,
    indexName: index.indexName,
    pkAttribute: index.partitionKey,
    skAttribute: index.sortKey,
    descending: true,
    pageSize: 500,
    ...(conditions.length > 0 ? { filter: { expression: conditions.join(' AND '), names, values } } : {}),
  }));
}

export const DeliveryStore = {
  /** Writes a new delivery; false when one with its id exists (the message was already handed to the channel). */
  async createIfAbsent(delivery: StoredDelivery): Promise<boolean> {
    return putItem(deliveryItem(delivery), 'attribute_not_exists(pk)');
  },

  /**
   * A new delivery as its first attempt left it, as a transaction item that fails when it exists: the pass that
   * made the attempt writes it with the removal of its outbox entry.
   */
  attempted(delivery: StoredDelivery): TransactItem {
    return tx.create(deliveryItem(delivery));
  },

  /** The ids of those of `deliveries` that exist already (a pass that died may have made some). */
  async existing(deliveries: StoredDelivery[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let offset = 0; offset < deliveries.length; offset += MAX_ITEMS_PER_READ) {
      const chunk = deliveries.slice(offset, offset + MAX_ITEMS_PER_READ);
      const items = await getItems(chunk.map((delivery) => keys.notificationDelivery(delivery.teamId, delivery.id)));
      items.forEach((item, index) => {
        if (item) found.add(chunk[index]!.id);
      });
    }
    return found;
  },

  async get(teamId: string, deliveryId: string): Promise<StoredDelivery | undefined> {
    const item = await getItem(keys.notificationDelivery(teamId, deliveryId));
    return item ? toDelivery(item) : undefined;
  },

  /** One page of the log, newest first, and how many match. */
  async list(
    teamId: string,
    filter: DeliveryFilter,
    page: number,
    perPage: number,
  ): Promise<{ deliveries: StoredDelivery[]; total: number }> {
    const start = (page - 1) * perPage;
    const deliveries: StoredDelivery[] = [];
    let total = 0;
    for await (const item of mergeSorted(logQueries(teamId, filter))) {
      if (total >= start && total < start + perPage) deliveries.push(toDelivery(item));
      total += 1;
    }
    return { deliveries, total };
  },

  /**
   * Takes the next attempt: counts it and moves the due time to the lease's end, on the condition that nobody
   * took it since `delivery` was read. Undefined when somebody did (or it is no longer owed).
   */
  async claim(delivery: StoredDelivery, leaseUntil: string): Promise<StoredDelivery | undefined> {
    const due = keys.notificationDue(delivery.teamId, delivery.id, leaseUntil);
    const item = await updateItem(
      keys.notificationDelivery(delivery.teamId, delivery.id),
      'SET #attempt = :next, nextAttemptAt = :lease, gsi3pk = :duePk, gsi3sk = :dueSk',
      { '#attempt': 'attempt', '#status': 'status' },
      {
        ':next': delivery.attempt + 1,
        ':attempt': delivery.attempt,
        ':lease': leaseUntil,
        ':duePk': due.gsi3pk,
        ':dueSk': due.gsi3sk,
        ':delivered': 'delivered',
        ':dead': 'dead',
      },
      '#attempt = :attempt AND #status <> :delivered AND #status <> :dead',
    );
    return item ? toDelivery(item) : undefined;
  },

  /** Records the attempt's outcome; `nextAttemptAt` null takes the delivery out of the due index. */
  async recordAttempt(
    delivery: StoredDelivery,
    outcome: DeliveryOutcome,
    status: DeliveryStatus,
    nextAttemptAt: string | null,
    at: string,
  ): Promise<void> {
    const { key, update, names, values, condition } = DeliveryStore.attemptRecord(
      delivery,
      outcome,
      status,
      nextAttemptAt,
      at,
    );
    await updateItem(key, update, names, values, condition);
  },

  /** The write `recordAttempt` makes, for callers that gather several into one transaction. */
  attemptRecord(
    delivery: StoredDelivery,
    outcome: DeliveryOutcome,
    status: DeliveryStatus,
    nextAttemptAt: string | null,
    at: string,
  ): ConditionalUpdate {
    const values: Record<string, unknown> = {
      ':status': status,
      ':responseStatus': outcome.responseStatus,
      ':responseBody': outcome.responseBody,
      ':durationMs': outcome.durationMs,
      ':error': outcome.error,
      ':at': at,
      ':next': nextAttemptAt,
      ':attempt': delivery.attempt,
    };
    let update =
      'SET #status = :status, responseStatus = :responseStatus, responseBody = :responseBody, durationMs = :durationMs, #error = :error, lastAttemptAt = :at, nextAttemptAt = :next';
    if (nextAttemptAt !== null) {
      const due = keys.notificationDue(delivery.teamId, delivery.id, nextAttemptAt);
      values[':duePk'] = due.gsi3pk;
      values[':dueSk'] = due.gsi3sk;
      update += ', gsi3pk = :duePk, gsi3sk = :dueSk';
    } else update += ' REMOVE gsi3pk, gsi3sk';
    return {
      key: keys.notificationDelivery(delivery.teamId, delivery.id),
      update,
      names: { '#status': 'status', '#error': 'error', '#attempt': 'attempt' },
      values,
      condition: '#attempt = :attempt',
    };
  },

  /** Owes the delivery again from now: pending, due at once, with a new 24-hour retry window. */
  async redeliver(delivery: StoredDelivery, at: string): Promise<StoredDelivery | undefined> {
    const due = keys.notificationDue(delivery.teamId, delivery.id, at);
    const item = await updateItem(
      keys.notificationDelivery(delivery.teamId, delivery.id),
      'SET #status = :pending, nextAttemptAt = :at, retryingSince = :at, gsi3pk = :duePk, gsi3sk = :dueSk',
      { '#status': 'status' },
      { ':pending': 'pending', ':at': at, ':duePk': due.gsi3pk, ':dueSk': due.gsi3sk },
      'attribute_exists(pk)',
    );
    return item ? toDelivery(item) : undefined;
  },

  /** The deliveries owed by `now`, oldest first, across every team. */
  async *due(now: string, limit: number): AsyncGenerator<StoredDelivery> {
    const index = tableDefinition.globalIndexes[2];
    // Due times are ISO 8601 (they start with a digit): '0' is below every one, and DynamoDB refuses '' as a bound.
    const queries: PrefixQuery[] = notifyShards.map((shard) => ({
      pk: keys.notificationDuePartition(shard).gsi3pk,
      indexName: index.indexName,
      pkAttribute: index.partitionKey,
      skAttribute: index.sortKey,
      skBetween: ['0', `${now}#\uffff`] as [string, string],
      pageSize: Math.min(limit, 500),
    }));
    let yielded = 0;
    for await (const item of mergeSorted(queries)) {
      if (yielded >= limit) return;
      yielded += 1;
      yield toDelivery(item);
    }
  },
};
