import { useState } from 'preact/hooks';
import { Section } from '../components';
import { useTitle } from '../hooks';
import { useMe } from '../session';

const ENTITY_TYPES = [
  'product',
  'release',
  'sbom',
  'disposition',
  'vex_document',
  'disclosure',
  'member',
  'api_key',
  'team_settings',
];
const ACTIONS = ['create', 'update', 'delete', 'submit', 'approve', 'reject', 'publish'];

/** The audit export (spec "Audit export"): a CSV download of at most 10,000 entries, filtered here. */
export function AuditPage() {
  useTitle('Audit export');
  const me = useMe();
  const [entityType, setEntityType] = useState('');
  const [action, setAction] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const query = new URLSearchParams({ accountId: me.team.id });
  if (entityType) query.set('entityType', entityType);
  if (action) query.set('action', action);
  if (from) query.set('startDate', new Date(`${from}T00:00:00Z`).toISOString());
  if (to) query.set('endDate', new Date(`${to}T23:59:59.999Z`).toISOString());
  const href = `/api/audit/export?${query.toString()}`;
  return (
    <>
      <h1>Audit export</h1>
      <Section title="Export the audit log">
        <p>
          Every change in the team, who made it and when, as CSV (timestamp, action, entity type, id and name, actor,
          changes). At most 10,000 rows per export: narrow the dates for more.
        </p>
        <form
          class="grid-form"
          aria-label="Audit export filters"
          onSubmit={(event) => {
            event.preventDefault();
            window.location.assign(href);
          }}
        >
          <label>
            Entity type
            <select value={entityType} onChange={(event) => setEntityType(event.currentTarget.value)}>
              <option value="">Any</option>
              {ENTITY_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </label>
          <label>
            Action
            <select value={action} onChange={(event) => setAction(event.currentTarget.value)}>
              <option value="">Any</option>
              {ACTIONS.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <label>
            From (UTC)
            <input type="date" value={from} onInput={(event) => setFrom(event.currentTarget.value)} />
          </label>
          <label>
            To (UTC)
            <input type="date" value={to} onInput={(event) => setTo(event.currentTarget.value)} />
          </label>
          <div class="actions">
            <a class="button primary" href={href} download="audit.csv">
              Download CSV
            </a>
          </div>
        </form>
      </Section>
    </>
  );
}
