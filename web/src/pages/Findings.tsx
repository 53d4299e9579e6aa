/**
 * A release's findings: the server pages, filters and sorts (GET /api/releases/{id}/vulnerabilities,
 * at most 500 rows a page), so the table holds one page whatever the release's size (5,000 findings
 * are ten pages of 500, or fifty of 100). Selection survives paging; a bulk decision goes through
 * POST /api/dispositions/batch (500 at a time).
 */
import { memo } from 'preact/compat';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../api/client';
import { ErrorMessage, Loading, Notice, Pager, Section, formatDate } from '../components';
import { must, useDebounced, useLoad } from '../hooks';
import { can, useMe } from '../session';
import { label } from '../labels';
// The disposition vocabulary the service validates against (one plain module, no zod): the forms offer the same values.
import { DISPOSITION_STATUSES, JUSTIFICATIONS, RESPONSES } from '../../../shared/service/dispositions/vocabulary';

type Finding = Schemas['ReleaseVulnerability'];
type DispositionStatus = Schemas['Disposition']['status'];
type Justification = NonNullable<Schemas['Disposition']['justification']>;
type ResponseAction = NonNullable<Schemas['Disposition']['response']>;

type SortKey = 'severity' | 'epss' | 'cvss' | 'component' | 'cve' | 'first_detected';
const BATCH_LIMIT = 500;

interface Filters {
  severity: string;
  status: string;
  kev: boolean;
  fixable: boolean;
  search: string;
}

export function Findings({ releaseId, version, locked }: { releaseId: string; version: number; locked: boolean }) {
  const me = useMe();
  const writable = can(me, 'dispositions:write') && !locked;
  const [filters, setFilters] = useState<Filters>({ severity: '', status: '', kev: false, fixable: false, search: '' });
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'severity', descending: true });
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(100);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [open, setOpen] = useState<Finding | undefined>();
  const [changes, setChanges] = useState(0);
  const search = useDebounced(filters.search.trim());

  const findings = useLoad(
    () =>
      must(
        api.GET('/api/releases/{releaseId}/vulnerabilities', {
          params: {
            path: { releaseId },
            query: {
              page,
              perPage,
              sort: `${sort.descending ? '-' : ''}${sort.key}` as `-${SortKey}`,
              ...(filters.severity ? { severity: filters.severity } : {}),
              ...(filters.status ? { status: filters.status } : {}),
              ...(filters.kev ? { kev: 'true' as const } : {}),
              ...(filters.fixable ? { fixable: 'true' as const } : {}),
              ...(search ? { search } : {}),
            },
          },
        }),
      ),
    [
      releaseId,
      version,
      page,
      perPage,
      sort,
      filters.severity,
      filters.status,
      filters.kev,
      filters.fixable,
      search,
      changes,
    ],
  );

  const update = (patch: Partial<Filters>) => {
    setFilters((current) => ({ ...current, ...patch }));
    setPage(1);
  };
  const rows = findings.data?.data ?? [];
  const allOnPage = rows.length > 0 && rows.every((row) => selected.has(row.id));
  const toggle = useCallback(
    (id: string) =>
      setSelected((current) => {
        const next = new Set(current);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  const togglePage = () =>
    setSelected((current) => {
      const next = new Set(current);
      for (const row of rows) {
        if (allOnPage) next.delete(row.id);
        else next.add(row.id);
      }
      return next;
    });
  const sortButton = (key: SortKey, text: string) => {
    const active = sort.key === key;
    return (
      <th scope="col" aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : undefined}>
        <button
          type="button"
          class="sort"
          onClick={() => {
            setSort({ key, descending: active ? !sort.descending : key !== 'component' && key !== 'cve' });
            setPage(1);
          }}
        >
          {text}
          <span aria-hidden="true">{active ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
        </button>
      </th>
    );
  };
  // Counts over every row the filters match, not only the page.
  const summary = findings.data?.summary;
  const meta = findings.data?.meta;

  return (
    <Section title="Findings">
      {summary ? (
        <p class="summary">
          {summary.total} findings · {summary.withoutDisposition} without a decision · {summary.affected} affected ·{' '}
          {summary.notAffected} not affected · {summary.fixed} fixed · {summary.underInvestigation} under investigation
        </p>
      ) : null}
      <form class="filters" role="search" aria-label="Filter findings" onSubmit={(event) => event.preventDefault()}>
        <label>
          Search
          <input
            type="search"
            value={filters.search}
            onInput={(event) => update({ search: event.currentTarget.value })}
            placeholder="CVE, package or purl"
          />
        </label>
        <label>
          Severity
          <select value={filters.severity} onChange={(event) => update({ severity: event.currentTarget.value })}>
            <option value="">Any</option>
            <option value="critical">Critical</option>
            <option value="critical,high">High or critical</option>
            <option value="high">High</option>
            <option value="medium">Medium</option>
            <option value="low">Low</option>
            <option value="none">None</option>
          </select>
        </label>
        <label>
          Decision
          <select value={filters.status} onChange={(event) => update({ status: event.currentTarget.value })}>
            <option value="">Any</option>
            <option value="undisposed">No decision yet</option>
            {DISPOSITION_STATUSES.map((status) => (
              <option key={status} value={status}>
                {label(status)}
              </option>
            ))}
          </select>
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={filters.kev}
            onChange={(event) => update({ kev: event.currentTarget.checked })}
          />
          Known exploited (KEV)
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={filters.fixable}
            onChange={(event) => update({ fixable: event.currentTarget.checked })}
          />
          Has a fix
        </label>
        <label>
          Rows
          <select
            value={String(perPage)}
            onChange={(event) => {
              setPerPage(Number(event.currentTarget.value));
              setPage(1);
            }}
          >
            {[50, 100, 250, 500].map((count) => (
              <option key={count} value={String(count)}>
                {count}
              </option>
            ))}
          </select>
        </label>
      </form>
      {writable ? (
        <BulkDecision
          selected={selected}
          onDone={() => {
            setSelected(new Set());
            setChanges((value) => value + 1);
          }}
        />
      ) : null}
      {findings.errorCode === 'scan_pending' ? (
        <p class="muted" role="status">
          A scan of this release is still running; the findings appear when it is done.
        </p>
      ) : (
        <ErrorMessage message={findings.error} />
      )}
      <Loading when={findings.loading && !findings.data} />
      <div class="table-scroll">
        <table class="findings" aria-busy={findings.loading}>
          <caption class="visually-hidden">Findings of this release, sorted by {sort.key}</caption>
          <thead>
            <tr>
              {writable ? (
                <th scope="col">
                  <input
                    type="checkbox"
                    aria-label="Select every finding on this page"
                    checked={allOnPage}
                    onChange={togglePage}
                  />
                </th>
              ) : null}
              {sortButton('cve', 'Vulnerability')}
              {sortButton('component', 'Component')}
              {sortButton('severity', 'Severity')}
              {sortButton('cvss', 'CVSS')}
              {sortButton('epss', 'EPSS')}
              <th scope="col">KEV</th>
              <th scope="col">Fixed in</th>
              <th scope="col">Decision</th>
              <th scope="col">
                <span class="visually-hidden">Details</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <FindingRow
                key={row.id}
                row={row}
                selected={selected.has(row.id)}
                writable={writable}
                onToggle={toggle}
                onOpen={setOpen}
              />
            ))}
          </tbody>
        </table>
      </div>
      {findings.data && rows.length === 0 ? <p class="muted">No finding matches.</p> : null}
      <Pager meta={meta} onPage={setPage} label="Findings" />
      {open ? (
        <DispositionPanel
          finding={open}
          writable={writable}
          onClose={() => setOpen(undefined)}
          onSaved={() => setChanges((value) => value + 1)}
        />
      ) : null}
    </Section>
  );
}

/** A history value for people: text as is, anything else as JSON. */
function historyValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'string' ? label(value) : JSON.stringify(value);
}

interface FindingRowProps {
  row: Finding;
  selected: boolean;
  writable: boolean;
  onToggle: (id: string) => void;
  onOpen: (row: Finding) => void;
}

/** One row; memoised so that selecting a row re-renders that row, not the page of 500. */
const FindingRow = memo(function FindingRow({ row, selected, writable, onToggle, onOpen }: FindingRowProps) {
  return (
    <tr class={selected ? 'selected' : undefined}>
      {writable ? (
        <td>
          <input
            type="checkbox"
            aria-label={`Select ${row.cve_id} in ${row.component_name}`}
            checked={selected}
            onChange={() => onToggle(row.id)}
          />
        </td>
      ) : null}
      <td>
        <span class="mono">{row.cve_id}</span>
        {row.advisory_id !== row.cve_id ? <span class="muted small"> {row.advisory_id}</span> : null}
        <div class="small">{row.summary}</div>
      </td>
      <td>
        {row.component_name}
        <span class="muted"> {row.component_version ?? ''}</span>
      </td>
      <td>
        <span class={`sev sev-${row.severity.toLowerCase()}`}>{row.severity}</span>
      </td>
      <td>{cvssOf(row)}</td>
      <td>{row.epss_score === null ? '—' : `${(row.epss_score * 100).toFixed(1)}%`}</td>
      <td>
        {row.is_kev ? (
          <span class="badge danger" title={row.kev?.dueDate ? `CISA due date ${row.kev.dueDate}` : undefined}>
            KEV
          </span>
        ) : (
          'No'
        )}
      </td>
      <td class="small">{row.fixed_versions.join(', ') || '—'}</td>
      <td>
        {row.disposition ? (
          <span class={`status status-${row.disposition.status}`}>{label(row.disposition.status)}</span>
        ) : (
          <span class="muted">none</span>
        )}
        {row.disposition?.review_required ? <span class="badge warn">review</span> : null}
      </td>
      <td>
        <button
          type="button"
          class="link"
          onClick={() => onOpen(row)}
          aria-label={`Details of ${row.cve_id} in ${row.component_name}`}
        >
          Details
        </button>
      </td>
    </tr>
  );
});

function cvssOf(row: Finding): string {
  const score = row.cvss_v4_score ?? row.cvss_v3_score ?? row.cvss_v2_score;
  return score === null ? '—' : score.toFixed(1);
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

function BulkDecision({ selected, onDone }: { selected: Set<string>; onDone: () => void }) {
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

function DispositionPanel({
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
