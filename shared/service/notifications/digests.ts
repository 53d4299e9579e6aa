/**
 * Daily digests: a `daily_digest` rule collects its events (one entry each, also in a sparse global index)
 * and once a day, at the rule's hour in its time zone, they go to its channel as one message. The digest's
 * id derives from the rule and the day's scheduled time, so a run that dies after creating the delivery
 * finds it next time and only clears what that digest listed. Empty days send nothing.
 */
import { keys } from '../data/keys';
import { notifyShards } from '../data/keys/notifications';
import { batchWrite, queryAll, type Item } from '../data/table-client';
import { tableDefinition } from '../data/table-definition';
import { eventId, type TeamEvent } from '../events/event-store';
import { toEventView } from '../events/events';
import type { TeamEventView } from '../schemas/events';
import { DeliveryStore, newDelivery, type StoredDelivery } from './delivery-store';
import type { NotificationMessage } from './messages';
import { RuleStore, type StoredRule } from './rule-store';

/** Entries wait at most this long (a rule deleted meanwhile leaves them to the TTL). */
const DIGEST_ENTRY_SECONDS = 8 * 24 * 60 * 60;
/** A digest lists at most this many events; more are counted, not listed. */
const DIGEST_MAX_EVENTS = 500;

/** The entry that collects `event` for the rule's next digest. */
export function digestEntryItem(rule: StoredRule, event: TeamEvent): Item {
  return {
    ...keys.notificationDigestEntry(rule.teamId, rule.id, event.occurredAt, event.id),
    ...keys.notificationDigestPending(rule.teamId, rule.id, event.occurredAt, event.id),
    entity: 'NotificationDigestEntry',
    teamId: rule.teamId,
    ruleId: rule.id,
    occurredAt: event.occurredAt,
    event: toEventView(event),
    [tableDefinition.timeToLiveAttribute]: Math.floor(Date.now() / 1000) + DIGEST_ENTRY_SECONDS,
  };
}

/** Offset of `timeZone` from UTC at `instant`, in milliseconds. */
function zoneOffsetMs(timeZone: string, instant: number): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value]),
  );
  const asUtc = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The latest time at or before `now` when the rule's digest was due: its hour, local to its time zone. */
export function lastDigestTime(hour: number, timeZone: string, now: number): number {
  const local = new Date(now + zoneOffsetMs(timeZone, now));
  for (let daysBack = 0; daysBack < 3; daysBack += 1) {
    const wallClock = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() - daysBack, hour);
    const instant = wallClock - zoneOffsetMs(timeZone, wallClock);
    if (instant <= now) return instant;
  }
  return now;
}

/** Sends the digests that are due; answers the deliveries created (attempted by the caller). */
export async function digestsDue(now = Date.now()): Promise<StoredDelivery[]> {
  const index = tableDefinition.globalIndexes[0];
  const pending = new Map<string, Item[]>();
  for (const shard of notifyShards) {
    const items = await queryAll({
      pk: keys.notificationDigestPendingPartition(shard).gsi1pk,
      indexName: index.indexName,
      pkAttribute: index.partitionKey,
      skAttribute: index.sortKey,
    });
    for (const item of items) {
      const rule = `${String(item.teamId)}#${String(item.ruleId)}`;
      pending.set(rule, [...(pending.get(rule) ?? []), item]);
    }
  }
  const created: StoredDelivery[] = [];
  for (const [ruleKey, items] of pending) {
    const [teamId = '', ruleId = ''] = ruleKey.split('#');
    const rule = await RuleStore.get(teamId, ruleId);
    if (!rule) continue;
    const dueAt = lastDigestTime(rule.digestHour, rule.digestTimeZone, now);
    const included = items.filter((item) => Date.parse(String(item.occurredAt)) < dueAt);
    if (included.length === 0) continue;
    const at = new Date(now).toISOString();
    const events = included.map((item) => item.event as TeamEventView);
    const message: NotificationMessage = {
      id: eventId('notification-digest', teamId, ruleId, String(dueAt)),
      type: 'digest',
      timestamp: new Date(dueAt).toISOString(),
      data: { rule_id: ruleId, rule_name: rule.name, count: events.length, events: events.slice(0, DIGEST_MAX_EVENTS) },
    };
    const delivery = newDelivery(teamId, rule.channelId, ruleId, message, at);
    let listed = included;
    if (await DeliveryStore.createIfAbsent(delivery)) created.push(delivery);
    else {
      // A run that died after sending: clear only what that digest listed, the rest waits for the next one.
      const existing = await DeliveryStore.get(teamId, delivery.id);
      const sent = new Set(
        ((existing?.message.data.events as TeamEventView[] | undefined) ?? []).map((event) => event.id),
      );
      listed = included.filter((item) => sent.has((item.event as TeamEventView).id));
    }
    await batchWrite(
      [],
      listed.map((item) =>
        keys.notificationDigestEntry(teamId, ruleId, String(item.occurredAt), (item.event as TeamEventView).id),
      ),
    );
  }
  return created;
}
