import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { batchWrite, transactWrite, tx } from '../../shared/service/data/table-client';
import { eventItem, type TeamEvent } from '../../shared/service/events/event-store';
import { SLACK_LIMITS } from '../../shared/service/notifications/messages';
import { send } from '../../shared/service/notifications/transports';
import { auditEntries } from '../support/audit-coverage';
import { findingDetectedEvent } from '../support/notification-events';
import { addKey, createTeamWithKey } from '../support/factories';
import { seedReleaseWithFindings } from '../support/seed';
import { eventually, startReceiver, type ReceivedRequest } from '../support/webhook-receiver';

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;
interface Delivery {
  id: string;
  status: string;
  attempt: number;
  responseStatus: number | null;
  durationMs: number | null;
  eventId: string;
  eventType: string;
}

const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(answer?: (index: number) => number) {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

async function webhookChannel(team: Team, url: string) {
  const response = await team.api.post('/api/notification-channels', { type: 'webhook', name: 'on-call', url });
  expect(response.status).toBe(201);
  return response.body.data as { id: string; secret: string; target: string };
}

async function rule(team: Team, channelId: string, extra: Record<string, unknown> = {}) {
  const response = await team.api.post('/api/notification-rules', { name: 'page', channelId, ...extra });
  expect(response.status).toBe(201);
  return response.body.data as { id: string };
}

/** A finding event of the team, written as the re-evaluation writes its events. */
function findingEventOf(
  teamId: string,
  data: Record<string, unknown> = {},
  occurredAt = new Date().toISOString(),
): TeamEvent {
  return findingDetectedEvent(teamId, {
    occurredAt,
    data: { cve_id: 'CVE-2026-0001', severity: 'critical', is_kev: true, ...data },
  });
}

async function findingEvent(
  teamId: string,
  data: Record<string, unknown> = {},
  occurredAt = new Date().toISOString(),
): Promise<TeamEvent> {
  const event = findingEventOf(teamId, data, occurredAt);
  await batchWrite([eventItem(event)]);
  return event;
}

function verify(secret: string, request: ReceivedRequest) {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
    type: string;
    timestamp: string;
    data: Record<string, unknown>;
  };
}

async function deliveries(team: Team, query = ''): Promise<Delivery[]> {
  const response = await team.api.get(`/api/notification-deliveries${query}`);
  expect(response.status).toBe(200);
  return response.body.data as Delivery[];
}

describe('notification channels', () => {
  it('shows the webhook secret once, never in a read, and the URL redacted', async () => {
    const team = await createTeamWithKey();
    const { url } = await receiver();
    const created = await webhookChannel(team, url);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const listed = await team.api.get('/api/notification-channels');
    expect(listed.text).not.toContain(created.secret);
    expect(listed.text).not.toContain('/hook');
    const one = await team.api.get(`/api/notification-channels/${created.id}`);
    expect(one.body.data.secret).toBeUndefined();
    expect(one.body.data.target).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/…$/);
  });

  it('refuses private, link-local, metadata and plain-http URLs with 422', async () => {
    const team = await createTeamWithKey();
    for (const url of [
      'https://10.0.0.5/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data/',
      'https://[fd00:ec2::254]/latest',
      'https://[::ffff:10.0.0.1]/hook',
      'http://example.com/hook',
      'not a url',
    ]) {
      const response = await team.api.post('/api/notification-channels', { type: 'webhook', name: 'x', url });
      expect([url, response.status]).toEqual([url, 422]);
    }
  });

  it('refuses a non-public address again at connect time (a name that resolves to loopback)', async () => {
    // This process runs without VEXDESK_ALLOW_LOOPBACK_WEBHOOKS: `localhost` passes no creation check here, and
    // the connection's own lookup refuses it, as it would a public name rebound to a private address.
    const { url, received } = await receiver();
    const outcome = await send(
      {
        type: 'webhook',
        url: url.replace('127.0.0.1', 'localhost'),
        secret: `whsec_${Buffer.alloc(24).toString('base64')}`,
      },
      { id: randomUUID(), type: 'test', timestamp: new Date().toISOString(), data: {} },
    );
    expect(outcome.delivered).toBe(false);
    expect(outcome.error).toMatch(/non-public address/);
    expect(received).toHaveLength(0);
  });

  it('answers a test delivery signed with the channel secret, and a rotated secret signs from then on', async () => {
    const team = await createTeamWithKey();
    const target = await receiver();
    const channel = await webhookChannel(team, target.url);
    const tested = await team.api.post(`/api/notification-channels/${channel.id}/test`, {});
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({ status: 'delivered', responseStatus: 200, attempt: 1, eventType: 'test' });
    expect(typeof tested.body.data.durationMs).toBe('number');
    expect(verify(channel.secret, target.received[0]!)).toMatchObject({ type: 'test' });

    const rotated = await team.api.post(`/api/notification-channels/${channel.id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).not.toBe(channel.secret);
    await team.api.post(`/api/notification-channels/${channel.id}/test`, {});
    const second = target.received[1]!;
    expect(verify(rotated.body.data.secret as string, second)).toMatchObject({ type: 'test' });
    expect(() => verify(channel.secret, second)).toThrow();
  });

  it('keeps every channel, rule and delivery of a team invisible to another team', async () => {
    const owner = await createTeamWithKey();
    const other = await createTeamWithKey();
    const { url } = await receiver();
    const channel = await webhookChannel(owner, url);
    const tested = await owner.api.post(`/api/notification-channels/${channel.id}/test`, {});
    const created = await rule(owner, channel.id);
    expect((await other.api.get('/api/notification-channels')).body.data).toEqual([]);
    expect((await other.api.get(`/api/notification-channels/${channel.id}`)).status).toBe(404);
    expect((await other.api.post(`/api/notification-channels/${channel.id}/test`, {})).status).toBe(404);
    expect((await other.api.get(`/api/notification-rules/${created.id}`)).status).toBe(404);
    expect(await deliveries(other)).toEqual([]);
    expect((await other.api.post(`/api/notification-deliveries/${tested.body.data.id}/redeliver`, {})).status).toBe(
      404,
    );
    // Nor can a rule of the other team send to this team's channel.
    expect((await other.api.post('/api/notification-rules', { name: 'x', channelId: channel.id })).status).toBe(422);
  });

  it('refuses a rule reaching beyond what the caller may read', async () => {
    const team = await createTeamWithKey();
    const { url } = await receiver();
    const channel = await webhookChannel(team, url);
    const narrow = await addKey(team.teamId, team.memberId, ['settings:read', 'settings:write', 'sboms:read']);
    const refused = await narrow.api.post('/api/notification-rules', {
      name: 'x',
      channelId: channel.id,
      eventTypes: ['finding.detected'],
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('vulnerabilities:read');
    const allowed = await narrow.api.post('/api/notification-rules', {
      name: 'scans',
      channelId: channel.id,
      eventTypes: ['scan.completed'],
    });
    expect(allowed.status).toBe(201);
  });

  it('accepts a product filter naming products of the team only', async () => {
    const team = await createTeamWithKey();
    const { url } = await receiver();
    const channel = await webhookChannel(team, url);
    const seeded = await seedReleaseWithFindings(team.api, team.teamId, 1);
    await rule(team, channel.id, { filters: { productIds: [seeded.product.id], minSeverity: 'critical' } });
    const unknown = await team.api.post('/api/notification-rules', {
      name: 'x',
      channelId: channel.id,
      filters: { productIds: [randomUUID()] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('filters.productIds');
  });
});

describe('notification delivery', () => {
  it('delivers a scan of an uploaded SBOM to a webhook, signed, and logs it', async () => {
    const team = await createTeamWithKey();
    const target = await receiver();
    const channel = await webhookChannel(team, target.url);
    await rule(team, channel.id, { eventTypes: ['scan.completed'] });
    const seeded = await seedReleaseWithFindings(team.api, team.teamId, 2);
    const request = await eventually(() => target.received.find((item) => item.body.includes('scan.completed')));
    const body = verify(channel.secret, request);
    expect(body).toMatchObject({ type: 'scan.completed', data: { release_id: seeded.release.id } });
    expect(request.headers['webhook-id']).toBe(body.data.id);
    const logged = await eventually(async () =>
      (await deliveries(team, `?channelId=${channel.id}&status=delivered`)).find(
        (item) => item.eventId === body.data.id,
      ),
    );
    expect(logged).toMatchObject({ attempt: 1, responseStatus: 200, eventType: 'scan.completed' });
  });

  it('retries while the receiver is down and delivers once it is up, with one idempotency key', async () => {
    const team = await createTeamWithKey();
    const target = await receiver((index) => (index < 2 ? 503 : 200));
    const channel = await webhookChannel(team, target.url);
    await rule(team, channel.id, { eventTypes: ['finding.detected'], filters: { minSeverity: 'high', kevOnly: true } });
    const event = await findingEvent(team.teamId);
    const delivered = await eventually(async () =>
      (await deliveries(team, `?eventId=${event.id}`)).find((item) => item.status === 'delivered'),
    );
    expect(delivered.attempt).toBe(3);
    expect(target.received.map((item) => item.headers['webhook-id'])).toEqual([event.id, event.id, event.id]);
    const channelNow = await team.api.get(`/api/notification-channels/${channel.id}`);
    expect(channelNow.body.data.consecutiveFailures).toBe(0);
  });

  it('sends nothing for an event the rule filters out, and nothing to a team without rules', async () => {
    const team = await createTeamWithKey();
    const target = await receiver();
    const channel = await webhookChannel(team, target.url);
    await rule(team, channel.id, { eventTypes: ['finding.detected'], filters: { kevOnly: true } });
    const skipped = await findingEvent(team.teamId, { is_kev: false });
    const sent = await findingEvent(team.teamId, { is_kev: true });
    await eventually(() => target.received.find((item) => item.headers['webhook-id'] === sent.id));
    expect(target.received.map((item) => item.headers['webhook-id'])).not.toContain(skipped.id);
  });

  it('redelivers a delivered message with the same idempotency key', async () => {
    const team = await createTeamWithKey();
    const target = await receiver();
    const channel = await webhookChannel(team, target.url);
    await rule(team, channel.id);
    const event = await findingEvent(team.teamId);
    const first = await eventually(async () => (await deliveries(team, `?eventId=${event.id}&status=delivered`)).at(0));
    const again = await team.api.post(`/api/notification-deliveries/${first.id}/redeliver`, {});
    expect(again.status).toBe(202);
    await eventually(() => (target.received.length >= 2 ? true : undefined));
    expect(target.received.map((item) => item.headers['webhook-id'])).toEqual([event.id, event.id]);
  });

  it('disables a channel whose receiver answers 410 Gone, with an audit entry', async () => {
    const team = await createTeamWithKey();
    const target = await receiver(() => 410);
    const channel = await webhookChannel(team, target.url);
    await rule(team, channel.id);
    const event = await findingEvent(team.teamId);
    const dead = await eventually(async () => (await deliveries(team, `?eventId=${event.id}&status=dead`)).at(0));
    expect(dead.responseStatus).toBe(410);
    const now = await team.api.get(`/api/notification-channels/${channel.id}`);
    expect(now.body.data).toMatchObject({ enabled: false });
    expect(now.body.data.disabledReason).toContain('410');
    const audit = await auditEntries(team.teamId);
    expect(audit).toContainEqual(
      expect.objectContaining({ action: 'disable', entityId: channel.id, actorName: 'vexdesk-notifications' }),
    );
  });
});

/** The .eml files the server wrote for a message (no SMTP server in the tests: files under the data directory). */
async function emails(messageId: string): Promise<string[]> {
  const outbox = join(process.env.VEXDESK_TEST_DATA_DIR ?? '', 'outbox');
  const names = (await readdir(outbox).catch(() => [] as string[])).filter((name) => name.includes(messageId));
  return Promise.all(names.map((name) => readFile(join(outbox, name), 'utf8')));
}

describe('slack and e-mail channels', () => {
  it('sends Slack a Block Kit message within its limits, with severity, KEV and a console link', async () => {
    const team = await createTeamWithKey();
    const target = await receiver();
    const created = await team.api.post('/api/notification-channels', {
      type: 'slack',
      name: 'oncall',
      url: target.url,
    });
    expect(created.status).toBe(201);
    expect(created.body.data.secret).toBeUndefined();
    await rule(team, created.body.data.id as string);
    const event = await findingEvent(team.teamId, { component_name: 'x'.repeat(5000) });
    const request = await eventually(() => target.received.at(0));
    const message = JSON.parse(request.body) as { text: string; blocks: Record<string, any>[] }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Block Kit JSON
    expect(message.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
    const header = message.blocks.find((block) => block.type === 'header');
    expect(header?.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.header);
    const fields = message.blocks.find((block) => block.type === 'section')?.fields as { text: string }[];
    expect(fields.length).toBeLessThanOrEqual(SLACK_LIMITS.fields);
    for (const field of fields) expect(field.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fieldText);
    expect(request.body).toContain('critical');
    expect(request.body).toContain('known exploited');
    const button = message.blocks.find((block) => block.type === 'actions')?.elements[0];
    expect(button.url).toMatch(new RegExp(`/releases/${event.releaseId}$`));
  });

  it('writes e-mail as .eml files with text, HTML and a List-Unsubscribe header when no SMTP server is set', async () => {
    const team = await createTeamWithKey();
    const created = await team.api.post('/api/notification-channels', {
      type: 'email',
      name: 'psirt',
      recipients: ['psirt@example.test'],
    });
    expect(created.status).toBe(201);
    const tested = await team.api.post(`/api/notification-channels/${created.body.data.id}/test`, {});
    expect(tested.body.data.status).toBe('delivered');
    const [mail] = await emails(tested.body.data.eventId as string);
    expect(mail).toMatch(/^List-Unsubscribe:\s+<http[^>]+>/m);
    expect(mail).toContain('To: psirt@example.test');
    expect(mail).toContain('text/plain');
    expect(mail).toContain('text/html');
  });

  it("collects a daily-digest rule's events and sends them as one message at the rule's hour", async () => {
    const team = await createTeamWithKey();
    const created = await team.api.post('/api/notification-channels', {
      type: 'email',
      name: 'digest',
      recipients: ['digest@example.test'],
    });
    const hour = new Date().getUTCHours();
    await rule(team, created.body.data.id as string, { mode: 'daily_digest', digestHour: hour, digestTimeZone: 'UTC' });
    // Both before this hour's digest time, so today's digest lists them.
    const startOfHour = new Date();
    startOfHour.setUTCMinutes(0, 0, 0);
    const before = new Date(startOfHour.getTime() - 60_000).toISOString();
    // Written in one transaction: the dispatcher sends the digest as soon as it sees an event past the hour,
    // so two separate writes could land in two digests.
    const first = findingEventOf(team.teamId, { cve_id: 'CVE-2026-1111' }, before);
    const second = findingEventOf(team.teamId, { cve_id: 'CVE-2026-2222' }, before);
    await transactWrite([tx.put(eventItem(first)), tx.put(eventItem(second))]);
    const digest = await eventually(async () =>
      (await deliveries(team, '?status=delivered')).find((item) => item.eventType === 'digest'),
    );
    const [mail] = await emails(digest.eventId);
    expect(mail).toContain('CVE-2026-1111');
    expect(mail).toContain('CVE-2026-2222');
    // One message for both, none per event.
    const all = await deliveries(team);
    expect(all.map((item) => item.eventType)).toEqual(['digest']);
    expect([first.id, second.id].every((id) => !all.some((item) => item.eventId === id))).toBe(true);
  });
});

describe('nothing lost, nothing doubled', () => {
  it('delivers once when an event is written again after its deliveries exist (a retried batch, a crash before the outbox entry was cleared)', async () => {
    const team = await createTeamWithKey();
    const target = await receiver();
    const channel = await webhookChannel(team, target.url);
    await rule(team, channel.id);
    const event = await findingEvent(team.teamId);
    await eventually(async () => (await deliveries(team, `?eventId=${event.id}&status=delivered`)).at(0));
    // The same item again, outbox entry and all, as a process that died after making the deliveries leaves it.
    await batchWrite([eventItem(event)]);
    const marker = await findingEvent(team.teamId);
    await eventually(() => target.received.find((item) => item.headers['webhook-id'] === marker.id));
    expect(target.received.filter((item) => item.headers['webhook-id'] === event.id)).toHaveLength(1);
    expect(await deliveries(team, `?eventId=${event.id}`)).toHaveLength(1);
  });
});
