/**
 * From events to deliveries, and deliveries to receivers (docs/notifications.md "Delivery"):
 * 1. Every event item is written with an outbox entry (a sparse global index, shared/service/data/keys/notifications.ts).
 *    The dispatcher reads the outbox, writes one delivery per matching channel (its id derived from the event and
 *    the channel, created only if absent), and only then removes the entry. A crash before the removal makes the
 *    next run find the entry again and the deliveries already there: late, never lost, never doubled.
 * 2. Deliveries owed an attempt sit in a due index. An attempt is claimed first (a lease), then made, then
 *    recorded: a 2xx is delivered; a 410 ends the channel; anything else retries with exponential backoff and
 *    jitter for 24 hours, then the delivery is dead. 20 failures in a row disable the channel too.
 * The same code runs in the local background loop and in the scheduled `notify-worker` function on AWS.
 */
import { auditPut, recordAudit } from '../audit/audit-log';
import { config } from '../config';
import { keys } from '../data/keys';
import { notifyShards } from '../data/keys/notifications';
import { getItem, queryPages, tx, updateItem, type Item } from '../data/table-client';
import { tableDefinition } from '../data/table-definition';
import { eventId, eventItem, toTeamEvent, type TeamEvent } from '../events/event-store';
import { toEventView } from '../events/events';
import type { Actor, Caller } from '../identity/actor';
import { toRelease, type ReleaseStatus } from '../releases/release-store';
import { NotFoundError } from '../errors';
import { pageMeta } from '../data/paging';
import type { PageMeta } from '../schemas/common';
import type { DeliveryListQuery, DeliveryView } from '../schemas/notifications';
import { ChannelStore, openSecrets, type StoredChannel } from './channel-store';
import { DeliveryStore, toDeliveryView, type StoredDelivery } from './delivery-store';
import { approverAddresses } from './approvers';
import { collectForDigest, digestsDue } from './digests';
import { ruleMatches } from './matching';
import { eventMessage, type NotificationMessage } from './messages';
import { RuleStore, type StoredRule } from './rule-store';
import { send, type DeliveryOutcome, type DeliveryTarget } from './transports';

/** Who the audit log names for what the dispatcher does on its own (disabling a failing channel). */
export const NOTIFIER_ACTOR: Actor = { id: 'notifier', name: 'vexdesk-notifications', email: null, kind: 'operator' };

/** An attempt that has not recorded its outcome by then (the process died) is owed again. */
const LEASE_MS = 60_000;
const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
export const FAILURES_BEFORE_DISABLE = 20;
/** Failures count toward disabling at most once per 5 minutes: 20 mean about 1.5 h without a single success. */
const FAILURE_COUNT_SPACING_MS = 5 * 60 * 1000;
const ATTEMPT_CONCURRENCY = 16;
const OUTBOX_CONCURRENCY_PER_SHARD = 8;

/** Exponential from the configured base, capped at an hour, with ±25 % jitter so retries do not march in step. */
export function retryDelayMs(attempt: number, base = config().notifications.retryBaseMs): number {
  const delay = Math.min(base * 2 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_MS);
  return Math.round(delay * (0.75 + Math.random() * 0.5));
}

export function deliveryIdOf(teamId: string, channelId: string, messageId: string): string {
  return eventId('notification-delivery', teamId, channelId, messageId);
}

function newDelivery(
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

async function targetOf(channel: StoredChannel, message: NotificationMessage): Promise<DeliveryTarget> {
  if (channel.type === 'email') {
    const recipients = channel.approvers ? await approverAddresses(channel.teamId, message) : channel.recipients;
    if (!recipients?.length) throw new NoRecipientsError();
    return { type: 'email', recipients, channelId: channel.id };
  }
  const secrets = await openSecrets(channel);
  if (!secrets.url) throw new Error('channel has no URL');
  if (channel.type === 'slack') return { type: 'slack', url: secrets.url };
  if (!secrets.secret) throw new Error('webhook channel has no signing secret');
  return { type: 'webhook', url: secrets.url, secret: secrets.secret };
}

/** Disables the channel with an audit entry and a `channel.disabled` event for the team's other channels, in one transaction. */
async function disableChannel(channel: StoredChannel, reason: string): Promise<void> {
  const at = new Date().toISOString();
  const event: TeamEvent = {
    id: eventId(channel.teamId, channel.id, 'channel.disabled', at),
    type: 'channel.disabled',
    occurredAt: at,
    teamId: channel.teamId,
    productId: '',
    releaseId: '',
    data: { channel_id: channel.id, channel_name: channel.name, channel_type: channel.type, reason },
  };
  await ChannelStore.disable(channel.teamId, channel.id, reason, at, [
    auditPut(channel.teamId, NOTIFIER_ACTOR, {
      action: 'disable',
      entityType: 'notification_channel',
      entityId: channel.id,
      entityName: channel.name,
      changes: { enabled: { from: true, to: false }, reason },
    }),
    tx.put(eventItem(event)),
  ]);
}

/** Nobody to write to (no member may approve): not the receiver's failure, and retrying would not help. */
class NoRecipientsError extends Error {
  constructor() {
    super('nobody to send to: no member may approve it');
  }
}

const refused = (error: string): DeliveryOutcome => ({
  delivered: false,
  responseStatus: null,
  responseBody: null,
  durationMs: 0,
  error,
});

/** Claims, makes and records one attempt; answers the delivery as recorded (undefined if someone else holds it). */
async function attempt(delivery: StoredDelivery): Promise<StoredDelivery | undefined> {
  const leaseUntil = new Date(Date.now() + LEASE_MS).toISOString();
  const claimed = await DeliveryStore.claim(delivery, leaseUntil);
  if (!claimed) return undefined;
  const channel = await ChannelStore.get(claimed.teamId, claimed.channelId);
  const record = async (outcome: DeliveryOutcome, status: StoredDelivery['status'], next: string | null) => {
    const at = new Date().toISOString();
    await DeliveryStore.recordAttempt(claimed, outcome, status, next, at);
    return { ...claimed, ...outcome, status, nextAttemptAt: next, lastAttemptAt: at };
  };
  if (!channel) return record(refused('the channel was deleted'), 'dead', null);
  if (!channel.enabled)
    return record(refused(`the channel is disabled (${channel.disabledReason ?? 'by a person'})`), 'dead', null);

  let outcome: DeliveryOutcome;
  try {
    outcome = await send(await targetOf(channel, claimed.message), claimed.message);
  } catch (error) {
    if (error instanceof NoRecipientsError) return record(refused(error.message), 'dead', null);
    outcome = refused((error as Error).message);
  }
  if (outcome.delivered) {
    if (channel.consecutiveFailures > 0) await ChannelStore.recordSuccess(channel.teamId, channel.id);
    return record(outcome, 'delivered', null);
  }
  if (outcome.responseStatus === 410) {
    const recorded = await record(outcome, 'dead', null);
    await disableChannel(channel, 'the receiver answered 410 Gone');
    return recorded;
  }
  const failures = await ChannelStore.recordFailure(channel.teamId, channel.id, new Date(), FAILURE_COUNT_SPACING_MS);
  if (failures >= FAILURES_BEFORE_DISABLE)
    await disableChannel(channel, `${FAILURES_BEFORE_DISABLE} deliveries in a row failed`);
  // A test answers its one attempt; it is not retried (redeliver sends it again).
  if (claimed.message.type === 'test') return record(outcome, 'failed', null);
  const next = Date.now() + retryDelayMs(claimed.attempt);
  if (next - Date.parse(claimed.retryingSince) > RETRY_WINDOW_MS) return record(outcome, 'dead', null);
  return record(outcome, 'failed', new Date(next).toISOString());
}

async function inParallel<T>(
  items: T[],
  work: (item: T) => Promise<unknown>,
  concurrency = ATTEMPT_CONCURRENCY,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** What one team's rules and channels are, read once per run. */
interface TeamRouting {
  rules: StoredRule[];
  channels: Map<string, StoredChannel>;
  releaseStatus: Map<string, Promise<ReleaseStatus | undefined>>;
}

async function routingOf(cache: Map<string, Promise<TeamRouting>>, teamId: string): Promise<TeamRouting> {
  let routing = cache.get(teamId);
  if (!routing) {
    routing = Promise.all([RuleStore.list(teamId), ChannelStore.list(teamId)]).then(([rules, channels]) => ({
      rules: rules.filter((rule) => rule.enabled),
      channels: new Map(channels.map((channel) => [channel.id, channel])),
      releaseStatus: new Map(),
    }));
    cache.set(teamId, routing);
  }
  return routing;
}

function releaseStatusOf(routing: TeamRouting, event: TeamEvent): Promise<ReleaseStatus | undefined> {
  if (!event.productId || !event.releaseId) return Promise.resolve(undefined);
  let status = routing.releaseStatus.get(event.releaseId);
  if (!status) {
    status = getItem(keys.release(event.teamId, event.productId, event.releaseId)).then((item) =>
      item ? toRelease(item).status : undefined,
    );
    routing.releaseStatus.set(event.releaseId, status);
  }
  return status;
}

/** Turns one outbox entry into its deliveries and digest entries, then takes it out of the outbox. */
async function dispatchEvent(routing: TeamRouting, event: TeamEvent): Promise<StoredDelivery[]> {
  const wanted = routing.rules.some((rule) => rule.eventTypes.includes(event.type));
  const status =
    wanted && routing.rules.some((rule) => rule.filters.releaseStatus)
      ? await releaseStatusOf(routing, event)
      : undefined;
  const matching = wanted ? routing.rules.filter((rule) => ruleMatches(rule, event, status)) : [];
  const created: StoredDelivery[] = [];
  const message = eventMessage(toEventView(event));
  const now = new Date().toISOString();
  const seenChannels = new Set<string>();
  for (const rule of matching) {
    const channel = routing.channels.get(rule.channelId);
    if (!channel?.enabled) continue;
    if (rule.mode === 'daily_digest') {
      await collectForDigest(rule, event);
      continue;
    }
    if (seenChannels.has(channel.id)) continue;
    seenChannels.add(channel.id);
    const delivery = newDelivery(event.teamId, channel.id, rule.id, message, now);
    if (await DeliveryStore.createIfAbsent(delivery)) created.push(delivery);
  }
  // Conditional: an update of an item that expired meanwhile must not bring back a bare key.
  await updateItem(
    keys.event(event.teamId, event.occurredAt, event.id),
    'REMOVE gsi1pk, gsi1sk',
    undefined,
    undefined,
    'attribute_exists(pk)',
  );
  return created;
}

export const Dispatch = {
  /** Reads up to `limit` outbox entries per shard and writes their deliveries; answers how many of each. */
  async drainOutbox(limit = 500): Promise<{ events: number; deliveries: StoredDelivery[] }> {
    const index = tableDefinition.globalIndexes[0];
    const routing = new Map<string, Promise<TeamRouting>>();
    const deliveries: StoredDelivery[] = [];
    let events = 0;
    await Promise.all(
      notifyShards.map(async (shard) => {
        const pages = queryPages<Item>({
          pk: keys.notifyOutboxPartition(shard).gsi1pk,
          indexName: index.indexName,
          pkAttribute: index.partitionKey,
          skAttribute: index.sortKey,
          pageSize: limit,
        });
        const first = await pages.next();
        await pages.return(undefined);
        // Several entries at once: a burst of thousands (one corpus change) clears in seconds, not minutes.
        await inParallel(
          first.done ? [] : first.value,
          async (item) => {
            const event = toTeamEvent(item);
            events += 1;
            deliveries.push(...(await dispatchEvent(await routingOf(routing, event.teamId), event)));
          },
          OUTBOX_CONCURRENCY_PER_SHARD,
        );
      }),
    );
    return { events, deliveries };
  },

  /** Makes the attempts owed by now (up to `limit`); answers how many were made and delivered. */
  async attemptDue(limit = 500): Promise<{ attempted: number; delivered: number }> {
    const due: StoredDelivery[] = [];
    for await (const delivery of DeliveryStore.due(new Date().toISOString(), limit)) due.push(delivery);
    let attempted = 0;
    let delivered = 0;
    await inParallel(due, async (delivery) => {
      const recorded = await attempt(delivery);
      if (recorded) attempted += 1;
      if (recorded?.status === 'delivered') delivered += 1;
    });
    return { attempted, delivered };
  },

  /** One pass: new events become deliveries, owed attempts are made. */
  async runOnce(): Promise<{ events: number; attempted: number; delivered: number }> {
    const drained = await Dispatch.drainOutbox();
    const digests = await digestsDue();
    // The new deliveries go at once, without waiting for the due index to show them.
    let attempted = 0;
    let delivered = 0;
    await inParallel([...drained.deliveries, ...digests], async (delivery) => {
      const recorded = await attempt(delivery);
      if (recorded) attempted += 1;
      if (recorded?.status === 'delivered') delivered += 1;
    });
    const due = await Dispatch.attemptDue();
    return { events: drained.events, attempted: attempted + due.attempted, delivered: delivered + due.delivered };
  },

  /** Owes a delivery again now (a new 24-hour retry window), and audits who asked. */
  async redeliver(caller: Caller, deliveryId: string): Promise<DeliveryView> {
    const delivery = await DeliveryStore.get(caller.teamId, deliveryId);
    if (!delivery) throw new NotFoundError('Notification delivery');
    const at = new Date().toISOString();
    const owed = await DeliveryStore.redeliver(delivery, at);
    if (!owed) throw new NotFoundError('Notification delivery');
    await recordAudit(caller.teamId, caller.actor, [
      {
        action: 'redeliver',
        entityType: 'notification_delivery',
        entityId: delivery.id,
        entityName: `${delivery.message.type} ${delivery.message.id}`,
        changes: { status: { from: delivery.status, to: 'pending' } },
      },
    ]);
    return toDeliveryView(owed);
  },

  async listDeliveries(teamId: string, query: DeliveryListQuery): Promise<{ data: DeliveryView[]; meta: PageMeta }> {
    const { deliveries, total } = await DeliveryStore.list(
      teamId,
      { channelId: query.channelId, status: query.status, eventId: query.eventId },
      query.page,
      query.perPage,
    );
    return { data: deliveries.map(toDeliveryView), meta: pageMeta(total, query.page, query.perPage) };
  },

  /** A `test` message to one channel now, logged like any delivery. */
  async sendTest(caller: Caller, channel: StoredChannel): Promise<DeliveryView> {
    const at = new Date().toISOString();
    const message: NotificationMessage = {
      id: eventId('notification-test', channel.id, at),
      type: 'test',
      timestamp: at,
      data: { channel_id: channel.id, channel_name: channel.name, message: 'A test notification from Vexdesk' },
    };
    // Not in the due index: the attempt below is the test's one, not the background loop's.
    const delivery = { ...newDelivery(caller.teamId, channel.id, null, message, at), nextAttemptAt: null };
    await DeliveryStore.createIfAbsent(delivery);
    await recordAudit(caller.teamId, caller.actor, [
      {
        action: 'test',
        entityType: 'notification_channel',
        entityId: channel.id,
        entityName: channel.name,
        changes: {},
      },
    ]);
    const recorded = await attempt(delivery);
    const current = recorded ?? (await DeliveryStore.get(caller.teamId, delivery.id)) ?? delivery;
    return toDeliveryView(current);
  },
};
