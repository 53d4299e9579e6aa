/** Deciding on findings: one finding's disposition panel with its history, and the bulk decision for a selection. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../api/client';
import { ErrorMessage, Notice, formatDate } from '../components';
import { must, useLoad } from '../hooks';
import { label } from '../labels';
// The disposition vocabulary the service validates against (one plain module, no zod): the forms offer the same values.
import { DISPOSITION_STATUSES, JUSTIFICATIONS, RESPONSES } from '../../../shared/service/dispositions/vocabulary';

type Finding = Schemas['ReleaseVulnerability'];
type DispositionStatus = Schemas['Disposition']['status'];
type Justification = NonNullable<Schemas['Disposition']['justification']>;
type ResponseAction = NonNullable<Schemas['Disposition']['response']>;
const BATCH_LIMIT = 500;

/** A history value for people: text as is, anything else as JSON. */
function historyValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'string' ? label(value) : JSON.stringify(value);
}
interface DecisionFields {
  status: DispositionStatus;
  justification: Justification | '';
  response: ResponseAction | '';
  detail: string;
}

/** Status, justification (required for not_affected) and response; shared by the bulk bar and the panel. */
function DecisionInputs({
  value,
  onChange,
  idPrefix,
}: {
  value: DecisionFields;
  onChange: (next: DecisionFields) => void;
  idPrefix: string;
}) {
  return (
    <>
      <label>
        Status
        <select
          id={`${idPrefix}-status`}
          value={value.status}
          onChange={(event) => onChange({ ...value, status: event.currentTarget.value as DispositionStatus })}
        >
          {DISPOSITION_STATUSES.map((status) => (
            <option key={status} value={status}>
              {label(status)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Justification
        <select
          value={value.justification}
          required={value.status === 'not_affected'}
          onChange={(event) => onChange({ ...value, justification: event.currentTarget.value as Justification | '' })}
        >
          <option value="">{value.status === 'not_affected' ? 'Choose one (required)' : 'None'}</option>
          {JUSTIFICATIONS.map((justification) => (
            <option key={justification} value={justification}>
              {label(justification)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Response
        <select
          value={value.response}
          onChange={(event) => onChange({ ...value, response: event.currentTarget.value as ResponseAction | '' })}
        >
          <option value="">None</option>
          {RESPONSES.map((response) => (
            <option key={response} value={response}>
              {label(response)}
            </option>
          ))}
        </select>
      </label>
      <label class="wide">
        Detail
        <textarea
          rows={2}
          maxLength={5000}
          value={value.detail}
          onInput={(event) => onChange({ ...value, detail: event.currentTarget.value })}
        />
      </label>
    </>
  );
}

export function BulkDecision({ selected, onDone }: { selected: Set<string>; onDone: () => void }) {
  const [fields, setFields] = useState<DecisionFields>({
    status: 'not_affected',
    justification: '',
    response: '',
    detail: '',
  });
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const apply = async (event: SubmitEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const ids = [...selected];
    let updated = 0;
    try {
      for (let start = 0; start < ids.length; start += BATCH_LIMIT) {
        const result = await must(
          api.POST('/api/dispositions/batch', {
            body: {
              vulnerabilityIds: ids.slice(start, start + BATCH_LIMIT),
              status: fields.status,
              ...(fields.justification ? { justification: fields.justification } : {}),
              ...(fields.response ? { response: fields.response } : {}),
              ...(fields.detail.trim() ? { detail: fields.detail.trim() } : {}),
            },
          }),
        );
        updated += result.updated;
      }
      setNotice(`${updated} findings marked ${label(fields.status)}.`);
      onDone();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="bulk grid-form" aria-label="Decide the selected findings" onSubmit={(event) => void apply(event)}>
      <DecisionInputs value={fields} onChange={setFields} idPrefix="bulk" />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || selected.size === 0}>
          Apply to {selected.size} selected
        </button>
        <Notice message={notice} />
      </div>
      <ErrorMessage message={error} />
    </form>
  );
}

export function DispositionPanel({
  finding,
  writable,
  onClose,
  onSaved,
}: {
  finding: Finding;
  writable: boolean;
  onClose: () => void;
  onSaved: () => void;
}) {
  const dispositionId = finding.disposition?.id;
  const detail = useLoad(
    () =>
      dispositionId
        ? must(api.GET('/api/dispositions/{dispositionId}', { params: { path: { dispositionId } } })).then(
            (body) => body.data,
          )
        : Promise.resolve(undefined),
    [dispositionId],
  );
  const current = detail.data;
  const [fields, setFields] = useState<DecisionFields | undefined>();
  const shown: DecisionFields = fields ?? {
    status: current?.status ?? finding.disposition?.status ?? 'under_investigation',
    justification: current?.justification ?? '',
    response: current?.response ?? '',
    detail: current?.detail ?? '',
  };
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  // The panel opens below the table: bring it into view and move the focus to it (keyboard and screen readers follow).
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus();
  }, [finding.id]);
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    setError(undefined);
    const result = dispositionId
      ? await api.PUT('/api/dispositions/{dispositionId}', {
          params: { path: { dispositionId } },
          body: {
            status: shown.status,
            justification: shown.justification || null,
            response: shown.response || null,
            detail: shown.detail.trim() || null,
          },
        })
      : await api.POST('/api/dispositions', {
          body: {
            vulnerabilityId: finding.id,
            status: shown.status,
            ...(shown.justification ? { justification: shown.justification } : {}),
            ...(shown.response ? { response: shown.response } : {}),
            ...(shown.detail.trim() ? { detail: shown.detail.trim() } : {}),
          },
        });
    if (result.error) setError(errorText(result.error));
    else {
      setNotice('Decision saved.');
      setFields(undefined);
      onSaved();
      detail.reload();
    }
  };
  return (
    <aside class="panel card" aria-labelledby="panel-heading">
      <div class="panel-head">
        <h3 id="panel-heading" ref={heading} tabIndex={-1}>
          {finding.cve_id} in {finding.component_name} {finding.component_version ?? ''}
        </h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <p>{finding.summary}</p>
      <dl class="facts">
        <div>
          <dt>Severity</dt>
          <dd>
            {finding.severity}
            {finding.severity_source ? ` (${finding.severity_source.replace('_', ' ')})` : ''}
          </dd>
        </div>
        <div>
          <dt>CVSS vector</dt>
          <dd class="mono small">
            {finding.cvss_v4_vector ?? finding.cvss_v3_vector ?? finding.cvss_v2_vector ?? '—'}
          </dd>
        </div>
        <div>
          <dt>EPSS</dt>
          <dd>
            {finding.epss_score === null
              ? '—'
              : `${(finding.epss_score * 100).toFixed(2)}% (percentile ${((finding.epss_percentile ?? 0) * 100).toFixed(0)})`}
          </dd>
        </div>
        <div>
          <dt>KEV</dt>
          <dd>
            {finding.kev
              ? `Added ${finding.kev.dateAdded}${finding.kev.dueDate ? `, due ${finding.kev.dueDate}` : ''}`
              : 'No'}
          </dd>
        </div>
        <div>
          <dt>Package</dt>
          <dd class="mono small">{finding.component_purl ?? finding.component_ref}</dd>
        </div>
        <div>
          <dt>Fixed in</dt>
          <dd>{finding.fixed_versions.join(', ') || '—'}</dd>
        </div>
      </dl>
      {writable ? (
        <form class="grid-form" aria-label="Decision" onSubmit={(event) => void save(event)}>
          <DecisionInputs value={shown} onChange={setFields} idPrefix="panel" />
          <ErrorMessage message={error} />
          <div class="actions">
            <button type="submit" class="primary">
              Save decision
            </button>
            <Notice message={notice} />
          </div>
        </form>
      ) : null}
      <h4>History</h4>
      <ErrorMessage message={detail.error} />
      {current?.history.length ? (
        <ol class="history">
          {current.history.map((change) => (
            <li key={change.changeId}>
              <strong>{change.actor.name}</strong> · {formatDate(change.at)}
              <ul>
                {Object.entries(change.changes).map(([field, { from, to }]) => (
                  <li key={field}>
                    {field}: {historyValue(from)} → {historyValue(to)}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      ) : (
        <p class="muted">{dispositionId ? (detail.loading ? 'Loading…' : 'No history.') : 'No decision yet.'}</p>
      )}
    </aside>
  );
}
