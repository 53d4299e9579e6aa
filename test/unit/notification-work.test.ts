/**
 * The notification work an item written carries (shared/service/data/keys/notifications.ts): what wakes the local
 * dispatcher, and which part of the table its pass then reads.
 */
import { describe, expect, it } from '@jest/globals';
import { keys } from '../../shared/service/data/keys';
import { notificationWorkOf, notifyShardOf } from '../../shared/service/data/keys/notifications';

describe('notificationWorkOf', () => {
  it("names an event's outbox shard", () => {
    const eventId = 'evt-1234';
    const item = { ...keys.notifyOutboxEntry(eventId, '2026-12-06T10:00:00.000Z', 'team-1'), pk: 'TEAM#team-1' };
    expect(notificationWorkOf(item)).toEqual({ kind: 'outbox', shard: notifyShardOf(eventId) });
  });

  it('gives a delivery on the due index its next attempt time', () => {
    const item = keys.notificationDue('team-1', 'delivery-1', '2026-12-06T10:00:05.000Z');
    expect(notificationWorkOf(item)).toEqual({ kind: 'due', at: Date.parse('2026-12-06T10:00:05.000Z') });
  });

  it('ignores every other item, and index entries it cannot read', () => {
    expect(notificationWorkOf({ pk: 'TEAM#team-1', sk: 'PRODUCT#1' })).toBeUndefined();
    expect(notificationWorkOf({ gsi1pk: 'NOTIFY_OUTBOX#x' })).toBeUndefined();
    expect(notificationWorkOf({ gsi3pk: 'NOTIFY_DUE#1', gsi3sk: 'not-a-time#team#d' })).toBeUndefined();
    expect(notificationWorkOf({ gsi1pk: 'NOTIFY_DIGEST#1', gsi1sk: 'team#rule#t#e' })).toBeUndefined();
  });
});
