/**
 * An outbox entry whose deliveries partly exist (a run that died after writing some) cannot go in the pass's
 * shared transaction: it goes alone, makes only the missing deliveries and leaves the outbox
 * (docs/notifications.md "Delivery"): late, never dropped, never doubled.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { batchWrite } from '../../shared/service/data/table-client';
import { eventId } from '../../shared/service/events/event-store';
import { DeliveryStore, newDelivery } from '../../shared/service/notifications/delivery-store';
import { createTeamWithKey } from '../support/factories';
import { findingDetectedItem, webhookChannelWithRule } from '../support/notification-events';
import { eventually, startReceiver } from '../support/webhook-receiver';

const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

describe('an outbox entry with one of its deliveries already made', () => {
  it('makes the missing delivery once and does not send the existing one again', async () => {
    const team = await createTeamWithKey();
    const [made, missing] = [await startReceiver(), await startReceiver()];
    receivers.push(made, missing);
    const channels: string[] = [];
    for (const [name, receiver] of [
      ['made', made],
      ['missing', missing],
    ] as const) {
      channels.push(await webhookChannelWithRule(team.api, receiver.url, { name }));
    }
    const at = new Date().toISOString();
    const id = eventId(randomUUID(), 'finding.detected');
    // What a run that died after its first delivery left: that delivery, already delivered.
    await DeliveryStore.createIfAbsent({
      ...newDelivery(team.teamId, channels[0]!, null, { id, type: 'finding.detected', timestamp: at, data: {} }, at),
      status: 'delivered',
      nextAttemptAt: null,
    });
    // Other entries in the same passes, so the one above shares a transaction with them.
    const others = Array.from({ length: 5 }, () => eventId(randomUUID(), 'finding.detected'));
    await batchWrite(
      [id, ...others].map((eventIdOf) => findingDetectedItem(team.teamId, eventIdOf, at, 'CVE-2026-0003')),
    );
    const ids = (receiver: typeof made) => receiver.received.map((request) => String(request.headers['webhook-id']));
    await eventually(() => (ids(missing).length >= 6 && ids(made).length >= 5 ? true : undefined), 60_000);
    // Give a doubled send the time of a few passes to show.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(ids(missing).sort()).toEqual([id, ...others].sort());
    expect(ids(made).sort()).toEqual([...others].sort());
  });
});
