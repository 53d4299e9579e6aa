/** Keys of a team's event stream: EVENT_SHARDS partitions, each sorted by time. */
import { hash } from 'node:crypto';
import type { Key } from './partitions';

/**
 * Write shards of a team's event stream. One corpus change can write thousands of events at once
 * (one per affected finding); DynamoDB serves about 1,000 writes per second per partition, so eight
 * shards take a burst of 10,000 in seconds instead of throttling one partition. Readers query every
 * shard and merge by sort key. Changing the number re-homes existing events (a migration).
 */
export const EVENT_SHARDS = 8;

/** The shard of an event: stable for its id, uniform over EVENT_SHARDS. */
export function eventShardOf(eventId: string): number {
  return hash('sha256', eventId, 'buffer').readUInt32BE(0) % EVENT_SHARDS;
}

const eventShards = Array.from({ length: EVENT_SHARDS }, (_, shard) => shard);

const eventPk = (teamId: string, shard: number) => `TEAM#${teamId}#EVENTS#${shard}`;

export const eventKeys = {
  /** Sort key `<occurredAt>#<id>`: time order, and a retried write of the same event hits the same key. */
  event: (teamId: string, occurredAt: string, eventId: string): Key => ({
    pk: eventPk(teamId, eventShardOf(eventId)),
    sk: `${occurredAt}#${eventId}`,
  }),
  /** Every shard of the team's event stream (a reader merges them in sort-key order). */
  eventPartitions: (teamId: string) => eventShards.map((shard) => ({ pk: eventPk(teamId, shard) })),
} as const;
