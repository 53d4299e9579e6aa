import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, errorText } from '../api/client';
import { ErrorMessage, fieldText, Loading, Pager, Section, formatDate } from '../components';
import { must, useDebounced, useLoad, useTitle } from '../hooks';
import { can, useMe } from '../session';

export function ProductsPage() {
  useTitle('Products');
  const me = useMe();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const query = useDebounced(search.trim());
  const products = useLoad(
    () =>
      must(api.GET('/api/products', { params: { query: { page, perPage: 25, ...(query ? { search: query } : {}) } } })),
    [page, query],
  );
  return (
    <>
      <h1>Products</h1>
      <Section title="All products">
        <div class="toolbar">
          <label>
            Search products
            <input
              type="search"
              value={search}
              onInput={(event) => {
                setSearch(event.currentTarget.value);
                setPage(1);
              }}
              placeholder="Name or slug"
            />
          </label>
        </div>
        <ErrorMessage message={products.error} />
        <Loading when={products.loading && !products.data} />
        {products.data ? (
          products.data.data.length ? (
            <table>
              <caption class="visually-hidden">Products</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Slug</th>
                  <th scope="col">Vendor</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {products.data.data.map((product) => (
                  <tr key={product.id}>
                    <td>
                      <a href={`/products/${product.id}`}>{product.name}</a>
                    </td>
                    <td>
                      <code>{product.slug}</code>
                    </td>
                    <td>{product.vendor ?? '—'}</td>
                    <td>{formatDate(product.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="muted">{query ? 'No product matches.' : 'No products yet.'}</p>
          )
        ) : null}
        <Pager meta={products.data?.meta} onPage={setPage} label="Products" />
      </Section>
      {can(me, 'products:write') ? <CreateProduct /> : null}
    </>
  );
}

function CreateProduct() {
  const { route } = useLocation();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => fieldText(form, name);
    setBusy(true);
    setError(undefined);
    const { data, error: failure } = await api.POST('/api/products', {
      body: {
        name: text('name'),
        slug: text('slug'),
        ...(text('vendor') ? { vendor: text('vendor') } : {}),
        ...(text('description') ? { description: text('description') } : {}),
        cra_in_scope: form.get('cra_in_scope') === 'on',
      },
    });
    setBusy(false);
    if (data) route(`/products/${data.data.id}`);
    else setError(errorText(failure));
  };
  return (
    <Section title="New product">
      <form class="grid-form" onSubmit={(event) => void submit(event)}>
        <label>
          Name
          <input name="name" required maxLength={255} />
        </label>
        <label>
          Slug
          <input name="slug" required pattern="[a-z\-]+" title="Lower-case letters and hyphens" maxLength={255} />
        </label>
        <label>
          Vendor
          <input name="vendor" maxLength={255} />
        </label>
        <label class="wide">
          Description
          <textarea name="description" maxLength={5000} rows={2} />
        </label>
        <label class="check wide">
          <input type="checkbox" name="cra_in_scope" />
          Placed on the EU market (Cyber Resilience Act)
        </label>
        <ErrorMessage message={error} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Create product
          </button>
        </div>
      </form>
    </Section>
  );
}
