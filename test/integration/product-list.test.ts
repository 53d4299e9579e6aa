/**
 * The product list is cached per instance (shared/service/products/product-list-cache.ts), validated by the
 * team's list version on every request. These tests fill the server's cache, write, and list again:
 * a page or search served from a stale cache fails them. Writes come through HTTP (same instance)
 * and from this test process, which runs the same service code against the same table with its own
 * cache, as a second Lambda instance would: the server never hears of those writes except through
 * the version it reads. The reverse direction (this process caches, the server writes) is checked too.
 */
import { describe, expect, it } from '@jest/globals';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { Products } from '../../shared/service/products/products';
import { createTeamWithKey, uniqueSlug } from '../support/factories';

type ProductBody = { id: string; name: string; slug: string; description: string | null };
const idsOf = (body: { data: ProductBody[] }) => body.data.map((product) => product.id);

describe('product list after writes (cached pages never outlive a write)', () => {
  it('shows every create, update, rename and delete made through HTTP at once, in pages and in searches', async () => {
    const { api } = await createTeamWithKey();
    const created: ProductBody[] = [];
    for (const name of ['Alpha one', 'Beta two', 'Gamma three'])
      created.push((await api.post('/api/products', { name, slug: uniqueSlug() })).body.data);
    // Read each view twice: the second read is served from the cache.
    for (let round = 0; round < 2; round += 1) {
      expect(idsOf((await api.get('/api/products?perPage=100')).body)).toEqual([
        created[2]!.id,
        created[1]!.id,
        created[0]!.id,
      ]);
      expect((await api.get('/api/products?search=alpha')).body.meta.total).toBe(1);
    }

    // An update of a field only the full item holds (not the index entry).
    expect((await api.put(`/api/products/${created[0]!.id}`, { description: 'now described' })).status).toBe(200);
    const afterUpdate = (await api.get('/api/products?perPage=100')).body;
    expect(afterUpdate.data.find((product: ProductBody) => product.id === created[0]!.id)?.description).toBe(
      'now described',
    );

    // A rename moves the search matches.
    expect((await api.put(`/api/products/${created[1]!.id}`, { name: 'Alpha two' })).status).toBe(200);
    expect(idsOf((await api.get('/api/products?search=alpha')).body)).toEqual([created[1]!.id, created[0]!.id]);

    // A create heads the list and moves the total.
    const fresh = (await api.post('/api/products', { name: 'Alpha fresh', slug: uniqueSlug() })).body
      .data as ProductBody;
    const afterCreate = (await api.get('/api/products?perPage=100')).body;
    expect(afterCreate.meta.total).toBe(4);
    expect(afterCreate.data[0].id).toBe(fresh.id);
    expect((await api.get('/api/products?search=alpha')).body.meta.total).toBe(3);

    // A delete removes it from pages, searches and the total.
    expect((await api.delete(`/api/products/${created[0]!.id}`)).status).toBe(204);
    const afterDelete = (await api.get('/api/products?perPage=100')).body;
    expect(afterDelete.meta.total).toBe(3);
    expect(idsOf(afterDelete)).toEqual([fresh.id, created[2]!.id, created[1]!.id]);
    expect(idsOf((await api.get('/api/products?search=alpha')).body)).toEqual([fresh.id, created[1]!.id]);
  });

  it("shows writes made by another instance (this test process) on the server's next list, and the server's writes here", async () => {
    const { api, teamId } = await createTeamWithKey();
    const first = (await api.post('/api/products', { name: 'Remote one', slug: uniqueSlug() })).body
      .data as ProductBody;
    const second = (await api.post('/api/products', { name: 'Remote two', slug: uniqueSlug() })).body
      .data as ProductBody;
    const page = async () =>
      (await api.get('/api/products?perPage=100')).body as { data: ProductBody[]; meta: { total: number } };
    const search = async (needle: string) =>
      (await api.get(`/api/products?search=${encodeURIComponent(needle)}`)).body as {
        data: ProductBody[];
        meta: { total: number };
      };
    await page();
    await search('remote');

    // Update in another instance: the server's cached page and search attributes are stale now.
    await Products.update(teamId, OPERATOR_ACTOR, first.id, {
      name: 'Elsewhere renamed',
      description: 'set elsewhere',
    });
    expect((await page()).data.find((product) => product.id === first.id)).toMatchObject({
      name: 'Elsewhere renamed',
      description: 'set elsewhere',
    });
    expect(idsOf(await search('remote'))).toEqual([second.id]);
    expect(idsOf(await search('elsewhere'))).toEqual([first.id]);

    // Create and delete in another instance.
    const third = await Products.create(teamId, OPERATOR_ACTOR, { name: 'Remote three', slug: uniqueSlug() });
    expect(idsOf(await page())).toEqual([third.id, second.id, first.id]);
    await Products.delete(teamId, OPERATOR_ACTOR, second.id);
    expect(await page()).toMatchObject({ meta: { total: 2 } });
    expect(idsOf(await page())).toEqual([third.id, first.id]);
    expect(idsOf(await search('remote'))).toEqual([third.id]);

    // The other direction: this process caches, the server writes.
    const local = () => Products.list(teamId, { page: 1, perPage: 100 });
    await local();
    expect((await api.put(`/api/products/${third.id}`, { description: 'from the server' })).status).toBe(200);
    expect((await local()).data.find((product) => product.id === third.id)?.description).toBe('from the server');
  });

  it('answers the same pages to concurrent readers while another client writes (every answer matches a committed state)', async () => {
    const { api } = await createTeamWithKey();
    const base: ProductBody[] = [];
    for (let index = 0; index < 4; index += 1)
      base.push((await api.post('/api/products', { name: `Steady ${index}`, slug: uniqueSlug() })).body.data);
    const reads = Array.from({ length: 12 }, () => api.get('/api/products?perPage=100'));
    const writes = [
      api.post('/api/products', { name: 'Arriving', slug: uniqueSlug() }),
      api.put(`/api/products/${base[0]!.id}`, { description: 'changed' }),
    ];
    const [readResults, writeResults] = await Promise.all([Promise.all(reads), Promise.all(writes)]);
    for (const result of writeResults) expect([200, 201]).toContain(result.status);
    for (const result of readResults) {
      expect(result.status).toBe(200);
      // The total always agrees with the page it came with (no torn answer).
      expect(result.body.data).toHaveLength(result.body.meta.total);
    }
    // Once the writes are acknowledged, every later read shows both.
    const after = (await api.get('/api/products?perPage=100')).body;
    expect(after.meta.total).toBe(5);
    expect(after.data[0].name).toBe('Arriving');
    expect(after.data.find((product: ProductBody) => product.id === base[0]!.id)?.description).toBe('changed');
  });
});

describe('GET /api/products?slug= (exact lookup for find-or-create)', () => {
  it('finds the product holding a slug, follows renames and deletes, and answers an empty page otherwise', async () => {
    const { api } = await createTeamWithKey();
    const other = await createTeamWithKey();
    const slug = uniqueSlug('lookup');
    const product = (await api.post('/api/products', { name: 'Looked up', slug })).body.data as ProductBody;
    await api.post('/api/products', { name: 'Decoy', slug: `${slug}-decoy` });

    const found = await api.get(`/api/products?slug=${slug}`);
    expect(found.status).toBe(200);
    expect(found.body).toEqual({
      data: [expect.objectContaining({ id: product.id, slug, name: 'Looked up' })],
      meta: { page: 1, perPage: 25, total: 1, totalPages: 1, hasNextPage: false, hasPrevPage: false },
    });
    // Exact, not a substring: the decoy's slug contains this one.
    expect((await api.get(`/api/products?slug=${slug.slice(0, -2)}`)).body).toMatchObject({
      data: [],
      meta: { total: 0 },
    });
    // Another team's slug is not visible.
    expect((await other.api.get(`/api/products?slug=${slug}`)).body).toMatchObject({ data: [], meta: { total: 0 } });

    const renamed = uniqueSlug('renamed');
    expect((await api.put(`/api/products/${product.id}`, { slug: renamed })).status).toBe(200);
    expect((await api.get(`/api/products?slug=${slug}`)).body.meta.total).toBe(0);
    expect(idsOf((await api.get(`/api/products?slug=${renamed}`)).body)).toEqual([product.id]);

    expect((await api.delete(`/api/products/${product.id}`)).status).toBe(204);
    expect((await api.get(`/api/products?slug=${renamed}`)).body).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it('refuses a slug that cannot exist with 422 naming the parameter', async () => {
    const { api } = await createTeamWithKey();
    for (const slug of ['Upper', 'has_underscore', 'digits1', '']) {
      const response = await api.get(`/api/products?slug=${encodeURIComponent(slug)}`);
      expect(response.status).toBe(422);
      expect(response.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'slug' })]));
    }
  });
});
