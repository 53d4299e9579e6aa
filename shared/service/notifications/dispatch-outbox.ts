/**
 * From outbox entries to deliveries (docs/notifications.md "Delivery"): each entry's matching rules make its
 * deliveries and digest entries, written together with the entry's removal from the outbox.
 */
import { keys } from '../data/keys';
import { putItem, transactWrite, tx, updateItem, type Item, type TransactItem } from '../data/table-client';
import type { TeamEvent } from '../events/event-store';
import { toEventView } from '../events/events';
import { DeliveryStore, newDelivery, type StoredDelivery } from './delivery-store';
import { digestEntryItem } from './digests';
import { leaseEnd, type DispatchPass, type Owed, type TeamRouting } from './dispatch-pass';
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

// Conditional: an update of an item that expired meanwhile must not bring back a bare key.
const outboxRemoval = (event: TeamEvent) => ({
  key: keys.event(event.teamId, event.occurredAt, event.id),
  update: 'REMOVE #outboxPk, #outboxSk',
  names: { '#outboxPk': 'gsi1pk', '#outboxSk': 'gsi1sk' },
  condition: 'attribute_exists(pk)',
});

/**
 * Writes the deliveries and digest entries of several outbox entries and removes the entries, all in one
 * transaction: a crash leaves all of it or none. The deliveries are written already claimed, since this pass
 * attempts them at once. Answers undefined when the transaction failed (a delivery existed, an event expired):
 * nothing was written, and the entries go one by one.
 */
export async function dispatchTogether(plans: EventPlan[]): Promise<Owed[] | undefined> {
  const lease = leaseEnd();
  const owed: Owed[] = [];
  const writes: TransactItem[] = [];
  for (const plan of plans) {
    for (const delivery of plan.deliveries) {
      const created = DeliveryStore.createClaimed(delivery, lease);
      owed.push({ delivery: created.delivery, claimed: true });
      writes.push(created.write);
    }
    writes.push(...plan.digestEntries.map((item) => tx.put(item)));
    const removal = outboxRemoval(plan.event);
    writes.push(tx.update(removal.key, removal.update, removal.names, undefined, removal.condition));
  }
  try {
    await transactWrite(writes);
    return owed;
  } catch {
    return undefined;
  }
}

/** One outbox entry on its own: deliveries created only if absent (a run that died may have made some), then the removal. */
export async function dispatchAlone(plan: EventPlan): Promise<Owed[]> {
  const owed: Owed[] = [];
  for (const item of plan.digestEntries) await putItem(item);
  for (const delivery of plan.deliveries)
    if (await DeliveryStore.createIfAbsent(delivery)) owed.push({ delivery, claimed: false });
  const removal = outboxRemoval(plan.event);
  await updateItem(removal.key, removal.update, removal.names, undefined, removal.condition);
  return owed;
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
