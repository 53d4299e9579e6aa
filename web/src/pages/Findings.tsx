/**
 * A release's findings: the server pages, filters and sorts (GET /api/releases/{id}/vulnerabilities,
 * at most 500 rows a page), so the table holds one page whatever the release's size (5,000 findings
 * are ten pages of 500, or fifty of 100). Selection survives paging; a bulk decision goes through
 * POST /api/dispositions/batch (500 at a time).
 */
import { memo } from 'preact/compat';
import { useCallback, useState } from 'preact/hooks';
import { api, type Schemas } from '../api/client';
import { ErrorMessage, Loading, Pager, Section, formatDate } from '../components';
import { must, useDebounced, useLoad } from '../hooks';
import { can, useMe } from '../session';
import { label } from '../labels';
// The disposition vocabulary the service validates against (one plain module, no zod): the forms offer the same values.
import { DISPOSITION_STATUSES } from '../../../shared/service/dispositions/vocabulary';
import { BulkDecision, DispositionPanel } from './FindingDecisions';

type Finding = Schemas['ReleaseVulnerability'];

type SortKey = 'severity' | 'epss' | 'cvss' | 'component' | 'cve' | 'first_detected';

interface Filters {
  severity: string;
  status: string;
  kev: boolean;
  fixable: boolean;
  search: string;
  state: 'open' | 'resolved' | 'all';
}

export function Findings({
  releaseId,
  version,
  locked,
  initialSearch = '',
}: {
  releaseId: string;
  version: number;
  locked: boolean;
  /** From the page's `?q=` (the dashboard's event links name the advisory). */
  initialSearch?: string;
}) {
  const me = useMe();
  const writable = can(me, 'dispositions:write') && !locked;
  const [filters, setFilters] = useState<Filters>({
    severity: '',
    status: '',
    kev: false,
    fixable: false,
    search: initialSearch,
    state: 'open',
  });
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
              state: filters.state,
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
      filters.state,
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
          State
          <select
            value={filters.state}
            onChange={(event) => update({ state: event.currentTarget.value as Filters['state'] })}
          >
            <option value="open">Open</option>
            <option value="resolved">Resolved (no longer detected)</option>
            <option value="all">All</option>
          </select>
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
        {row.detected_by === 'corpus_update' ? (
          <div class="small">
            <span class="badge new">New since upload</span> found by the corpus watch{' '}
            {formatDate(row.first_detected_at)}
          </div>
        ) : null}
        {row.state === 'resolved' ? (
          <div class="small">
            <span class="badge">Resolved</span> {formatDate(row.resolved_at)}
            {row.resolved_reason ? `: ${label(row.resolved_reason)}` : ''}
          </div>
        ) : null}
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
