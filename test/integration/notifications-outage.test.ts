/**
 * A receiver down while many deliveries fail is one failing receiver, not hundreds of failures: the channel stays
 * enabled (failures count toward disabling at most once per 5 minutes) and every event arrives, once, when it is
 * back (docs/notifications.md "Delivery").
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { batchWrite } from '../../shared/service/data/table-client';
import { eventId } from '../../shared/service/events/event-store';
import { createTeamWithKey } from '../support/factories';
import { findingDetectedItem, webhookChannelWithRule } from '../support/notification-events';
import { eventually, startReceiver } from '../support/webhook-receiver';

const FAILING_ANSWERS = 40;
const EVENTS = 25;

let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterAll(async () => {
  await receiver?.close();
});

describe('a receiver that is down for a while', () => {
  it('keeps its channel enabled through more than 20 failed deliveries and gets every event once afterwards', async () => {
    const team = await createTeamWithKey();
    receiver = await startReceiver((index) => (index < FAILING_ANSWERS ? 500 : 200));
    const channelId = await webhookChannelWithRule(team.api, receiver.url, { name: 'flaky' });
    const at = new Date().toISOString();
    const ids = Array.from({ length: EVENTS }, () => eventId(randomUUID(), 'finding.detected'));
    await batchWrite(ids.map((id) => findingDetectedItem(team.teamId, id, at, 'CVE-2026-0002')));
    const acknowledged = () =>
      receiver!.received.slice(FAILING_ANSWERS).map((request) => String(request.headers['webhook-id']));
    await eventually(() => (new Set(acknowledged()).size >= EVENTS ? true : undefined), 60_000);
    expect(receiver.received.length).toBeGreaterThan(FAILING_ANSWERS);
    expect(acknowledged().sort()).toEqual([...ids].sort());
    const now = await team.api.get(`/api/notification-channels/${channelId}`);
    expect(now.body.data).toMatchObject({ enabled: true, consecutiveFailures: 0 });
  });
});
