/**
 * Events people need (docs/notifications.md "Events for people"): `vex.submitted` e-mailed to the members who may
 * approve it, and `apikey.expiring` once per key, a week ahead.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../shared/service/aws-clients';
import { keys } from '../../shared/service/data/keys';
import { batchWrite } from '../../shared/service/data/table-client';
import { eventId, eventItem } from '../../shared/service/events/event-store';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { checkApiKeyExpiry } from '../../shared/service/identity/key-expiry';
import { Members } from '../../shared/service/identity/teams';
import { createTeamWithKey } from '../support/factories';
import { webhookChannelWithRule } from '../support/notification-events';
import { eventually, startReceiver } from '../support/webhook-receiver';

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function emailTo(messageId: string): Promise<string> {
  const outbox = join(process.env.VEXDESK_TEST_DATA_DIR ?? '', 'outbox');
  return eventually(async () => {
    const names = (await readdir(outbox).catch(() => [] as string[])).filter((name) => name.includes(messageId));
    if (names.length === 0) return undefined;
    const mail = await readFile(join(outbox, names[0]!), 'utf8');
    return /^To: (.*(?:\r?\n[ \t].*)*)/m.exec(mail)?.[1]?.replace(/\s+/g, ' ') ?? '';
  });
}

/** A `vex.submitted` event as the workflow writes it, submitted by `submittedBy`. */
async function vexSubmitted(team: Team, submittedBy: string): Promise<string> {
  const id = eventId(randomUUID(), 'vex.submitted');
  await batchWrite([
    eventItem({
      id,
      type: 'vex.submitted',
      occurredAt: new Date().toISOString(),
      teamId: team.teamId,
      productId: randomUUID(),
      releaseId: randomUUID(),
      data: { document_id: randomUUID(), version: 1, format: 'openvex', submitted_by: submittedBy },
    }),
  ]);
  return id;
}

describe('vex.submitted to the approvers', () => {
  it('e-mails the members who may approve, and leaves out the submitter where the team requires another approver', async () => {
    const team = await createTeamWithKey();
    const admin = await Members.get(team.teamId, team.memberId);
    const add = (name: string, permissions: Array<'content.write' | 'settings.manage'>) =>
      Members.add(
        team.teamId,
        { email: `${name}-${randomUUID().slice(0, 8)}@example.test`, name, permissions },
        OPERATOR_ACTOR,
      );
    const approver = await add('approver', ['content.write']);
    const settingsOnly = await add('settings-only', ['settings.manage']);

    const channel = await team.api.post('/api/notification-channels', {
      type: 'email',
      name: 'approvers',
      recipients: 'approvers',
    });
    expect(channel.status).toBe(201);
    expect(channel.body.data).toMatchObject({ approvers: true, target: 'the members who may approve' });
    const rule = await team.api.post('/api/notification-rules', {
      name: 'waiting for approval',
      channelId: channel.body.data.id,
      eventTypes: ['vex.submitted'],
    });
    expect(rule.status).toBe(201);

    const first = await emailTo(await vexSubmitted(team, admin.id));
    expect(first).toContain(admin.email.toLowerCase());
    expect(first).toContain(approver.email.toLowerCase());
    expect(first).not.toContain(settingsOnly.email.toLowerCase());

    expect((await team.api.put('/api/settings', { requireDistinctApprover: true })).status).toBe(200);
    const second = await emailTo(await vexSubmitted(team, admin.id));
    expect(second).toContain(approver.email.toLowerCase());
    expect(second).not.toContain(admin.email.toLowerCase());
  });

  it('turns an approvers channel back into one with fixed recipients, and refuses any other word', async () => {
    const team = await createTeamWithKey();
    const channel = await team.api.post('/api/notification-channels', {
      type: 'email',
      name: 'approvers',
      recipients: 'approvers',
    });
    const changed = await team.api.put(`/api/notification-channels/${channel.body.data.id}`, {
      recipients: ['psirt@example.test'],
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ recipients: ['psirt@example.test'], target: 'psirt@example.test' });
    expect(changed.body.data).not.toHaveProperty('approvers');
    const refused = await team.api.post('/api/notification-channels', {
      type: 'email',
      name: 'nobody',
      recipients: 'everyone',
    });
    expect(refused.status).toBe(422);
  });
});

describe('apikey.expiring', () => {
  it('tells the team once, a week before a key expires', async () => {
    const team = await createTeamWithKey();
    const receiver = await startReceiver();
    receivers.push(receiver);
    await webhookChannelWithRule(team.api, receiver.url, { name: 'keys', eventTypes: ['apikey.expiring'] });
    const expiring = await ApiKeys.create(
      team.teamId,
      { name: `ci-${randomUUID().slice(0, 8)}`, scopes: ['products:read'], expiresInDays: 30 },
      { byMemberId: team.memberId, operator: OPERATOR_ACTOR },
    );
    const distant = await ApiKeys.create(
      team.teamId,
      { name: `ci-${randomUUID().slice(0, 8)}`, scopes: ['products:read'], expiresInDays: 30 },
      { byMemberId: team.memberId, operator: OPERATOR_ACTOR },
    );
    // Six days from now, as if it had been made 24 days ago.
    const expiresAt = new Date(Date.now() + 6 * 86_400_000).toISOString();
    const index = keys.apiKeyExpiryIndex(team.teamId, expiring.id, expiresAt);
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiKey(team.teamId, expiring.id),
        UpdateExpression: 'SET expiresAt = :at, gsi1sk = :sk',
        ExpressionAttributeValues: { ':at': expiresAt, ':sk': index.gsi1sk },
      }),
    );

    await checkApiKeyExpiry();
    await checkApiKeyExpiry();
    const delivered = await eventually(() => (receiver.received.length > 0 ? receiver.received : undefined));
    // The server's own periodic check runs too: still one message.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received).toHaveLength(1);
    const body = JSON.parse(delivered[0]!.body) as { type: string; data: { data: Record<string, unknown> } };
    expect(body.type).toBe('apikey.expiring');
    expect(body.data.data).toMatchObject({ key_id: expiring.id, key_name: expiring.name, expires_at: expiresAt });
    expect(JSON.stringify(receiver.received)).not.toContain(distant.id);
  });
});
