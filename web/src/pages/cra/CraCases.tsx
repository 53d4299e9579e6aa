/** The CRA reporting page: every Article 14 case of the team, soonest deadline first, with live countdowns. */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { ColumnHeads, ErrorMessage, Loading, Pager, Section } from '../../components';
import { must, useLoad, useTitle } from '../../hooks';
import { label } from '../../labels';
import { can, useMe } from '../../session';
import { CRA_STAGES, CRA_STATUSES, Deadline, LIVE_STATUSES, StatusBadge, STAGE_TITLE, useNow } from './Deadline';

const LIVE = 'live';
const ALL = 'all';

export function CraCasesPage() {
  useTitle('CRA reporting');
  const me = useMe();
  return (
    <>
      <h1>CRA reporting</h1>
      <p class="muted">
        Cases under Article 14 of the Cyber Resilience Act open by themselves when a vulnerability in a product on the
        EU market is actively exploited. Vexdesk keeps the clocks and drafts the reports; a person submits them to the
        single reporting platform and records the reference here. Not legal advice.
      </p>
      {can(me, 'cra:read') ? <Cases /> : <p class="notice">Reading CRA cases needs the cra:read scope.</p>}
    </>
  );
}

function Cases() {
  const [status, setStatus] = useState(LIVE);
  const [productId, setProductId] = useState('');
  const [page, setPage] = useState(1);
  const now = useNow();
  const products = useLoad(() => must(api.GET('/api/products', { params: { query: { perPage: 100 } } })), []);
  const statusQuery = status === LIVE ? LIVE_STATUSES.join(',') : status === ALL ? undefined : status;
  const cases = useLoad(
    () =>
      must(
        api.GET('/api/cra/cases', {
          params: {
            query: {
              page,
              perPage: 50,
              ...(statusQuery ? { status: statusQuery } : {}),
              ...(productId ? { productId } : {}),
            },
          },
        }),
      ),
    [statusQuery, productId, page],
  );
  return (
    <Section title="Cases">
      <div class="filters">
        <label>
          Status
          <select
            value={status}
            onChange={(event) => {
              setStatus(event.currentTarget.value);
              setPage(1);
            }}
          >
            <option value={LIVE}>Open (still reporting)</option>
            <option value={ALL}>All</option>
            {CRA_STATUSES.map((value) => (
              <option key={value} value={value}>
                {label(value)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Product
          <select
            value={productId}
            onChange={(event) => {
              setProductId(event.currentTarget.value);
              setPage(1);
            }}
          >
            <option value="">All products</option>
            {(products.data?.data ?? []).map((product) => (
              <option key={product.id} value={product.id}>
                {product.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorMessage message={cases.error} />
      <Loading when={cases.loading && !cases.data} />
      {cases.data?.data.length === 0 ? (
        <p class="muted">
          No case{status === LIVE ? ' is open' : ' matches'}. Cases open for products marked as placed on the EU market
          (product page) when one of their advisories is actively exploited.
        </p>
      ) : null}
      {cases.data?.data.length ? (
        <div class="table-scroll">
          <table class="cra-cases">
            <caption class="visually-hidden">CRA cases, soonest deadline first</caption>
            <ColumnHeads
              names={[
                'Vulnerability',
                'Product',
                'Status',
                'Affected releases',
                ...CRA_STAGES.map((s) => STAGE_TITLE[s]),
              ]}
            />
            <tbody>
              {cases.data.data.map((craCase) => (
                <tr key={craCase.id}>
                  <td>
                    <a href={`/cra/${craCase.id}`}>{craCase.vulnerability_id}</a>
                    {craCase.aliases.length ? <div class="muted small">{craCase.aliases.join(', ')}</div> : null}
                  </td>
                  <td>{craCase.product_name}</td>
                  <td>
                    <StatusBadge status={craCase.status} />
                  </td>
                  <td>{craCase.affected_releases.map((release) => release.version).join(', ')}</td>
                  {CRA_STAGES.map((stage) => (
                    <td key={stage}>
                      <Deadline craCase={craCase} stage={stage} now={now} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager meta={cases.data?.meta} onPage={setPage} label="CRA cases" />
    </Section>
  );
}
