/**
 * The team's latest events (GET /api/events, newest first), each said in a sentence and linked to the
 * console page it concerns: the release page (its findings filtered to the event's advisory for finding
 * events), the public disclosure for a published VEX document.
 */
import { api, type Schemas } from '../api/client';
import { ErrorMessage, Loading, formatDate } from '../components';
import { must, useLoad } from '../hooks';
import { label } from '../labels';
import { productNames, releaseNames } from '../names';

type TeamEvent = Schemas['TeamEvent'];

const TYPE_TEXT: Record<TeamEvent['type'], string> = {
  'finding.detected': 'New finding',
  'finding.resolved': 'Finding resolved',
  'finding.kev_added': 'Now known exploited',
  'finding.severity_changed': 'Severity changed',
  'scan.completed': 'Scan completed',
  'scan.failed': 'Scan failed',
  'vex.submitted': 'VEX submitted',
  'vex.approved': 'VEX approved',
  'vex.rejected': 'VEX rejected',
  'vex.published': 'VEX published',
  'disclosure.stale': 'Disclosure out of date',
  'cra.case_opened': 'CRA case opened',
  'cra.deadline_approaching': 'CRA deadline approaching',
  'cra.deadline_missed': 'CRA deadline missed',
  'channel.disabled': 'Notification channel disabled',
  'apikey.expiring': 'API key expiring',
};

function text(data: Record<string, unknown>, key: string): string | undefined {
  const value = data[key];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** What happened, in words; user-supplied text (comments, names) goes through JSX, never as HTML. */
export function eventSentence(event: TeamEvent): string {
  const data = event.data;
  const finding = `${text(data, 'cve_id') ?? event.advisory_id ?? 'A vulnerability'} in ${text(data, 'component_name') ?? 'a component'}${text(data, 'component_version') ? ` ${text(data, 'component_version')}` : ''}`;
  const document = `${text(data, 'format') ?? 'VEX'} v${text(data, 'version') ?? '?'}`;
  switch (event.type) {
    case 'finding.detected':
      return `${finding}${data.reopened === true ? ' (detected again)' : ''}, ${(text(data, 'severity') ?? '').toLowerCase() || 'unrated'}`;
    case 'finding.resolved':
      return `${finding}: ${label(text(data, 'reason') ?? 'no longer detected')}`;
    case 'finding.kev_added':
      return `${finding} is listed in CISA KEV`;
    case 'finding.severity_changed':
      return `${finding}: ${text(data, 'previous_severity') ?? '?'} → ${text(data, 'severity') ?? '?'}`;
    case 'scan.completed':
      return `${text(data, 'finding_count') ?? 0} findings, ${text(data, 'added') ?? 0} new, ${text(data, 'no_longer_detected') ?? 0} no longer detected`;
    case 'scan.failed':
      return text(data, 'error') ?? 'The scan was given up';
    case 'vex.rejected':
      return `${document}: ${text(data, 'comment') ?? ''}`;
    case 'vex.submitted':
    case 'vex.approved':
    case 'vex.published':
      return document;
    case 'disclosure.stale':
      return `${text(data, 'undecided_count') ?? 'Some'} new findings without a decision since the disclosure was published`;
    case 'cra.case_opened':
      return `${text(data, 'vulnerability_id') ?? 'A vulnerability'} is actively exploited: early warning due ${text(data, 'early_warning_due') ?? '?'}`;
    case 'cra.deadline_approaching':
      return `${text(data, 'vulnerability_id') ?? '?'}: ${label(text(data, 'stage') ?? 'report')} due within ${text(data, 'before') ?? '?'} (${text(data, 'due') ?? '?'})`;
    case 'cra.deadline_missed':
      return `${text(data, 'vulnerability_id') ?? '?'}: ${label(text(data, 'stage') ?? 'report')} was due ${text(data, 'due') ?? '?'}`;
    case 'channel.disabled':
      return `${text(data, 'channel_name') ?? 'A channel'}: ${text(data, 'reason') ?? 'disabled'}`;
    case 'apikey.expiring':
      return `${text(data, 'key_name') ?? 'An API key'} expires ${text(data, 'expires_at') ?? 'within 7 days'}`;
  }
}

/** Names of the releases and products the events name. */
async function namesOf(events: TeamEvent[]) {
  const [releases, products] = await Promise.all([
    releaseNames(events.map((event) => event.release_id)),
    productNames(events.map((event) => event.product_id)),
  ]);
  return { releases, products };
}

/** Where the console shows what the event is about. */
function eventLink(event: TeamEvent): string {
  const slug = text(event.data, 'disclosure_slug');
  if (event.type === 'vex.published' && slug) return `/d/${encodeURIComponent(slug)}`;
  if (event.type === 'channel.disabled') return '/settings/notifications';
  if (event.type === 'apikey.expiring') return '/settings';
  const advisory = text(event.data, 'cve_id') ?? event.advisory_id;
  return event.type.startsWith('finding.') && advisory
    ? `/releases/${event.release_id}?q=${encodeURIComponent(advisory)}`
    : `/releases/${event.release_id}`;
}

export function LatestEvents() {
  const events = useLoad(async () => {
    const page = await must(api.GET('/api/events', { params: { query: { perPage: 10 } } }));
    return { page, names: await namesOf(page.data) };
  }, []);
  const rows = events.data?.page.data ?? [];
  const names = events.data?.names;
  return (
    <>
      <ErrorMessage message={events.error} />
      <Loading when={events.loading && !events.data} />
      {events.data && rows.length === 0 ? <p class="muted">No events yet.</p> : null}
      {rows.length ? (
        <ol class="events">
          {rows.map((event) => {
            const release = names?.releases.get(event.release_id);
            const product = names?.products.get(event.product_id);
            const kev = event.type === 'finding.kev_added' || event.data.is_kev === true;
            return (
              <li key={event.id} class={`event event-${event.type.replace('.', '-')}`}>
                <span class="event-type">
                  {TYPE_TEXT[event.type]}
                  {kev ? <span class="badge danger">KEV</span> : null}
                </span>{' '}
                <a href={eventLink(event)}>{eventSentence(event)}</a>
                <div class="muted small">
                  {product ?? 'A product'} {release?.version ?? ''} ·{' '}
                  <time dateTime={event.occurred_at}>{formatDate(event.occurred_at)}</time>
                </div>
              </li>
            );
          })}
        </ol>
      ) : null}
    </>
  );
}
