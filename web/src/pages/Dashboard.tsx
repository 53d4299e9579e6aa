/**
 * The home page: the team at a glance (GET /api/dashboard). Known-exploited findings come first, then the
 * open counts, the products most at risk, the 30-day trend, the latest events and how fresh the
 * vulnerability data is (GET /api/corpus/status).
 */
import { api, type Schemas } from '../api/client';
import { ErrorMessage, Loading, Section, formatDate } from '../components';
import { must, useLoad, useTitle } from '../hooks';
import { LatestEvents } from './EventList';
import { PortfolioSearchForm } from './PortfolioSearch';
import { TrendChart } from './TrendChart';

type Dashboard = Schemas['Dashboard']['data'];

export function DashboardPage() {
  useTitle('Dashboard');
  const dashboard = useLoad(() => must(api.GET('/api/dashboard')), []);
  const data = dashboard.data?.data;
  return (
    <>
      <h1>Dashboard</h1>
      <PortfolioSearchForm />
      <ErrorMessage message={dashboard.error} />
      <Loading when={dashboard.loading && !dashboard.data} />
      {data ? (
        <>
          <KnownExploited data={data} />
          <Section title="Open findings">
            <OpenCounts data={data} />
          </Section>
          <Section title="Products most at risk">
            <TopProducts products={data.top_products} />
          </Section>
          <Section title="Last 30 days">
            <TrendChart trend={data.trend} today={data.generated_at.slice(0, 10)} />
          </Section>
        </>
      ) : null}
      <Section title="Latest events">
        <LatestEvents />
      </Section>
      <Section title="Vulnerability data">
        <CorpusFreshness />
      </Section>
    </>
  );
}

/** Open KEV first and prominent: these are exploited in the wild, and the clock of a report may be running. */
function KnownExploited({ data }: { data: Dashboard }) {
  const withKev = data.top_products.filter((product) => product.kev > 0);
  return (
    <section aria-labelledby="kev-heading" class={`card kev-callout${data.open_kev > 0 ? ' alarm' : ''}`}>
      <h2 id="kev-heading">Known exploited (CISA KEV)</h2>
      <p class="big-number">
        <strong>{data.open_kev}</strong> open {data.open_kev === 1 ? 'finding is' : 'findings are'} known to be
        exploited in the wild
      </p>
      {withKev.length ? (
        <ul class="inline-list">
          {withKev.map((product) => (
            <li key={product.product_id}>
              <a href={`/products/${product.product_id}`}>{product.name}</a>: {product.kev} KEV
            </li>
          ))}
        </ul>
      ) : data.open_kev > 0 ? null : (
        <p class="muted">Nothing the team ships is on the list today.</p>
      )}
    </section>
  );
}

function OpenCounts({ data }: { data: Dashboard }) {
  const facts: Array<[string, number, string?]> = [
    ['Open', data.open.total],
    ['Critical', data.open.critical, 'sev-critical'],
    ['High', data.open.high, 'sev-high'],
    ['Medium', data.open.medium, 'sev-medium'],
    ['Low', data.open.low],
    ['No severity', data.open.none],
    ['Without a decision', data.undecided],
    ['Past the SLA', data.sla.breached, data.sla.breached > 0 ? 'sev-critical' : undefined],
    ['Near the SLA (75 %)', data.sla.at_risk],
  ];
  return (
    <>
      <dl class="facts counts">
        {facts.map(([name, value, tone]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd class={tone}>{value}</dd>
          </div>
        ))}
      </dl>
      <p class="muted small">
        One per release, package and advisory, in active and deprecated releases (end-of-life releases are not watched).
        As of {formatDate(data.generated_at)}.
      </p>
    </>
  );
}

function TopProducts({ products }: { products: Dashboard['top_products'] }) {
  if (!products.length) return <p class="muted">No product has an open critical or known-exploited finding.</p>;
  return (
    <table>
      <caption class="visually-hidden">Products with the most open critical or known-exploited findings</caption>
      <thead>
        <tr>
          <th scope="col">Product</th>
          <th scope="col">KEV</th>
          <th scope="col">Critical</th>
          <th scope="col">Open</th>
        </tr>
      </thead>
      <tbody>
        {products.map((product) => (
          <tr key={product.product_id}>
            <th scope="row">
              <a href={`/products/${product.product_id}`}>{product.name}</a>
            </th>
            <td>{product.kev ? <span class="badge danger">{product.kev}</span> : 0}</td>
            <td>{product.critical}</td>
            <td>{product.open}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const SOURCE_NAMES = { osv: 'OSV', kev: 'CISA KEV', epss: 'EPSS' } as const;

/** "3 h ago": how old the last successful refresh of a feed is. */
export function age(since: string | null, now = Date.now()): string {
  if (!since) return 'never';
  const minutes = Math.max(0, Math.round((now - Date.parse(since)) / 60_000));
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 48 * 60) return `${Math.round(minutes / 60)} h ago`;
  return `${Math.round(minutes / 1440)} days ago`;
}

function CorpusFreshness() {
  const status = useLoad(() => must(api.GET('/api/corpus/status')), []);
  const data = status.data?.data;
  return (
    <>
      <ErrorMessage message={status.error} />
      <Loading when={status.loading && !status.data} />
      {data ? (
        <>
          <p>
            Corpus version: <code>{data.corpus_version ?? 'none yet'}</code>
          </p>
          {data.sources.length ? (
            <table>
              <caption class="visually-hidden">Last successful refresh of each feed</caption>
              <thead>
                <tr>
                  <th scope="col">Feed</th>
                  <th scope="col">Last success</th>
                  <th scope="col">Records</th>
                  <th scope="col">Last attempt</th>
                </tr>
              </thead>
              <tbody>
                {data.sources.map((source) => (
                  <tr key={`${source.source}:${source.ecosystem ?? ''}`}>
                    <th scope="row">
                      {SOURCE_NAMES[source.source]}
                      {source.ecosystem ? ` ${source.ecosystem}` : ''}
                    </th>
                    <td>
                      {formatDate(source.last_success_at)}{' '}
                      <span class="muted small">({age(source.last_success_at)})</span>
                    </td>
                    <td>{source.records ?? '—'}</td>
                    <td>
                      {source.last_error ? (
                        <span class="sev-critical">Failed: {source.last_error}</span>
                      ) : (
                        formatDate(source.last_attempt_at)
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="muted">
              No scheduled refresh has run yet (locally the corpus comes from <code>admin corpus import</code>).
            </p>
          )}
        </>
      ) : null}
    </>
  );
}
