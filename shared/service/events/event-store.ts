/**
 * The team's event stream: one item per change a team should know about, written in the same
 * transaction as the change (or, for bulk writes, with an id derived from the change so a retry
 * rewrites the same item). Events live in EVENT_SHARDS partitions per team (shared/service/data/keys/events.ts),
 * each sorted by `<occurredAt>#<id>`; readers merge the shards newest first. The table's TTL removes them
 * after EVENT_RETENTION_DAYS.
 */
import { hash as oneShotHash } from 'node:crypto';
import { keys } from '../data/keys';
import { mergeSorted } from '../audit/audit-read';
import type { Item, PrefixQuery } from '../data/table-client';
import { tableDefinition } from '../data/table-definition';
import { EVENT_TYPES } from '../schemas/events';

export { EVENT_TYPES };
export type EventType = (typeof EVENT_TYPES)[number];

export interface TeamEvent {
  /** A uuid; deterministic when built with eventId(...). */
  id: string;
  type: EventType;
  /** ISO 8601 (`Date#toISOString()`). */
  occurredAt: string;
  teamId: string;
  productId: string;
  releaseId: string;
  sbomId?: string;
  findingId?: string;
  advisoryId?: string;
  data: Record<string, unknown>;
}

export const EVENT_RETENTION_DAYS = 90;
const RETENTION_SECONDS = EVENT_RETENTION_DAYS * 24 * 60 * 60;

/**
 * A name-based uuid from the parts (the version 5 layout over SHA-256, as findingId in
 * shared/service/scans/finding-store.ts): a retry that derives the same event writes the same item.
 */
export function eventId(...parts: string[]): string {
  // One-shot: ids are made per delivery, and a Hash object per call costs more than the digest.
  const hash = oneShotHash('sha256', parts.join('\u0000'), 'buffer');
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The table item of an event (retained 90 days through the table's TTL attribute `expiresAtEpoch`).
 * Usable in batchWrite puts and in transactions via tx.put(eventItem(e)): a plain put, so a retried
 * write of the same event replaces it instead of failing (and puts it back in the notification outbox, where
 * the deliveries it already has are found by their derived ids, not made twice).
 */
export function eventItem(event: TeamEvent): Item {
  return {
    ...keys.event(event.teamId, event.occurredAt, event.id),
    entity: 'Event',
    id: event.id,
    type: event.type,
    occurredAt: event.occurredAt,
    teamId: event.teamId,
    productId: event.productId,
    releaseId: event.releaseId,
    sbomId: event.sbomId ?? null,
    findingId: event.findingId ?? null,
    advisoryId: event.advisoryId ?? null,
    data: event.data,
    // Written with the event, removed once its deliveries exist: an event is never lost between its write
    // and its notifications (shared/service/notifications/dispatcher.ts).
    ...keys.notifyOutboxEntry(event.id, event.occurredAt, event.teamId),
    [tableDefinition.timeToLiveAttribute]: Math.floor(Date.parse(event.occurredAt) / 1000) + RETENTION_SECONDS,
  };
}

export function toTeamEvent(item: Item): TeamEvent {
  const optional = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const sbomId = optional(item.sbomId);
  const findingId = optional(item.findingId);
  const advisoryId = optional(item.advisoryId);
  return {
    id: String(item.id),
    type: item.type as EventType,
    occurredAt: String(item.occurredAt),
    teamId: String(item.teamId),
    productId: String(item.productId),
    releaseId: String(item.releaseId),
    ...(sbomId !== undefined ? { sbomId } : {}),
    ...(findingId !== undefined ? { findingId } : {}),
    ...(advisoryId !== undefined ? { advisoryId } : {}),
    data: (item.data as Record<string, unknown> | undefined) ?? {},
  };
}

export interface EventFilter {
  /** ISO 8601 with offset; exclusive: only events that occurred after it. */
  since?: string | undefined;
  types?: readonly EventType[] | undefined;
  productId?: string | undefined;
  releaseId?: string | undefined;
}

/** Items per Query page and shard: with one page prefetched, a read holds at most 2 × 8 × 500 items. */
const SHARD_PAGE_SIZE = 500;

/** Above every character a sort key holds: `<ms>#\uffff` sorts after every event of that millisecond. */
const SORT_KEY_CEILING = '\uffff';

/** The Queries a read runs, one per shard, newest first; exported so tests can show the bounds. */
export function eventQueryPlan(teamId: string, filter: EventFilter): PrefixQuery[] {
  // Stored times are milliseconds; Date truncates sub-millisecond digits, and every event of the bound's
  // own millisecond is at or before it, so the range starts after that whole millisecond.
  // Without `since`, no sort-key condition: DynamoDB refuses an empty string as a key condition's value.
  const range: [string, string] | undefined =
    filter.since !== undefined
      ? [`${new Date(Date.parse(filter.since)).toISOString()}#${SORT_KEY_CEILING}`, SORT_KEY_CEILING]
      : undefined;
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (filter.types !== undefined && filter.types.length > 0) {
    names['#type'] = 'type';
    const placeholders = filter.types.map((type, index) => {
      values[`:type${index}`] = type;
      return `:type${index}`;
    });
    conditions.push(`#type IN (${placeholders.join(', ')})`);
  }
  if (filter.productId !== undefined) {
    names['#productId'] = 'productId';
    values[':productId'] = filter.productId;
    conditions.push('#productId = :productId');
  }
  if (filter.releaseId !== undefined) {
    names['#releaseId'] = 'releaseId';
    values[':releaseId'] = filter.releaseId;
    conditions.push('#releaseId = :releaseId');
  }
  const filterExpression = conditions.length > 0 ? { expression: conditions.join(' AND '), names, values } : undefined;
  return keys.eventPartitions(teamId).map(({ pk }) => ({
    pk,
    ...(range ? { skBetween: range } : {}),
    descending: true,
    pageSize: SHARD_PAGE_SIZE,
    ...(filterExpression ? { filter: filterExpression } : {}),
  }));
}

/** The team's events matching `filter`, newest first, as a stream. */
export async function* eventsNewestFirst(teamId: string, filter: EventFilter = {}): AsyncGenerator<TeamEvent> {
  for await (const item of mergeSorted(eventQueryPlan(teamId, filter))) yield toTeamEvent(item);
}

/** One page of the matching events, newest first, and how many match in all. */
export async function listEvents(
  teamId: string,
  filter: EventFilter,
  page: number,
  perPage: number,
): Promise<{ events: TeamEvent[]; total: number }> {
  const start = (page - 1) * perPage;
  const events: TeamEvent[] = [];
  let total = 0;
  for await (const item of mergeSorted(eventQueryPlan(teamId, filter))) {
    if (total >= start && total < start + perPage) events.push(toTeamEvent(item));
    total += 1;
  }
  return { events, total };
}
