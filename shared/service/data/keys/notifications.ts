/**
 * Keys of notifications: a team's channels and rules (one partition each under the team's prefix), its
 * deliveries (sharded like events, with the delivery log on gsi2 and the due attempts on a sparse gsi3),
 * and the sparse gsi1 outbox every event item joins when it is written.
 */
import { hash } from 'node:crypto';
import { teamPk, type Key } from './partitions';

/** Shards of the outbox and of the due-attempt index: a burst of 10,000 events spreads over them. */
export const NOTIFY_SHARDS = 8;

export function notifyShardOf(id: string): number {
  return hash('sha256', id, 'buffer').readUInt32BE(0) % NOTIFY_SHARDS;
}

export const notifyShards = Array.from({ length: NOTIFY_SHARDS }, (_, shard) => shard);

const OUTBOX_PREFIX = 'NOTIFY_OUTBOX#';
const DUE_PREFIX = 'NOTIFY_DUE#';

const deliveryPk = (teamId: string, shard: number) => `${teamPk(teamId)}#NOTIFY_DELIVERIES#${shard}`;

export const notificationKeys = {
  notificationChannel: (teamId: string, channelId: string): Key => ({
    pk: `${teamPk(teamId)}#NOTIFY_CHANNELS`,
    sk: `CHANNEL#${channelId}`,
  }),
  notificationChannelPrefix: (teamId: string) => ({ pk: `${teamPk(teamId)}#NOTIFY_CHANNELS`, skPrefix: 'CHANNEL#' }),
  notificationRule: (teamId: string, ruleId: string): Key => ({
    pk: `${teamPk(teamId)}#NOTIFY_RULES`,
    sk: `RULE#${ruleId}`,
  }),
  notificationRulePrefix: (teamId: string) => ({ pk: `${teamPk(teamId)}#NOTIFY_RULES`, skPrefix: 'RULE#' }),
  /**
   * The outbox: attributes an event item carries from its write until the dispatcher has turned it into
   * deliveries. A global sparse index, so the dispatcher finds every team's new events without a list of teams;
   * written on the team's own item, so a tenant-scoped writer needs no grant beyond its team.
   */
  notifyOutboxEntry: (eventId: string, occurredAt: string, teamId: string) => ({
    gsi1pk: `${OUTBOX_PREFIX}${notifyShardOf(eventId)}`,
    gsi1sk: `${occurredAt}#${teamId}#${eventId}`,
  }),
  notifyOutboxPartition: (shard: number) => ({ gsi1pk: `${OUTBOX_PREFIX}${shard}` }),
  /** One delivery of one event to one channel; its id derives from both, so a repeated dispatch finds it. */
  notificationDelivery: (teamId: string, deliveryId: string): Key => ({
    pk: deliveryPk(teamId, notifyShardOf(deliveryId)),
    sk: `DELIVERY#${deliveryId}`,
  }),
  /** The delivery log, newest first per shard (gsi2). */
  notificationDeliveryLog: (teamId: string, deliveryId: string, createdAt: string) => ({
    gsi2pk: `${deliveryPk(teamId, notifyShardOf(deliveryId))}#LOG`,
    gsi2sk: `${createdAt}#${deliveryId}`,
  }),
  notificationDeliveryLogPartitions: (teamId: string) =>
    notifyShards.map((shard) => ({ gsi2pk: `${deliveryPk(teamId, shard)}#LOG` })),
  /** Sparse gsi3 entry of a delivery waiting for its next attempt, global so one worker finds every team's. */
  notificationDue: (teamId: string, deliveryId: string, nextAttemptAt: string) => ({
    gsi3pk: `${DUE_PREFIX}${notifyShardOf(deliveryId)}`,
    gsi3sk: `${nextAttemptAt}#${teamId}#${deliveryId}`,
  }),
  notificationDuePartition: (shard: number) => ({ gsi3pk: `${DUE_PREFIX}${shard}` }),
  /** Events a daily-digest rule collected, until its digest is sent. */
  notificationDigestEntry: (teamId: string, ruleId: string, occurredAt: string, eventId: string): Key => ({
    pk: `${teamPk(teamId)}#NOTIFY_DIGEST#${ruleId}`,
    sk: `${occurredAt}#${eventId}`,
  }),
  /** Pending digest entries, found across teams through a sparse gsi1 partition per shard. */
  notificationDigestPending: (teamId: string, ruleId: string, occurredAt: string, eventId: string) => ({
    gsi1pk: `NOTIFY_DIGEST#${notifyShardOf(ruleId)}`,
    gsi1sk: `${teamId}#${ruleId}#${occurredAt}#${eventId}`,
  }),
  notificationDigestPendingPartition: (shard: number) => ({ gsi1pk: `NOTIFY_DIGEST#${shard}` }),
} as const;

/** Notification work an item carries: an event's outbox entry (in its shard), or a delivery due at a time (epoch ms). */
export type NotificationWork = { kind: 'outbox'; shard: number } | { kind: 'due'; at: number };

/**
 * The notification work an item written carries: an outbox entry, or a delivery on the due index at its next
 * attempt; undefined for any other item. A local dispatcher that sees the writes of its own process wakes up for
 * them instead of polling for them (shared/local/background.ts).
 */
export function notificationWorkOf(item: Record<string, unknown>): NotificationWork | undefined {
  if (typeof item.gsi1pk === 'string' && item.gsi1pk.startsWith(OUTBOX_PREFIX)) {
    const shard = Number(item.gsi1pk.slice(OUTBOX_PREFIX.length));
    return Number.isInteger(shard) ? { kind: 'outbox', shard } : undefined;
  }
  if (typeof item.gsi3pk === 'string' && item.gsi3pk.startsWith(DUE_PREFIX) && typeof item.gsi3sk === 'string') {
    const at = Date.parse(item.gsi3sk.slice(0, item.gsi3sk.indexOf('#')));
    return Number.isNaN(at) ? undefined : { kind: 'due', at };
  }
  return undefined;
}
