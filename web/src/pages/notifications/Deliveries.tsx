import { useState } from 'preact/hooks';
import { api, errorText } from '../../api/client';
import { ColumnHeads, ErrorMessage, fieldText, formatDate, Notice, Pager, Section } from '../../components';
import { must, useLoad } from '../../hooks';
import { DELIVERY_STATUSES, deliveryStatusText, type Channel, type Delivery, type DeliveryStatus } from './vocabulary';

const PER_PAGE = 25;
const EXCERPT_CHARS = 120;

interface LogFilter {
  channelId?: string;
  status?: DeliveryStatus;
  eventId?: string;
}

function excerpt(text: string | null): string {
  if (!text) return '—';
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/** The delivery log, newest first: each delivery's attempts, last answer and next attempt, with "Redeliver". */
export function Deliveries(props: { manage: boolean; channels: Channel[]; changed: number }) {
  const { manage, channels } = props;
  const [filter, setFilter] = useState<LogFilter>({});
  const [page, setPage] = useState(1);
  const log = useLoad(
    () => must(api.GET('/api/notification-deliveries', { params: { query: { ...filter, page, perPage: PER_PAGE } } })),
    [filter, page, props.changed],
  );
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const channelName = (id: string) => channels.find((channel) => channel.id === id)?.name ?? 'deleted channel';

  const apply = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const channelId = fieldText(form, 'channelId');
    const status = fieldText(form, 'status') as DeliveryStatus | '';
    const eventId = fieldText(form, 'eventId');
    setFilter({
      ...(channelId ? { channelId } : {}),
      ...(status ? { status } : {}),
      ...(eventId ? { eventId } : {}),
    });
    setPage(1);
  };
  const redeliver = async (delivery: Delivery) => {
    const { error: failure } = await api.POST('/api/notification-deliveries/{deliveryId}/redeliver', {
      params: { path: { deliveryId: delivery.id } },
    });
    setError(failure ? errorText(failure) : undefined);
    setNotice(
      failure ? undefined : `The ${delivery.eventType} delivery to ${channelName(delivery.channelId)} is due again.`,
    );
    log.reload();
  };

  return (
    <Section title="Delivery log">
      <form class="filters" aria-label="Filter the delivery log" onSubmit={apply}>
        <label>
          Channel
          <select name="channelId">
            <option value="">all</option>
            {channels.map((channel) => (
              <option key={channel.id} value={channel.id}>
                {channel.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select name="status">
            <option value="">all</option>
            {DELIVERY_STATUSES.map((status) => (
              <option key={status} value={status}>
                {deliveryStatusText(status)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Event id
          <input name="eventId" class="mono" size={38} maxLength={36} placeholder="a UUID" />
        </label>
        <button type="submit">Show</button>
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
      </form>
      <ErrorMessage message={error ?? log.error} />
      <Notice message={notice} />
      {log.data && log.data.data.length === 0 ? <p class="muted">No deliveries.</p> : null}
      <div class="table-scroll">
        <table>
          <caption class="visually-hidden">Notification deliveries</caption>
          <ColumnHeads
            names={[
              'Created',
              'Channel',
              'Event',
              'Attempt',
              'Status',
              'Response',
              'Answer',
              'Duration',
              'Next attempt',
            ]}
            actions={manage}
          />
          <tbody>
            {(log.data?.data ?? []).map((delivery) => (
              <tr key={delivery.id}>
                <td>{formatDate(delivery.createdAt)}</td>
                <td>{channelName(delivery.channelId)}</td>
                <td>
                  {delivery.eventType}
                  <div class="muted small mono">{delivery.eventId}</div>
                </td>
                <td>{delivery.attempt}</td>
                <td>{deliveryStatusText(delivery.status)}</td>
                <td>{delivery.responseStatus ?? '—'}</td>
                <td class="small mono" title={delivery.responseBody ?? undefined}>
                  {excerpt(delivery.responseBody)}
                  {delivery.error ? <div class="error small">{delivery.error}</div> : null}
                </td>
                <td>{delivery.durationMs !== null ? `${delivery.durationMs} ms` : '—'}</td>
                <td>{formatDate(delivery.nextAttemptAt)}</td>
                {manage ? (
                  <td>
                    <button type="button" onClick={() => void redeliver(delivery)}>
                      Redeliver<span class="visually-hidden"> {delivery.id}</span>
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager meta={log.data?.meta} onPage={setPage} label="Delivery log" />
    </Section>
  );
}
