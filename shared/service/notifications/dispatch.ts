/**
 * From events to deliveries, and deliveries to receivers (docs/notifications.md "Delivery"):
 * 1. Every event item is written with an outbox entry (a sparse global index, shared/service/data/keys/notifications.ts).
 *    The dispatcher reads the outbox and writes one delivery per matching channel (its id derived from the event
 *    and the channel, created only if absent) in one transaction with the entry's removal (./dispatch-outbox.ts).
 *    A crash leaves all of it or none; an entry whose deliveries partly exist goes alone, and only then is removed:
 *    late, never lost, never doubled.
 * 2. Deliveries owed an attempt sit in a due index. An attempt is claimed first (a lease), then made, then
 *    recorded: a 2xx is delivered; a 410 ends the channel; anything else retries with exponential backoff and
 *    jitter for 24 hours, then the delivery is dead. 20 failures in a row disable the channel too.
 * A pass reads each team's channels and rules once and gathers attempt records into transactions (./dispatch-pass.ts).
 * The same code runs in the local background loop and in the scheduled `notify-worker` function on AWS.
 */
import { auditPut, recordAudit } from '../audit/audit-log';
import { config } from '../config';
import { keys } from '../data/keys';
import { notifyShards } from '../data/keys/notifications';
import { queryPages, tx, type Item } from '../data/table-client';
import { tableDefinition } from '../data/table-definition';
import { eventId, eventItem, toTeamEvent, type TeamEvent } from '../events/event-store';
import type { Actor, Caller } from '../identity/actor';
import { NotFoundError } from '../errors';
import { pageMeta } from '../data/paging';
import type { PageMeta } from '../schemas/common';
import type { DeliveryListQuery, DeliveryView } from '../schemas/notifications';
import { ChannelStore, type StoredChannel } from './channel-store';
import { DeliveryStore, deliveryIdOf, newDelivery, toDeliveryView, type StoredDelivery } from './delivery-store';
import { DispatchPass, leaseEnd, type Owed } from './dispatch-pass';
import { dispatchAlone, dispatchTogether, planEvent, transactionGroups } from './dispatch-outbox';
import { approverAddresses } from './approvers';
import { digestsDue } from './digests';
import type { NotificationMessage } from './messages';
import { send, type DeliveryOutcome, type DeliveryTarget } from './transports';

/** Who the audit log names for what the dispatcher does on its own (disabling a failing channel). */
export const NOTIFIER_ACTOR: Actor = { id: 'notifier', name: 'vexdesk-notifications', email: null, kind: 'operator' };

const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
export const FAILURES_BEFORE_DISABLE = 20;
/** Failures count toward disabling at most once per 5 minutes: 20 mean about 1.5 h without a single success. */
const FAILURE_COUNT_SPACING_MS = 5 * 60 * 1000;
/** Attempts wait mostly on the receiver and the table, so many may be in flight. */
const ATTEMPT_CONCURRENCY = 64;
const OUTBOX_CONCURRENCY_PER_SHARD = 4;

/** Exponential from the configured base, capped at an hour, with ±25 % jitter so retries do not march in step. */
export function retryDelayMs(attempt: number, base = config().notifications.retryBaseMs): number {
  const delay = Math.min(base * 2 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_MS);
  return Math.round(delay * (0.75 + Math.random() * 0.5));
}

export { deliveryIdOf };

async function targetOf(
  pass: DispatchPass,
  channel: StoredChannel,
  message: NotificationMessage,
): Promise<DeliveryTarget> {
  if (channel.type === 'email') {
    const recipients = channel.approvers ? await approverAddresses(channel.teamId, message) : channel.recipients;
    if (!recipients?.length) throw new NoRecipientsError();
    return { type: 'email', recipients, channelId: channel.id };
  }
  const secrets = await pass.secretsOf(channel);
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
  // The pass's copy too: its other attempts to the channel become dead without a request.
  channel.enabled = false;
  channel.disabledReason = reason;
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

/** Claims (unless done), makes and records one attempt; answers the delivery as recorded (undefined if someone else holds it). */
async function attempt(pass: DispatchPass, owed: Owed): Promise<StoredDelivery | undefined> {
  const claimed = owed.claimed ? owed.delivery : await DeliveryStore.claim(owed.delivery, leaseEnd());
  if (!claimed) return undefined;
  const channel = await pass.channel(claimed.teamId, claimed.channelId);
  const record = async (outcome: DeliveryOutcome, status: StoredDelivery['status'], next: string | null) => {
    const at = new Date().toISOString();
    await pass.record(DeliveryStore.attemptRecord(claimed, outcome, status, next, at));
    return { ...claimed, ...outcome, status, nextAttemptAt: next, lastAttemptAt: at };
  };
  if (!channel) return record(refused('the channel was deleted'), 'dead', null);
  if (!channel.enabled)
    return record(refused(`the channel is disabled (${channel.disabledReason ?? 'by a person'})`), 'dead', null);

  let outcome: DeliveryOutcome;
  try {
    outcome = await send(await targetOf(pass, channel, claimed.message), claimed.message);
  } catch (error) {
    if (error instanceof NoRecipientsError) return record(refused(error.message), 'dead', null);
    outcome = refused((error as Error).message);
  }
  if (outcome.delivered) {
    if (channel.consecutiveFailures > 0) {
      channel.consecutiveFailures = 0;
      await ChannelStore.recordSuccess(channel.teamId, channel.id);
    }
    return record(outcome, 'delivered', null);
  }
  if (outcome.responseStatus === 410) {
    const recorded = await record(outcome, 'dead', null);
    await disableChannel(channel, 'the receiver answered 410 Gone');
    return recorded;
  }
  const failures = await ChannelStore.recordFailure(channel.teamId, channel.id, new Date(), FAILURE_COUNT_SPACING_MS);
  if (failures > 0) channel.consecutiveFailures = failures;
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

export const Dispatch = {
  /** Reads up to `limit` outbox entries per shard and writes their deliveries; answers how many of each. */
  async drainOutbox(pass: DispatchPass, limit = 500): Promise<{ events: number; deliveries: Owed[] }> {
    const index = tableDefinition.globalIndexes[0];
    const deliveries: Owed[] = [];
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
        const plans = await Promise.all(
          (first.done ? [] : first.value).map(async (item) => {
            const event = toTeamEvent(item);
            return planEvent(pass, await pass.routingOf(event.teamId), event);
          }),
        );
        events += plans.length;
        // Many entries per transaction: a burst of thousands (one corpus change) clears in seconds, not minutes.
        await inParallel(
          transactionGroups(plans),
          async (group) => {
            const together = await dispatchTogether(group);
            if (together) deliveries.push(...together);
            else for (const plan of group) deliveries.push(...(await dispatchAlone(plan)));
          },
          OUTBOX_CONCURRENCY_PER_SHARD,
        );
      }),
    );
    return { events, deliveries };
  },

  /** Makes the attempts owed (each claimed unless it was created claimed); answers how many were made and delivered. */
  async attempt(pass: DispatchPass, owed: Owed[]): Promise<{ attempted: number; delivered: number }> {
    let attempted = 0;
    let delivered = 0;
    await inParallel(owed, async (one) => {
      const recorded = await attempt(pass, one);
      if (recorded) attempted += 1;
      if (recorded?.status === 'delivered') delivered += 1;
    });
    await pass.finish();
    return { attempted, delivered };
  },

  /** One pass: new events become deliveries, owed attempts are made. */
  async runOnce(): Promise<{ events: number; attempted: number; delivered: number }> {
    const pass = new DispatchPass({ batchRecords: true });
    const drained = await Dispatch.drainOutbox(pass);
    const digests = await digestsDue();
    // The new deliveries go at once, without waiting for the due index to show them.
    const fresh = await Dispatch.attempt(pass, [
      ...drained.deliveries,
      ...digests.map((delivery) => ({ delivery, claimed: false })),
    ]);
    const due: Owed[] = [];
    for await (const delivery of DeliveryStore.due(new Date().toISOString(), 500))
      due.push({ delivery, claimed: false });
    const retried = await Dispatch.attempt(pass, due);
    return {
      events: drained.events,
      attempted: fresh.attempted + retried.attempted,
      delivered: fresh.delivered + retried.delivered,
    };
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
    const recorded = await attempt(new DispatchPass(), { delivery, claimed: false });
    const current = recorded ?? (await DeliveryStore.get(caller.teamId, delivery.id)) ?? delivery;
    return toDeliveryView(current);
  },
};
