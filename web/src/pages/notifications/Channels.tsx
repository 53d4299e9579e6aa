import { useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../../api/client';
import { ColumnHeads, ErrorMessage, fieldText, formatDate, Notice, Section, ShownOnce } from '../../components';
import type { Loaded } from '../../hooks';
import { CHANNEL_TYPE_TEXT, CHANNEL_TYPES, deliveryStatusText, type Channel, type ChannelType } from './vocabulary';

type ChannelList = Schemas['NotificationChannel'][];

/** A channel's state for people: active, or disabled with why (after failures, a 410, or by hand). */
export function channelStatus(channel: Channel): string {
  if (!channel.enabled) return channel.disabledReason ? `Disabled: ${channel.disabledReason}` : 'Disabled';
  return channel.consecutiveFailures > 0 ? `Active (${channel.consecutiveFailures} failures in a row)` : 'Active';
}

/** A delivery's outcome in one line: status, response code, duration, error. */
export function outcomeText(delivery: Schemas['NotificationDelivery']): string {
  return [
    deliveryStatusText(delivery.status),
    delivery.responseStatus !== null ? `HTTP ${delivery.responseStatus}` : undefined,
    delivery.durationMs !== null ? `${delivery.durationMs} ms` : undefined,
    delivery.error ?? undefined,
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The team's channels: status, create, send a test, rotate a webhook's secret, re-enable, delete. A webhook's
 * signing secret is in the answers of create and rotate only, so it is shown once, here, and never again.
 */
export function Channels(props: { manage: boolean; channels: Loaded<{ data: ChannelList }>; onDelivered: () => void }) {
  const { manage, channels } = props;
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [secret, setSecret] = useState<{ channel: string; value: string }>();
  const [tested, setTested] = useState<{ channel: string; delivery: Schemas['NotificationDelivery'] }>();
  const [busy, setBusy] = useState<string>();

  const act = async <T,>(
    channel: Channel,
    call: () => Promise<{ data?: T; error?: unknown }>,
    done: (data: T) => void,
  ): Promise<void> => {
    setBusy(channel.id);
    setNotice(undefined);
    setTested(undefined);
    try {
      const { data, error: failure } = await call();
      if (failure !== undefined || data === undefined) setError(errorText(failure));
      else {
        setError(undefined);
        done(data);
      }
    } finally {
      setBusy(undefined);
      channels.reload();
    }
  };
  const path = (channel: Channel) => ({ params: { path: { channelId: channel.id } } });
  const sendTest = (channel: Channel) =>
    act(
      channel,
      () => api.POST('/api/notification-channels/{channelId}/test', path(channel)),
      (body) => {
        setTested({ channel: channel.name, delivery: body.data });
        props.onDelivered();
      },
    );
  const rotate = (channel: Channel) => {
    if (!window.confirm(`Rotate the signing secret of ${channel.name}? The current secret stops signing at once.`))
      return;
    void act(
      channel,
      () => api.POST('/api/notification-channels/{channelId}/rotate-secret', path(channel)),
      (body) => body.data.secret && setSecret({ channel: channel.name, value: body.data.secret }),
    );
  };
  const enable = (channel: Channel) =>
    act(
      channel,
      () => api.PUT('/api/notification-channels/{channelId}', { ...path(channel), body: { enabled: true } }),
      () => setNotice(`${channel.name} enabled again.`),
    );
  const remove = (channel: Channel) => {
    if (!window.confirm(`Delete the channel ${channel.name}?`)) return;
    void act(
      channel,
      async () => {
        const { error: failure, response } = await api.DELETE('/api/notification-channels/{channelId}', path(channel));
        return { data: response.ok ? true : undefined, error: failure };
      },
      () => setNotice(`${channel.name} deleted.`),
    );
  };

  const list = channels.data?.data ?? [];
  return (
    <Section title="Channels">
      <ErrorMessage message={error ?? channels.error} />
      <Notice message={notice} />
      {secret ? <SecretOnce channel={secret.channel} value={secret.value} onDone={() => setSecret(undefined)} /> : null}
      {tested ? (
        <p class="notice" role="status" data-testid="test-result">
          Test to {tested.channel}: {outcomeText(tested.delivery)}
        </p>
      ) : null}
      {channels.data && list.length === 0 ? <p class="muted">No channels yet: nothing is sent.</p> : null}
      <table>
        <caption class="visually-hidden">Notification channels</caption>
        <ColumnHeads names={['Name', 'Type', 'Delivers to', 'Status', 'Created']} actions={manage} />
        <tbody>
          {list.map((channel) => (
            <tr key={channel.id}>
              <td>{channel.name}</td>
              <td>{channel.type}</td>
              <td class="small mono">
                {channel.approvers ? 'the members who may approve' : (channel.recipients?.join(', ') ?? channel.target)}
              </td>
              <td>{channelStatus(channel)}</td>
              <td>{formatDate(channel.createdAt)}</td>
              {manage ? (
                <td>
                  <div class="actions">
                    <button type="button" disabled={busy === channel.id} onClick={() => void sendTest(channel)}>
                      Send test<span class="visually-hidden"> to {channel.name}</span>
                    </button>
                    {channel.type === 'webhook' ? (
                      <button type="button" disabled={busy === channel.id} onClick={() => rotate(channel)}>
                        Rotate secret<span class="visually-hidden"> of {channel.name}</span>
                      </button>
                    ) : null}
                    {!channel.enabled ? (
                      <button type="button" disabled={busy === channel.id} onClick={() => void enable(channel)}>
                        Enable<span class="visually-hidden"> {channel.name}</span>
                      </button>
                    ) : null}
                    <button type="button" class="danger" disabled={busy === channel.id} onClick={() => remove(channel)}>
                      Delete<span class="visually-hidden"> {channel.name}</span>
                    </button>
                  </div>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {manage ? (
        <CreateChannel
          onCreated={(channel) => {
            setNotice(`Channel ${channel.name} created.`);
            if (channel.secret) setSecret({ channel: channel.name, value: channel.secret });
            channels.reload();
          }}
        />
      ) : null}
    </Section>
  );
}

/** A webhook's signing secret, shown this once with a copy button. */
function SecretOnce({ channel, value, onDone }: { channel: string; value: string; onDone: () => void }) {
  return (
    <ShownOnce key={value} label="Signing secret" value={value} testId="channel-secret" onDone={onDone}>
      <strong>Signing secret of {channel}.</strong> Copy it now: you will not see it again. Your receiver verifies each
      delivery's <code>webhook-signature</code> with it.
    </ShownOnce>
  );
}

/** Addresses typed one a line or separated by commas. */
function recipientList(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

function CreateChannel({ onCreated }: { onCreated: (channel: Schemas['NotificationChannelWithSecret']) => void }) {
  const [type, setType] = useState<ChannelType>('webhook');
  const [toApprovers, setToApprovers] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const name = fieldText(form, 'name');
    const { data, error: failure } = await api.POST('/api/notification-channels', {
      body:
        type === 'email'
          ? { type, name, recipients: toApprovers ? 'approvers' : recipientList(fieldText(form, 'recipients')) }
          : { type, name, url: fieldText(form, 'url') },
    });
    if (failure || !data) setError(errorText(failure));
    else {
      setError(undefined);
      setToApprovers(false);
      formElement.reset();
      onCreated(data.data);
    }
  };
  return (
    <form class="grid-form" aria-label="Add a channel" onSubmit={(event) => void submit(event)}>
      <h3 class="wide">Add a channel</h3>
      <label>
        Type
        <select name="type" value={type} onChange={(event) => setType(event.currentTarget.value as ChannelType)}>
          {CHANNEL_TYPES.map((value) => (
            <option key={value} value={value}>
              {CHANNEL_TYPE_TEXT[value]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Name
        <input name="name" required maxLength={100} />
      </label>
      {type === 'email' ? (
        <>
          <label class="wide">
            <input
              type="checkbox"
              name="approvers"
              checked={toApprovers}
              onChange={(event) => setToApprovers(event.currentTarget.checked)}
            />{' '}
            To the members who may approve VEX documents (looked up when each message is sent)
          </label>
          {toApprovers ? null : (
            <label class="wide">
              Recipients (one a line or comma-separated, up to 50)
              <textarea name="recipients" required rows={3} />
            </label>
          )}
        </>
      ) : (
        <label class="wide">
          {type === 'slack' ? 'Slack incoming-webhook URL' : 'URL (https, on a public address)'}
          <input name="url" type="url" required maxLength={2048} placeholder="https://" />
        </label>
      )}
      <ErrorMessage message={error} />
      <div class="actions">
        <button type="submit" class="primary">
          Add channel
        </button>
      </div>
    </form>
  );
}
