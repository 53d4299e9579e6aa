/** Notification fixtures: `finding.detected` events for the dispatcher's outbox, and webhook channels with their rule. */
import { expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Item } from '../../shared/service/data/table-client';
import { eventId, eventItem, type TeamEvent } from '../../shared/service/events/event-store';
import type { createTeamWithKey } from './factories';

type Api = Awaited<ReturnType<typeof createTeamWithKey>>['api'];

/** A `finding.detected` event of the team on a product, release and finding of its own; a new id unless given. */
export function findingDetectedEvent(
  teamId: string,
  { id, occurredAt, data }: { id?: string; occurredAt: string; data: Record<string, unknown> },
): TeamEvent {
  return {
    id: id ?? eventId(randomUUID(), 'finding.detected'),
    type: 'finding.detected',
    occurredAt,
    teamId,
    productId: randomUUID(),
    releaseId: randomUUID(),
    findingId: randomUUID(),
    data,
  };
}

/** A high, non-KEV `finding.detected` event of the team as its table item (with its outbox entry). */
export function findingDetectedItem(teamId: string, id: string, occurredAt: string, cveId: string): Item {
  return eventItem(
    findingDetectedEvent(teamId, { id, occurredAt, data: { cve_id: cveId, severity: 'high', is_kev: false } }),
  );
}

/** A webhook channel to `url` and a rule that sends it `eventTypes` (every type when none are named), made through the API. */
export async function webhookChannelWithRule(
  api: Api,
  url: string,
  { name, eventTypes }: { name: string; eventTypes?: string[] },
): Promise<string> {
  const channel = await api.post('/api/notification-channels', { type: 'webhook', name, url });
  expect(channel.status).toBe(201);
  const rule = await api.post('/api/notification-rules', {
    name,
    channelId: channel.body.data.id,
    ...(eventTypes ? { eventTypes } : {}),
  });
  expect(rule.status).toBe(201);
  return String(channel.body.data.id);
}
