/**
 * One search box for "advisory id or package" (docs/portfolio.md): where is the team affected by an
 * advisory, whatever it is called, and where does it ship a package. The box sits on the dashboard; its
 * answers are the page `/search?q=…&ecosystem=…`, so they can be linked and reloaded.
 */
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api } from '../api/client';
import { ErrorMessage, Loading, Pager, Section } from '../components';
import { must, useLoad, useTitle } from '../hooks';
import { label } from '../labels';
import { productNames } from '../names';
import { classifySearch, SEARCH_HINT, type SearchInput } from '../search-input';
// The ecosystems the service accepts (a plain module, no zod): the select offers the same values.
import { ECOSYSTEMS } from '../../../shared/service/matching/ecosystems';

const PER_PAGE = 50;

export function PortfolioSearchForm({ query = '', ecosystem = '' }: { query?: string; ecosystem?: string }) {
  const { route } = useLocation();
  const [text, setText] = useState(query);
  const [chosen, setChosen] = useState(ecosystem);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const params = new URLSearchParams({ q: text.trim() });
    if (chosen) params.set('ecosystem', chosen);
    route(`/search?${params.toString()}`);
  };
  return (
    <form class="filters portfolio-search" role="search" aria-label="Advisory or package" onSubmit={submit}>
      <label class="grow">
        Advisory id or package
        <input
          type="search"
          name="q"
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          placeholder="CVE-2021-44228, GHSA-…, pkg:npm/lodash, or a package name"
          aria-describedby="portfolio-search-hint"
          maxLength={2048}
        />
      </label>
      <label>
        Ecosystem (for a name)
        <select value={chosen} onChange={(event) => setChosen(event.currentTarget.value)}>
          <option value="">—</option>
          {ECOSYSTEMS.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="primary">
        Search
      </button>
      <p id="portfolio-search-hint" class="muted small wide">
        {SEARCH_HINT}
      </p>
    </form>
  );
}

export function SearchPage() {
  const { query } = useLocation();
  const q = query.q ?? '';
  const ecosystem = query.ecosystem ?? '';
  const input = classifySearch(q, ecosystem);
  useTitle(q ? `Search: ${q}` : 'Search');
  return (
    <>
      <h1>Search the portfolio</h1>
      <PortfolioSearchForm key={`${q}\n${ecosystem}`} query={q} ecosystem={ecosystem} />
      <SearchResults key={`${q}\n${ecosystem}`} input={input} />
    </>
  );
}

function SearchResults({ input }: { input: SearchInput }) {
  switch (input.kind) {
    case 'advisory':
      return <AdvisoryResults advisory={input.advisory} />;
    case 'purl':
      return <ComponentResults query={{ purl: input.purl }} title={`Releases shipping ${input.purl}`} />;
    case 'package':
      return (
        <ComponentResults
          query={{ ecosystem: input.ecosystem, name: input.name }}
          title={`Releases shipping ${input.ecosystem} ${input.name}`}
        />
      );
    case 'unclear':
      return (
        <p class="error" role="alert">
          {input.hint}
        </p>
      );
    case 'empty':
      return null;
  }
}

function AdvisoryResults({ advisory }: { advisory: string }) {
  const [state, setState] = useState<'open' | 'resolved' | 'all'>('open');
  const [page, setPage] = useState(1);
  const findings = useLoad(async () => {
    const answer = await must(
      api.GET('/api/vulnerabilities', { params: { query: { advisory, state, page, perPage: PER_PAGE } } }),
    );
    return { answer, products: await productNames(answer.data.map((row) => row.product_id)) };
  }, [advisory, state, page]);
  const rows = findings.data?.answer.data ?? [];
  const searched = findings.data?.answer.advisory_ids ?? [];
  return (
    <Section title={`Findings of ${advisory}`} id="advisory-results">
      <div class="toolbar">
        <label>
          Findings
          <select
            value={state}
            onChange={(event) => {
              setState(event.currentTarget.value as typeof state);
              setPage(1);
            }}
          >
            <option value="open">Open</option>
            <option value="resolved">Resolved</option>
            <option value="all">All</option>
          </select>
        </label>
      </div>
      {searched.length > 1 ? <p class="muted small">Searched under every alias: {searched.join(', ')}</p> : null}
      <ErrorMessage message={findings.error} />
      <Loading when={findings.loading && !findings.data} />
      {findings.data && rows.length === 0 ? (
        <p class="muted">No {state === 'all' ? '' : `${state} `}finding of this advisory in the team's releases.</p>
      ) : null}
      {rows.length ? (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Findings of {advisory} across products and releases</caption>
            <thead>
              <tr>
                <th scope="col">Release</th>
                <th scope="col">Vulnerability</th>
                <th scope="col">Component</th>
                <th scope="col">Severity</th>
                <th scope="col">KEV</th>
                <th scope="col">Decision</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id}>
                  <th scope="row">
                    <a href={`/releases/${row.release_id}?q=${encodeURIComponent(row.cve_id)}`}>
                      {findings.data?.products.get(row.product_id) ?? 'Product'} {row.release_version}
                    </a>
                  </th>
                  <td>
                    <span class="mono">{row.cve_id}</span>
                    {row.advisory_id !== row.cve_id ? <span class="muted small"> {row.advisory_id}</span> : null}
                  </td>
                  <td>
                    {row.component_name}
                    <span class="muted"> {row.component_version ?? ''}</span>
                  </td>
                  <td>
                    <span class={`sev sev-${row.severity.toLowerCase()}`}>{row.severity}</span>
                  </td>
                  <td>{row.is_kev ? <span class="badge danger">KEV</span> : 'No'}</td>
                  <td>{row.disposition ? label(row.disposition.status) : <span class="muted">none</span>}</td>
                  <td>{row.state === 'resolved' ? `resolved (${label(row.resolved_reason ?? '')})` : 'open'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager meta={findings.data?.answer.meta} onPage={setPage} label="Findings" />
    </Section>
  );
}

function ComponentResults({
  query,
  title,
}: {
  query: { purl: string } | { ecosystem: string; name: string };
  title: string;
}) {
  const [page, setPage] = useState(1);
  const usage = useLoad(
    () => must(api.GET('/api/components', { params: { query: { ...query, page, perPage: PER_PAGE } } })),
    [page],
  );
  const rows = usage.data?.data ?? [];
  return (
    <Section title={title} id="component-results">
      <ErrorMessage message={usage.error} />
      <Loading when={usage.loading && !usage.data} />
      {usage.data && rows.length === 0 ? <p class="muted">No SBOM of the team contains this package.</p> : null}
      {rows.length ? (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Releases and SBOMs containing the package</caption>
            <thead>
              <tr>
                <th scope="col">Release</th>
                <th scope="col">Status</th>
                <th scope="col">Versions</th>
                <th scope="col">As listed in the SBOM</th>
                <th scope="col">Matched by</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.sbom_id}>
                  <th scope="row">
                    <a href={`/releases/${row.release.id}`}>
                      {row.product.name} {row.release.version}
                    </a>
                  </th>
                  <td>{row.release.status}</td>
                  <td>{row.versions.join(', ') || '—'}</td>
                  <td class="small mono">{(row.purls.length ? row.purls : row.component_names).join('\n')}</td>
                  <td>{row.matched_by === 'package' ? 'package URL' : 'name only'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager meta={usage.data?.meta} onPage={setPage} label="Releases" />
    </Section>
  );
}
