/**
 * Notification channels (docs/notifications.md): a signed webhook, a Slack incoming webhook or a list of
 * e-mail recipients. URLs are checked at creation (https, public addresses) and sealed with the signing
 * secret; the secret (`whsec_…`) is shown once, on creation and rotation. Every change is audited.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { auditPut } from '../audit/audit-log';
import { config } from '../config';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { Caller } from '../identity/actor';
import type { ChannelView, CreateChannelBody, DeliveryView, UpdateChannelBody } from '../schemas/notifications';
import { ChannelStore, openSecrets, sealSecrets, toChannelView, type StoredChannel } from './channel-store';
import { Dispatch } from './dispatch';
import { RuleStore } from './rule-store';
import { redactedUrl, resolvedTargetProblem } from './target-url';

/** A Standard Webhooks secret: `whsec_` and 24 random bytes, base64. */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

async function assertDeliverableUrl(url: string): Promise<void> {
  const problem = await resolvedTargetProblem(url, config().notifications.allowLoopback);
  if (problem) throw new ValidationError('Invalid notification channel', [{ path: 'url', message: problem }]);
}

const APPROVERS = 'approvers';

/** An e-mail channel's recipients as stored: a de-duplicated list, or the approvers resolved per message. */
function emailAudience(
  recipients: string[] | typeof APPROVERS,
): Pick<StoredChannel, 'target' | 'recipients' | 'approvers'> {
  if (recipients === APPROVERS) return { target: 'the members who may approve', approvers: true };
  const list = [...new Set(recipients.map((address) => address.toLowerCase()))];
  return { target: list.join(', '), recipients: list };
}

async function requireChannel(teamId: string, channelId: string): Promise<StoredChannel> {
  const channel = await ChannelStore.get(teamId, channelId);
  if (!channel) throw new NotFoundError('Notification channel');
  return channel;
}

export const NotificationChannels = {
  async list(teamId: string): Promise<ChannelView[]> {
    return (await ChannelStore.list(teamId)).map(toChannelView);
  },

  async get(teamId: string, channelId: string): Promise<ChannelView> {
    return toChannelView(await requireChannel(teamId, channelId));
  },

  async create(caller: Caller, input: CreateChannelBody): Promise<ChannelView & { secret?: string }> {
    const now = new Date().toISOString();
    const id = randomUUID();
    const base = {
      id,
      teamId: caller.teamId,
      name: input.name,
      type: input.type,
      enabled: true,
      disabledReason: null,
      consecutiveFailures: 0,
      createdAt: now,
      updatedAt: now,
    };
    let channel: StoredChannel;
    let secret: string | undefined;
    if (input.type === 'email') {
      // A deployment without an SES sender could never deliver it: refuse now rather than let every message die.
      if (config().notifications.emailTransport === null)
        throw new ValidationError('Invalid notification channel', [
          {
            path: 'type',
            message:
              'e-mail is not configured on this deployment: the operator sets an SES identity and sender (vexdesk:notifySesIdentity, vexdesk:notifySesFrom)',
          },
        ]);
      channel = { ...base, ...emailAudience(input.recipients), sealed: null };
    } else {
      await assertDeliverableUrl(input.url);
      secret = input.type === 'webhook' ? newSecret() : undefined;
      const sealed = await sealSecrets(caller.teamId, id, { url: input.url, ...(secret ? { secret } : {}) });
      channel = { ...base, target: redactedUrl(input.url), sealed };
    }
    await ChannelStore.create(
      channel,
      auditPut(caller.teamId, caller.actor, {
        action: 'create',
        entityType: 'notification_channel',
        entityId: id,
        entityName: channel.name,
        changes: { type: channel.type, target: channel.target },
      }),
    );
    return { ...toChannelView(channel), ...(secret ? { secret } : {}) };
  },

  async update(caller: Caller, channelId: string, input: UpdateChannelBody): Promise<ChannelView> {
    const current = await requireChannel(caller.teamId, channelId);
    let next: StoredChannel = { ...current, updatedAt: new Date().toISOString() };
    const changes: Record<string, unknown> = {};
    if (input.name !== undefined && input.name !== current.name) {
      next.name = input.name;
      changes.name = { from: current.name, to: input.name };
    }
    if (input.url !== undefined) {
      if (current.type === 'email')
        throw new ValidationError('Invalid notification channel', [
          { path: 'url', message: 'an e-mail channel has recipients, not a URL' },
        ]);
      await assertDeliverableUrl(input.url);
      const secrets = await openSecrets(current);
      next.sealed = await sealSecrets(caller.teamId, channelId, { ...secrets, url: input.url });
      next.target = redactedUrl(input.url);
      changes.target = { from: current.target, to: next.target };
    }
    if (input.recipients !== undefined) {
      if (current.type !== 'email')
        throw new ValidationError('Invalid notification channel', [
          { path: 'recipients', message: `a ${current.type} channel has a URL, not recipients` },
        ]);
      const { recipients: _list, approvers: _approvers, ...others } = next;
      next = { ...others, ...emailAudience(input.recipients) };
      changes.recipients = { from: current.approvers ? APPROVERS : current.recipients, to: input.recipients };
    }
    if (input.enabled !== undefined && input.enabled !== current.enabled) {
      next.enabled = input.enabled;
      // Re-enabling starts a new failure count: the receiver was presumably fixed.
      if (input.enabled) Object.assign(next, { disabledReason: null, consecutiveFailures: 0 });
      else next.disabledReason = 'disabled by a person';
      changes.enabled = { from: current.enabled, to: input.enabled };
    }
    const audit = auditPut(caller.teamId, caller.actor, {
      action: 'update',
      entityType: 'notification_channel',
      entityId: channelId,
      entityName: next.name,
      changes,
    });
    if (!(await ChannelStore.replace(next, audit))) throw new NotFoundError('Notification channel');
    return toChannelView(next);
  },

  /** Refused while rules send to it: deleting it would silently end what they promise. */
  async delete(caller: Caller, channelId: string): Promise<void> {
    const channel = await requireChannel(caller.teamId, channelId);
    const rules = (await RuleStore.list(caller.teamId)).filter((rule) => rule.channelId === channelId);
    if (rules.length > 0)
      throw new ConflictError(
        `${rules.length} notification rule(s) send to this channel (${rules.map((rule) => rule.name).join(', ')}): delete them or point them elsewhere first`,
        'channel_in_use',
      );
    const audit = auditPut(caller.teamId, caller.actor, {
      action: 'delete',
      entityType: 'notification_channel',
      entityId: channelId,
      entityName: channel.name,
      changes: { type: channel.type, target: channel.target },
    });
    if (!(await ChannelStore.delete(caller.teamId, channelId, audit))) throw new NotFoundError('Notification channel');
  },

  /** A new signing secret, shown once; the old one stops signing at once. */
  async rotateSecret(caller: Caller, channelId: string): Promise<ChannelView & { secret: string }> {
    const current = await requireChannel(caller.teamId, channelId);
    if (current.type !== 'webhook')
      throw new ValidationError('Cannot rotate', [
        { path: 'channelId', message: `a ${current.type} channel has no signing secret` },
      ]);
    const secret = newSecret();
    const secrets = await openSecrets(current);
    const next: StoredChannel = {
      ...current,
      sealed: await sealSecrets(caller.teamId, channelId, { ...secrets, secret }),
      updatedAt: new Date().toISOString(),
    };
    const audit = auditPut(caller.teamId, caller.actor, {
      action: 'rotate_secret',
      entityType: 'notification_channel',
      entityId: channelId,
      entityName: current.name,
      changes: {},
    });
    if (!(await ChannelStore.replace(next, audit))) throw new NotFoundError('Notification channel');
    return { ...toChannelView(next), secret };
  },

  /** Sends a `test` message now and answers its delivery (also in the log). */
  async test(caller: Caller, channelId: string): Promise<DeliveryView> {
    const channel = await requireChannel(caller.teamId, channelId);
    return Dispatch.sendTest(caller, channel);
  },
};
