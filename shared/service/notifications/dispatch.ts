/**
 * From events to deliveries, and deliveries to receivers (docs/notifications.md "Delivery"):
 * 1. Every event item is written with an outbox entry (a sparse global index, shared/service/data/keys/notifications.ts).
 *    The dispatcher reads the outbox, makes the first attempt of each matching channel's delivery, and then writes
 *    the deliveries (their id derived from the event and the channel, created only if absent) with their outcome
 *    in one transaction with the entries' removal (./dispatch-outbox.ts). A crash before it leaves the entries to
 *    be sent again; an entry whose deliveries partly exist sends only the missing ones: late, never lost, never
 *    recorded twice.
 * 2. Deliveries owed a retry sit in a due index. A retry is claimed first (a lease), then made, then recorded
 *    (./attempt.ts): a 2xx is delivered; a 410 ends the channel; anything else retries with exponential backoff
 *    and jitter for 24 hours, then the delivery is dead. 20 failures in a row disable the channel too.
 * A pass reads each team's channels and rules once and gathers attempt records into transactions (./dispatch-pass.ts).
 * The same code runs in the local background loop and in the scheduled `notify-worker` function on AWS.
 */
import { recordAudit } from '../audit/audit-log';
import { keys } from '../data/keys';
import { notifyShards } from '../data/keys/notifications';
import { queryPages, type Item } from '../data/table-client';
import { tableDefinition } from '../data/table-definition';
import { eventId, toTeamEvent } from '../events/event-store';
import type { Caller } from '../identity/actor';
import { NotFoundError } from '../errors';
import { pageMeta } from '../data/paging';
import type { PageMeta } from '../schemas/common';
import type { DeliveryListQuery, DeliveryView } from '../schemas/notifications';
import type { StoredChannel } from './channel-store';
import { DeliveryStore, deliveryIdOf, newDelivery, toDeliveryView, type StoredDelivery } from './delivery-store';
import { DispatchPass, leaseEnd } from './dispatch-pass';
import { planEvent, sendGroup, transactionGroups, writeGroup } from './dispatch-outbox';
import { inParallel } from '../concurrency';
import { makeAttempt } from './attempt';
import { digestsDue } from './digests';
import type { NotificationMessage } from './messages';

/** Retries wait mostly on the receiver and the table, so many may be in flight. */
const ATTEMPT_CONCURRENCY = 64;
/** Outbox entries read per shard and pass: a pass stays short, so entries written during one wait little. */
const OUTBOX_PAGE = 200;
const OUTBOX_CONCURRENCY_PER_SHARD = 4;
/** Outbox entries a pass reads per shard at most, page after page: a pass of a burst holds at most this many. */
const OUTBOX_PASS_LIMIT = 2000;
/** Full pages of one shard after which a pass is behind (DispatchPass.fallBehind), as in a burst. */
const BEHIND_AFTER_PAGES = 2;
/**
 * How long after its start a pass still reads on: the deliveries it sent are written only at its end, and on AWS
 * a run's last pass must end within the run's margin (functions/notify-worker), or they would all be sent again.
 */
const OUTBOX_READ_ON_MS = 15_000;

export { deliveryIdOf };

/** What a dispatch pass looks at: a dispatcher told of the work its own process wrote need not look everywhere. */
export interface PassScope {
  /** The outbox shards to read (all when omitted). */
  outboxShards?: readonly number[];
  /** Whether to read the due index for owed attempts (default true). */
  dueIndex?: boolean;
  /** Whether to make the daily digests whose hour came (default true). */
  digests?: boolean;
}

/** Claims the delivery's next attempt, makes and records it; answers the delivery as recorded (undefined if someone else holds it). */
async function attempt(pass: DispatchPass, delivery: StoredDelivery): Promise<StoredDelivery | undefined> {
  const claimed = await DeliveryStore.claim(delivery, leaseEnd());
  if (!claimed) return undefined;
  const { outcome, status, next } = await makeAttempt(pass, claimed);
  const at = new Date().toISOString();
  await pass.record(DeliveryStore.attemptRecord(claimed, outcome, status, next, at));
  return { ...claimed, ...outcome, status, nextAttemptAt: next, lastAttemptAt: at };
}

export const Dispatch = {
  /**
   * Reads each shard's outbox oldest first, a page of `limit` entries at a time, and sends their deliveries, a
   * transaction's worth at a time, the groups side by side, and writes the deliveries sent with the entries'
   * removal. A shard is read on, page after page, while its pages come back full, up to `passLimit` entries, and a
   * second full page puts the pass behind (DispatchPass.writing): its writes then wait while requests are still to
   * make, so a burst's later events are sent without waiting for its earlier ones' writes. (A steady load that
   * fills one page now and then is not a burst: holding its writes would only lengthen its passes.) Answers how
   * many entries, attempts and deliveries, and whether a shard may hold more (it reached `passLimit` or
   * OUTBOX_READ_ON_MS).
   */
  async drainOutbox(
    pass: DispatchPass,
    limit = OUTBOX_PAGE,
    shards: readonly number[] = notifyShards,
    passLimit = OUTBOX_PASS_LIMIT,
  ): Promise<{ events: number; attempted: number; delivered: number; more: boolean }> {
    const index = tableDefinition.globalIndexes[0];
    const totals = { events: 0, attempted: 0, delivered: 0, more: false };
    const readUntil = Date.now() + OUTBOX_READ_ON_MS;
    await Promise.all(
      shards.map(async (shard) => {
        const pages = queryPages<Item>({
          pk: keys.notifyOutboxPartition(shard).gsi1pk,
          indexName: index.indexName,
          pkAttribute: index.partitionKey,
          skAttribute: index.sortKey,
          pageSize: limit,
        });
        const writes: Promise<void>[] = [];
        let read = 0;
        try {
          for (;;) {
            const page = await pages.next();
            if (page.done) break;
            // A second full page: the shard holds more than a pass that keeps up reads.
            if (page.value.length >= limit && read >= limit * (BEHIND_AFTER_PAGES - 1)) pass.fallBehind();
            const plans = await Promise.all(
              page.value.map(async (item) => {
                const event = toTeamEvent(item);
                return planEvent(pass, await pass.routingOf(event.teamId), event);
              }),
            );
            read += plans.length;
            totals.events += plans.length;
            // Many entries per transaction: a burst of thousands (one corpus change) clears in seconds, not minutes.
            await inParallel(transactionGroups(plans), OUTBOX_CONCURRENCY_PER_SHARD, async (group) => {
              const attempted = await sendGroup(pass, group);
              totals.attempted += attempted.length;
              totals.delivered += attempted.filter((delivery) => delivery.status === 'delivered').length;
              const written = pass.writing(() => writeGroup(group, attempted));
              // Awaited below; a rejection must not go unhandled meanwhile.
              written.catch(() => undefined);
              writes.push(written);
            });
            if (plans.length < limit) break;
            if (read >= passLimit || Date.now() >= readUntil) {
              totals.more = true;
              break;
            }
          }
        } finally {
          await pages.return(undefined);
          // Every write ends before the pass does, even after one failed: the next pass must not find them half done.
          await Promise.allSettled(writes);
        }
        await Promise.all(writes);
      }),
    );
    return totals;
  },

  /** Makes the attempts owed, each claimed first; answers how many were made and delivered. */
  async attempt(pass: DispatchPass, owed: StoredDelivery[]): Promise<{ attempted: number; delivered: number }> {
    let attempted = 0;
    let delivered = 0;
    await inParallel(owed, ATTEMPT_CONCURRENCY, async (one) => {
      const recorded = await attempt(pass, one);
      if (recorded) attempted += 1;
      if (recorded?.status === 'delivered') delivered += 1;
    });
    await pass.finish();
    return { attempted, delivered };
  },

  /**
   * One pass: new events are sent and become deliveries, owed attempts are made, daily digests whose hour came are
   * made; `scope` narrows what it looks at (everything by default). `moreEvents`: the outbox may hold more than
   * this pass read.
   */
  async runOnce(scope: PassScope = {}): Promise<{
    events: number;
    moreEvents: boolean;
    attempted: number;
    delivered: number;
    nextRetryAt?: number;
  }> {
    const pass = new DispatchPass({ batchRecords: true });
    const drained = await Dispatch.drainOutbox(pass, OUTBOX_PAGE, scope.outboxShards);
    const due: StoredDelivery[] = scope.digests === false ? [] : await digestsDue();
    if (scope.dueIndex !== false)
      for await (const delivery of DeliveryStore.due(new Date().toISOString(), 500)) due.push(delivery);
    const retried = await Dispatch.attempt(pass, due);
    return {
      events: drained.events,
      moreEvents: drained.more,
      attempted: drained.attempted + retried.attempted,
      delivered: drained.delivered + retried.delivered,
      ...(pass.nextRetryAt !== undefined ? { nextRetryAt: pass.nextRetryAt } : {}),
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
    const recorded = await attempt(new DispatchPass(), delivery);
    const current = recorded ?? (await DeliveryStore.get(caller.teamId, delivery.id)) ?? delivery;
    return toDeliveryView(current);
  },
};
