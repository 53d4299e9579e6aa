/** Team policies on the settings page: the remediation SLA and the browser-session timeouts. */
import { useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { ErrorMessage, Notice, Section } from '../components';
import { useSaveResult, type Loaded } from '../hooks';
// The bounds the service validates against (one plain module, no zod): the form shows the same range.
import { SESSION_TIMEOUT_BOUNDS } from '../../../shared/service/identity/session-timeout-rules';

type TeamSettings = Schemas['TeamSettings'];
type SlaPolicy = Schemas['SlaPolicy'];

const SLA_FIELDS: Array<{ key: keyof SlaPolicy; text: string }> = [
  { key: 'critical', text: 'Critical (days)' },
  { key: 'high', text: 'High (days)' },
  { key: 'medium', text: 'Medium (days)' },
  { key: 'low', text: 'Low (days)' },
  { key: 'kev', text: 'Known exploited (days)' },
];

export function Sla({ manage, settings }: { manage: boolean; settings: Loaded<TeamSettings> }) {
  const { error, notice, start, settle } = useSaveResult();
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const number = (name: string) => Number(form.get(name));
    const slaPolicy: SlaPolicy = {
      critical: number('critical'),
      high: number('high'),
      medium: number('medium'),
      low: number('low'),
      kev: number('kev'),
      atRiskRatio: number('atRiskPercent') / 100,
    };
    start();
    const { error: failure } = await api.PUT('/api/settings', {
      body: { slaPolicy, requireDistinctApprover: form.get('requireDistinctApprover') === 'on' },
    });
    settle(failure, 'SLA policy saved.', settings.reload);
  };
  const policy = settings.data?.slaPolicy;
  return (
    <Section title="SLA policy">
      <p class="muted">Days to decide a finding, by severity; the compliance report measures against them.</p>
      <ErrorMessage message={error ?? settings.error} />
      {policy ? (
        <form class="grid-form" aria-label="SLA policy" onSubmit={(event) => void save(event)}>
          {SLA_FIELDS.map((field) => (
            <label key={field.key}>
              {field.text}
              <input
                name={field.key}
                type="number"
                min={1}
                max={3650}
                required
                value={policy[field.key]}
                disabled={!manage}
              />
            </label>
          ))}
          <label>
            At risk after (% of the window)
            <input
              name="atRiskPercent"
              type="number"
              min={10}
              max={99}
              required
              value={Math.round(policy.atRiskRatio * 100)}
              disabled={!manage}
            />
          </label>
          <label class="check wide">
            <input
              type="checkbox"
              name="requireDistinctApprover"
              checked={settings.data?.requireDistinctApprover}
              disabled={!manage}
            />
            An approver must not be the member who submitted the document
          </label>
          <div class="actions">
            {manage ? (
              <button type="submit" class="primary">
                Save policy
              </button>
            ) : null}
            <Notice message={notice} />
          </div>
        </form>
      ) : null}
    </Section>
  );
}

/** "90 min" → "1 h 30 min", "10080 min" → "7 days": the minutes a field holds, as people read them. */
function readableMinutes(minutes: number): string {
  if (!Number.isFinite(minutes) || minutes <= 0) return '';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  const parts = [
    days ? `${days} day${days === 1 ? '' : 's'}` : '',
    hours ? `${hours} h` : '',
    rest ? `${rest} min` : '',
  ];
  return parts.filter(Boolean).join(' ');
}

type TimeoutField = keyof TeamSettings['sessionTimeouts'];
const TIMEOUT_FIELDS: Array<{ key: TimeoutField; text: string }> = [
  { key: 'idleMinutes', text: 'Idle timeout (minutes)' },
  { key: 'absoluteMinutes', text: 'Absolute timeout (minutes)' },
];

export function SessionTimeouts({ manage, settings }: { manage: boolean; settings: Loaded<TeamSettings> }) {
  const { error, notice, start, settle } = useSaveResult();
  const [draft, setDraft] = useState<Partial<TeamSettings['sessionTimeouts']>>({});
  const current = settings.data?.sessionTimeouts;
  const values = {
    idleMinutes: draft.idleMinutes ?? current?.idleMinutes ?? 0,
    absoluteMinutes: draft.absoluteMinutes ?? current?.absoluteMinutes ?? 0,
  };
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    start();
    const { error: failure } = await api.PUT('/api/settings', { body: { sessionTimeouts: values } });
    settle(
      failure,
      'Session timeouts saved. A shorter timeout ends open sessions at their next request; a longer absolute timeout applies from the next sign-in.',
      () => {
        setDraft({});
        settings.reload();
      },
    );
  };
  return (
    <Section title="Browser sessions">
      <p class="muted">
        A member signed in to the console is signed out after this long without a request, and this long after signing
        in however active. API keys and CI tokens are not affected.
      </p>
      <ErrorMessage message={error ?? settings.error} />
      {current ? (
        <form class="grid-form" aria-label="Session timeouts" onSubmit={(event) => void save(event)}>
          {TIMEOUT_FIELDS.map(({ key, text }) => {
            const bounds = SESSION_TIMEOUT_BOUNDS[key];
            return (
              <label key={key}>
                {text}
                <input
                  name={key}
                  type="number"
                  min={bounds.min}
                  max={bounds.max}
                  step={1}
                  required
                  value={values[key]}
                  disabled={!manage}
                  onInput={(event) => setDraft({ ...draft, [key]: event.currentTarget.valueAsNumber })}
                />
                <span class="muted small">
                  {readableMinutes(values[key])} · {bounds.min}–{bounds.max}
                </span>
              </label>
            );
          })}
          <div class="actions">
            {manage ? (
              <button type="submit" class="primary">
                Save timeouts
              </button>
            ) : null}
            <Notice message={notice} />
          </div>
        </form>
      ) : null}
    </Section>
  );
}
