/**
 * A delivery keeps its message as JSON text; deliveries written earlier keep it as a map, and both read the same
 * (shared/service/notifications/delivery-store.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { keys } from '../../shared/service/data/keys';
import { getItem, updateItem } from '../../shared/service/data/table-client';
import { eventId } from '../../shared/service/events/event-store';
import { DeliveryStore, newDelivery } from '../../shared/service/notifications/delivery-store';
import { createTeamWithKey } from '../support/factories';

describe('a delivery item', () => {
  it('keeps its message as one JSON string, and still reads one kept as a map', async () => {
    const team = await createTeamWithKey();
    const at = new Date().toISOString();
    const message = {
      id: eventId(randomUUID(), 'finding.detected'),
      type: 'finding.detected',
      timestamp: at,
      data: { release_id: randomUUID(), data: { severity: 'high', is_kev: false } },
    };
    const delivery = newDelivery(team.teamId, randomUUID(), null, message, at);
    expect(await DeliveryStore.createIfAbsent(delivery)).toBe(true);
    const key = keys.notificationDelivery(team.teamId, delivery.id);
    expect(typeof (await getItem(key))?.message).toBe('string');
    expect((await DeliveryStore.get(team.teamId, delivery.id))?.message).toEqual(message);

    // As deliveries were written before.
    await updateItem(
      key,
      'SET #message = :message',
      { '#message': 'message' },
      { ':message': message },
      'attribute_exists(pk)',
    );
    expect(typeof (await getItem(key))?.message).toBe('object');
    expect((await DeliveryStore.get(team.teamId, delivery.id))?.message).toEqual(message);
  });
});
