/**
 * One attempt of one delivery (docs/notifications.md "Delivery"): the request, what its answer means (delivered,
 * retried with backoff and jitter for 24 hours, dead), and what it does to the channel (a 410 or 20 failures in a
 * row disable it). Writing the attempt's record is the caller's: a retry updates its claimed delivery, a new
 * delivery is written with its first attempt already made.
 */
import { auditPut } from '../audit/audit-log';
import { config } from '../config';
import { tx } from '../data/table-client';
import { eventId, eventItem, type TeamEvent } from '../events/event-store';
import type { Actor } from '../identity/actor';
import { approverAddresses } from './approvers';
import { ChannelStore, type StoredChannel } from './channel-store';
import type { StoredDelivery } from './delivery-store';
import type { DispatchPass } from './dispatch-pass';
import type { NotificationMessage } from './messages';
import { send, type DeliveryOutcome, type DeliveryTarget } from './transports';

/** Who the audit log names for what the dispatcher does on its own (disabling a failing channel). */
export const NOTIFIER_ACTOR: Actor = { id: 'notifier', name: 'vexdesk-notifications', email: null, kind: 'operator' };

const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
export const FAILURES_BEFORE_DISABLE = 20;
/** Failures count toward disabling at most once per 5 minutes: 20 mean about 1.5 h without a single success. */
const FAILURE_COUNT_SPACING_MS = 5 * 60 * 1000;

/** Exponential from the configured base, capped at an hour, with ±25 % jitter so retries do not march in step. */
export function retryDelayMs(attempt: number, base = config().notifications.retryBaseMs): number {
  const delay = Math.min(base * 2 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_MS);
  return Math.round(delay * (0.75 + Math.random() * 0.5));
}

/** What an attempt came to: its outcome, the status it leaves the delivery in, and when the next one is owed. */
export interface AttemptResult {
  outcome: DeliveryOutcome;
  status: StoredDelivery['status'];
  next: string | null;
}

/** Nobody to write to (no member may approve): not the receiver's failure, and retrying would not help. */
class NoRecipientsError extends Error {
  constructor() {
    super('nobody to send to: no member may approve it');
  }
}

const refused = (error: string): DeliveryOutcome => ({
  delivered: false,
  responseStatus: null,
  responseBody: null,
  durationMs: 0,
  error,
});

async function targetOf(
  pass: DispatchPass,
  channel: StoredChannel,
  message: NotificationMessage,
): Promise<DeliveryTarget> {
  if (channel.type === 'email') {
    const recipients = channel.approvers ? await approverAddresses(channel.teamId, message) : channel.recipients;
    if (!recipients?.length) throw new NoRecipientsError();
    return { type: 'email', recipients, channelId: channel.id };
  }
  const secrets = await pass.secretsOf(channel);
  if (!secrets.url) throw new Error('channel has no URL');
  if (channel.type === 'slack') return { type: 'slack', url: secrets.url };
  if (!secrets.secret) throw new Error('webhook channel has no signing secret');
  return { type: 'webhook', url: secrets.url, secret: secrets.secret };
}

/** Disables the channel with an audit entry and a `channel.disabled` event for the team's other channels, in one transaction. */
async function disableChannel(channel: StoredChannel, reason: string): Promise<void> {
  const at = new Date().toISOString();
  const event: TeamEvent = {
    id: eventId(channel.teamId, channel.id, 'channel.disabled', at),
    type: 'channel.disabled',
    occurredAt: at,
    teamId: channel.teamId,
    productId: '',
    releaseId: '',
    data: { channel_id: channel.id, channel_name: channel.name, channel_type: channel.type, reason },
  };
  // The pass's copy too: its other attempts to the channel become dead without a request.
  channel.enabled = false;
  channel.disabledReason = reason;
  await ChannelStore.disable(channel.teamId, channel.id, reason, at, [
    auditPut(channel.teamId, NOTIFIER_ACTOR, {
      action: 'disable',
      entityType: 'notification_channel',
      entityId: channel.id,
      entityName: channel.name,
      changes: { enabled: { from: true, to: false }, reason },
    }),
    tx.put(eventItem(event)),
  ]);
}

/** Makes the attempt `delivery.attempt` (already counted) and answers what it came to; the channel is kept in step. */
export async function makeAttempt(pass: DispatchPass, delivery: StoredDelivery): Promise<AttemptResult> {
  const channel = await pass.channel(delivery.teamId, delivery.channelId);
  if (!channel) return { outcome: refused('the channel was deleted'), status: 'dead', next: null };
  if (!channel.enabled) {
    const reason = `the channel is disabled (${channel.disabledReason ?? 'by a person'})`;
    return { outcome: refused(reason), status: 'dead', next: null };
  }

  let outcome: DeliveryOutcome;
  try {
    const target = await targetOf(pass, channel, delivery.message);
    outcome = await pass.sending(() => send(target, delivery.message));
  } catch (error) {
    if (error instanceof NoRecipientsError) return { outcome: refused(error.message), status: 'dead', next: null };
    outcome = refused((error as Error).message);
  }
  if (outcome.delivered) {
    pass.succeeded(channel);
    if (channel.consecutiveFailures > 0) {
      channel.consecutiveFailures = 0;
      await ChannelStore.recordSuccess(channel.teamId, channel.id);
    }
    return { outcome, status: 'delivered', next: null };
  }
  if (outcome.responseStatus === 410) {
    await disableChannel(channel, 'the receiver answered 410 Gone');
    return { outcome, status: 'dead', next: null };
  }
  const failures = await pass.countFailure(channel, FAILURE_COUNT_SPACING_MS);
  if (failures > 0) channel.consecutiveFailures = failures;
  if (failures >= FAILURES_BEFORE_DISABLE)
    await disableChannel(channel, `${FAILURES_BEFORE_DISABLE} deliveries in a row failed`);
  // A test answers its one attempt; it is not retried (redeliver sends it again).
  if (delivery.message.type === 'test') return { outcome, status: 'failed', next: null };
  const next = Date.now() + retryDelayMs(delivery.attempt);
  if (next - Date.parse(delivery.retryingSince) > RETRY_WINDOW_MS) return { outcome, status: 'dead', next: null };
  pass.owedAgainAt(next);
  return { outcome, status: 'failed', next: new Date(next).toISOString() };
}
