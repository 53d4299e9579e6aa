import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, errorText, type Schemas } from '../api/client';
import { ErrorMessage, fieldText, Loading, Notice, Pager, Section, formatDate } from '../components';
import { must, useDebounced, useLoad, useSaveResult, useTitle } from '../hooks';
import { can, useMe } from '../session';

export function ProductPage({ productId }: { productId: string }) {
  const me = useMe();
  const product = useLoad(
    () => must(api.GET('/api/products/{productId}', { params: { path: { productId } } })),
    [productId],
  );
  useTitle(product.data?.data.name ?? 'Product');
  return (
    <>
      <p class="crumbs">
        <a href="/products">Products</a> /
      </p>
      <h1>{product.data?.data.name ?? 'Product'}</h1>
      {product.data?.data.cra_in_scope ? (
        <p class="muted">
          On the EU market: CRA Article 14 applies (<a href="/cra">CRA reporting</a>).
        </p>
      ) : null}
      <ErrorMessage message={product.error} />
      <Loading when={product.loading && !product.data} />
      {product.data ? (
        <>
          <Releases productId={productId} />
          {can(me, 'releases:write') ? <CreateRelease productId={productId} /> : null}
          {can(me, 'products:write') ? <EditProduct product={product.data.data} onSaved={product.reload} /> : null}
        </>
      ) : null}
    </>
  );
}

function Releases({ productId }: { productId: string }) {
  const [version, setVersion] = useState('');
  const [page, setPage] = useState(1);
  const versionQuery = useDebounced(version.trim());
  const releases = useLoad(
    () =>
      must(
        api.GET('/api/products/{productId}/releases', {
          params: {
            path: { productId },
            query: { page, perPage: 25, ...(versionQuery ? { version: versionQuery } : {}) },
          },
        }),
      ),
    [productId, page, versionQuery],
  );
  return (
    <Section title="Releases">
      <div class="toolbar">
        <label>
          Find a version
          <input
            type="search"
            value={version}
            onInput={(event) => {
              setVersion(event.currentTarget.value);
              setPage(1);
            }}
          />
        </label>
      </div>
      <ErrorMessage message={releases.error} />
      {releases.data ? (
        releases.data.data.length ? (
          <table>
            <caption class="visually-hidden">Releases</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Locked</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {releases.data.data.map((release) => (
                <tr key={release.id}>
                  <td>
                    <a href={`/releases/${release.id}`}>{release.version}</a>
                  </td>
                  <td>{release.name ?? '—'}</td>
                  <td>{release.status}</td>
                  <td>{release.is_locked ? 'Locked' : 'No'}</td>
                  <td>{formatDate(release.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p class="muted">No releases{versionQuery ? ' match' : ' yet'}.</p>
        )
      ) : null}
      <Pager meta={releases.data?.meta} onPage={setPage} label="Releases" />
    </Section>
  );
}

function CreateRelease({ productId }: { productId: string }) {
  const { route } = useLocation();
  const [error, setError] = useState<string>();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => fieldText(form, name);
    const { data, error: failure } = await api.POST('/api/products/{productId}/releases', {
      params: { path: { productId } },
      body: {
        version: text('version'),
        ...(text('name') ? { name: text('name') } : {}),
        ...(text('releaseDate') ? { releaseDate: text('releaseDate') } : {}),
      },
    });
    if (data) route(`/releases/${data.data.id}`);
    else setError(errorText(failure));
  };
  return (
    <Section title="New release">
      <form class="grid-form" onSubmit={(event) => void submit(event)}>
        <label>
          Version
          <input name="version" required maxLength={100} />
        </label>
        <label>
          Name
          <input name="name" maxLength={255} />
        </label>
        <label>
          Release date
          <input name="releaseDate" type="date" />
        </label>
        <ErrorMessage message={error} />
        <div class="actions">
          <button type="submit" class="primary">
            Create release
          </button>
        </div>
      </form>
    </Section>
  );
}

function EditProduct({ product, onSaved }: { product: Schemas['Product']; onSaved: () => void }) {
  const { error, notice, start, settle } = useSaveResult();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => fieldText(form, name);
    start();
    const { error: failure } = await api.PUT('/api/products/{productId}', {
      params: { path: { productId: product.id } },
      body: {
        name: text('name'),
        vendor: text('vendor') || null,
        description: text('description') || null,
        cra_in_scope: form.get('cra_in_scope') === 'on',
      },
    });
    settle(failure, 'Saved.', onSaved);
  };
  return (
    <Section title="Edit product">
      {/* Fields hold what the user types (default*, not controlled: a re-render of the page, when its releases
          load, must not put the stored values back); a saved change gives the form a new key and fresh defaults. */}
      <form key={product.updated_at} class="grid-form" onSubmit={(event) => void submit(event)}>
        <label>
          Name
          <input name="name" required maxLength={255} defaultValue={product.name} />
        </label>
        <label>
          Vendor
          <input name="vendor" maxLength={255} defaultValue={product.vendor ?? ''} />
        </label>
        <label class="wide">
          Description
          <textarea name="description" maxLength={5000} rows={2} defaultValue={product.description ?? ''} />
        </label>
        <label class="check wide">
          <input type="checkbox" name="cra_in_scope" defaultChecked={product.cra_in_scope} />
          Placed on the EU market (Cyber Resilience Act): actively exploited vulnerabilities in its active and
          deprecated releases open CRA reporting cases
        </label>
        <ErrorMessage message={error} />
        <div class="actions">
          <button type="submit">Save product</button>
          <Notice message={notice} />
        </div>
      </form>
    </Section>
  );
}
