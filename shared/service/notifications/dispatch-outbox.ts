/**
 * From outbox entries to deliveries (docs/notifications.md "Delivery"): each entry's matching rules make its
 * deliveries and digest entries. A group of entries is attempted first, then written: the deliveries with their
 * first attempt's outcome, the digest entries and the entries' removal from the outbox, in one transaction. A crash
 * before it leaves the entries in the outbox and the next pass sends them again, under the same idempotency key:
 * at least once, never dropped; a crash after it leaves every delivery recorded.
 */
import { keys } from '../data/keys';
import { putItem, transactWrite, tx, updateItem, type Item, type TransactItem } from '../data/table-client';
import type { TeamEvent } from '../events/event-store';
import { toEventView } from '../events/events';
import { makeAttempt } from './attempt';
import { DeliveryStore, newDelivery, type StoredDelivery } from './delivery-store';
import { digestEntryItem } from './digests';
import type { DispatchPass, TeamRouting } from './dispatch-pass';
import { ruleMatches } from './matching';
import { eventMessage } from './messages';

/** Outbox entries turned into deliveries in one transaction hold at most this many writes (DynamoDB's limit is 100). */
const OUTBOX_TRANSACTION_ITEMS = 100;

/** What one outbox entry becomes: its new deliveries, its digest entries, and its removal from the outbox. */
export interface EventPlan {
  event: TeamEvent;
  deliveries: StoredDelivery[];
  digestEntries: Item[];
}

export async function planEvent(pass: DispatchPass, routing: TeamRouting, event: TeamEvent): Promise<EventPlan> {
  const plan: EventPlan = { event, deliveries: [], digestEntries: [] };
  const wanted = routing.rules.some((rule) => rule.eventTypes.includes(event.type));
  if (!wanted) return plan;
  const status = routing.rules.some((rule) => rule.filters.releaseStatus)
    ? await pass.releaseStatusOf(event)
    : undefined;
  const message = eventMessage(toEventView(event));
  const now = new Date().toISOString();
  const seenChannels = new Set<string>();
  for (const rule of routing.rules.filter((candidate) => ruleMatches(candidate, event, status))) {
    const channel = routing.channels.get(rule.channelId);
    if (!channel?.enabled) continue;
    if (rule.mode === 'daily_digest') {
      plan.digestEntries.push(digestEntryItem(rule, event));
      continue;
    }
    if (seenChannels.has(channel.id)) continue;
    seenChannels.add(channel.id);
    plan.deliveries.push(newDelivery(event.teamId, channel.id, rule.id, message, now));
  }
  return plan;
}

/** Plans grouped so that each group's writes fit one transaction. */
export function transactionGroups(plans: EventPlan[]): EventPlan[][] {
  const groups: EventPlan[][] = [];
  let current: EventPlan[] = [];
  let size = 0;
  for (const plan of plans) {
    const writes = plan.deliveries.length + plan.digestEntries.length + 1;
    if (current.length > 0 && size + writes > OUTBOX_TRANSACTION_ITEMS) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(plan);
    size += writes;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

// Conditional: an update of an item that expired meanwhile must not bring back a bare key.
const outboxRemoval = (event: TeamEvent) => ({
  key: keys.event(event.teamId, event.occurredAt, event.id),
  update: 'REMOVE #outboxPk, #outboxSk',
  names: { '#outboxPk': 'gsi1pk', '#outboxSk': 'gsi1sk' },
  condition: 'attribute_exists(pk)',
});

/** A new delivery after its first attempt: as the record of that attempt leaves it. */
async function attemptNew(pass: DispatchPass, delivery: StoredDelivery): Promise<StoredDelivery> {
  const first = { ...delivery, attempt: delivery.attempt + 1 };
  const { outcome, status, next } = await makeAttempt(pass, first);
  return {
    ...first,
    status,
    responseStatus: outcome.responseStatus,
    responseBody: outcome.responseBody,
    durationMs: outcome.durationMs,
    error: outcome.error,
    nextAttemptAt: next,
    lastAttemptAt: new Date().toISOString(),
  };
}

/**
 * Attempts the new deliveries of several outbox entries and answers them; `writeGroup` writes them after. A
 * delivery that exists already (a pass that died had written it) is not sent: the due index owes it.
 */
export async function sendGroup(pass: DispatchPass, plans: EventPlan[]): Promise<StoredDelivery[]> {
  const planned = plans.flatMap((plan) => plan.deliveries);
  const existing = planned.length > 0 ? await DeliveryStore.existing(planned) : new Set<string>();
  return Promise.all(
    planned.filter((delivery) => !existing.has(delivery.id)).map((delivery) => attemptNew(pass, delivery)),
  );
}

/**
 * Writes the deliveries `sendGroup` attempted (with their outcome), the digest entries and the entries' removal
 * in one transaction: all of it or none. When it fails (a delivery appeared meanwhile, an event expired),
 * nothing of it was written and the entries go one by one.
 */
export async function writeGroup(plans: EventPlan[], attempted: StoredDelivery[]): Promise<void> {
  const byId = new Map(attempted.map((delivery) => [delivery.id, delivery]));
  const writes: TransactItem[] = [];
  for (const plan of plans) {
    for (const delivery of plan.deliveries) {
      const made = byId.get(delivery.id);
      if (made) writes.push(DeliveryStore.attempted(made));
    }
    writes.push(...plan.digestEntries.map((item) => tx.put(item)));
    const removal = outboxRemoval(plan.event);
    writes.push(tx.update(removal.key, removal.update, removal.names, undefined, removal.condition));
  }
  try {
    await transactWrite(writes);
  } catch {
    for (const plan of plans) await dispatchAlone(plan, byId);
  }
}

/** One outbox entry on its own: the deliveries attempted written only if absent, then the entry's removal. */
async function dispatchAlone(plan: EventPlan, attempted: Map<string, StoredDelivery>): Promise<void> {
  for (const item of plan.digestEntries) await putItem(item);
  for (const delivery of plan.deliveries) {
    const made = attempted.get(delivery.id);
    if (made) await DeliveryStore.createIfAbsent(made);
  }
  const removal = outboxRemoval(plan.event);
  await updateItem(removal.key, removal.update, removal.names, undefined, removal.condition);
}
