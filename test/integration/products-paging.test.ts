/** The product list: paging, search, newest first, and the list index (backfilled for old products, built in bounded steps). */
import { describe, expect, it } from '@jest/globals';

import { randomUUID } from 'node:crypto';

import { keys } from '../../shared/service/data/keys';

import { batchWrite, getItem, queryAll } from '../../shared/service/data/table-client';

import { productItem } from '../../shared/service/products/product-store';

import { createTeamWithKey, uniqueSlug } from '../support/factories';

describe('products', () => {
  it('pages with page/perPage (default 25, max 100) and searches name or slug case-insensitively', async () => {
    const { api } = await createTeamWithKey();
    for (let index = 0; index < 30; index += 1) {
      const name = index % 10 === 0 ? `Special Gadget ${index}` : `Plain ${index}`;
      expect(
        (await api.post('/api/products', { name, slug: uniqueSlug(index === 5 ? 'gadget' : 'plain') })).status,
      ).toBe(201);
    }
    const first = await api.get('/api/products');
    expect(first.body.data).toHaveLength(25);
    expect(first.body.meta).toEqual({
      page: 1,
      perPage: 25,
      total: 30,
      totalPages: 2,
      hasNextPage: true,
      hasPrevPage: false,
    });
    const second = await api.get('/api/products?page=2');
    expect(second.body.data).toHaveLength(5);
    const ids = new Set([...first.body.data, ...second.body.data].map((product: { id: string }) => product.id));
    expect(ids.size).toBe(30);
    const search = await api.get('/api/products?search=GADGET&perPage=100');
    expect(search.body.meta.total).toBe(4);
    expect((await api.get('/api/products?perPage=101')).status).toBe(422);
    expect((await api.get('/api/products?perPage=0')).status).toBe(422);
    expect((await api.get('/api/products?page=abc')).status).toBe(422);
  });

  it('lists newest first with the spec meta, and a search, a rename and a delete move the total and the matches', async () => {
    const { api } = await createTeamWithKey();
    const created: { id: string; slug: string }[] = [];
    for (let index = 0; index < 5; index += 1) {
      created.push(
        (await api.post('/api/products', { name: `Item ${index}`, slug: uniqueSlug(index === 2 ? 'lamp' : 'item') }))
          .body.data,
      );
    }
    const all = await api.get('/api/products?perPage=2&page=2');
    expect(all.body.meta).toEqual({
      page: 2,
      perPage: 2,
      total: 5,
      totalPages: 3,
      hasNextPage: true,
      hasPrevPage: true,
    });
    expect(all.body.data.map((product: { id: string }) => product.id)).toEqual([created[2]!.id, created[1]!.id]);
    expect((await api.get('/api/products?search=lamp')).body.data.map((product: { id: string }) => product.id)).toEqual(
      [created[2]!.id],
    );
    expect((await api.put(`/api/products/${created[3]!.id}`, { name: 'Desk LAMP' })).status).toBe(200);
    expect((await api.get('/api/products?search=lamp')).body.meta.total).toBe(2);
    expect((await api.get('/api/products?search=item%203')).body.meta.total).toBe(0);
    expect((await api.delete(`/api/products/${created[2]!.id}`)).status).toBe(204);
    const after = await api.get('/api/products');
    expect(after.body.meta.total).toBe(4);
    expect(after.body.data.map((product: { id: string }) => product.id)).toEqual([
      created[4]!.id,
      created[3]!.id,
      created[1]!.id,
      created[0]!.id,
    ]);
    const beyond = await api.get('/api/products?page=9');
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual({
      data: [],
      meta: { page: 9, perPage: 25, total: 4, totalPages: 1, hasNextPage: false, hasPrevPage: true },
    });
  });

  it('counts and lists products stored before the list index existed (backfilled once, idempotently)', async () => {
    // Arrange: product items as an older version wrote them (product and slug claim only), next to one made through the API.
    const { api, teamId } = await createTeamWithKey();
    const legacy = Array.from({ length: 3 }, (_, index) => {
      const createdAt = new Date(Date.UTC(2025, 0, 1 + index)).toISOString();
      return {
        id: randomUUID(),
        teamId,
        name: `Legacy ${index}`,
        slug: uniqueSlug('legacy'),
        description: null,
        vendor: null,
        websiteUrl: null,
        repositoryUrl: null,
        craInScope: false,
        createdAt,
        updatedAt: createdAt,
        revision: 1,
        deletingAt: null,
      };
    });
    await batchWrite(
      legacy.flatMap((product) => [
        productItem(product),
        { ...keys.productSlugClaim(teamId, product.slug), entity: 'ProductSlugClaim', productId: product.id },
      ]),
    );
    await getItem(keys.productCount(teamId)).then((count) => expect(count).toBeUndefined());
    const fresh = (await api.post('/api/products', { name: 'Fresh', slug: uniqueSlug() })).body.data;

    // Act: concurrent first reads all build (or wait for) the index.
    const lists = await Promise.all(Array.from({ length: 4 }, () => api.get('/api/products?perPage=100')));

    // Assert: every product is counted once, in order, and the index holds one entry each.
    for (const list of lists) {
      expect(list.status).toBe(200);
      expect(list.body.meta.total).toBe(4);
      expect(list.body.data.map((product: { id: string }) => product.id)).toEqual([
        fresh.id,
        legacy[2]!.id,
        legacy[1]!.id,
        legacy[0]!.id,
      ]);
    }
    expect(
      (await queryAll(keys.productListPartition(teamId))).filter((item) => item.entity === 'ProductListEntry'),
    ).toHaveLength(4);
    expect(await getItem(keys.productCount(teamId))).toMatchObject({ productCount: 4, indexed: true });
    expect((await api.get('/api/products?search=legacy')).body.meta.total).toBe(3);
    expect((await api.delete(`/api/products/${legacy[0]!.id}`)).status).toBe(204);
    expect((await api.get('/api/products')).body.meta.total).toBe(3);
  });

  it("answers correctly while a large team's index is built over several reads (bounded writes per request)", async () => {
    // Arrange: more legacy products than one request indexes (2,000).
    const { api, teamId } = await createTeamWithKey();
    const legacy = Array.from({ length: 2_010 }, (_, index) => {
      const createdAt = new Date(Date.UTC(2025, 0, 1) + index * 1000).toISOString();
      return {
        id: randomUUID(),
        teamId,
        name: `Legacy ${index}`,
        slug: `legacy-${index.toString(26).replace(/[0-9]/g, (digit) => 'qrstuvwxyz'[Number(digit)] ?? 'q')}`,
        description: null,
        vendor: null,
        websiteUrl: null,
        repositoryUrl: null,
        craInScope: false,
        createdAt,
        updatedAt: createdAt,
        revision: 1,
        deletingAt: null,
      };
    });
    await batchWrite(legacy.map(productItem), [], { concurrency: 8 });
    const newest = [...legacy]
      .reverse()
      .slice(0, 3)
      .map((product) => product.id);

    // Act / Assert: the first read answers from the products (index unfinished), the second completes the index.
    const first = await api.get('/api/products?perPage=3');
    expect(first.body.meta.total).toBe(2_010);
    expect(first.body.data.map((product: { id: string }) => product.id)).toEqual(newest);
    expect((await getItem(keys.productCount(teamId)))?.indexed).toBeUndefined();
    const second = await api.get('/api/products?perPage=3');
    expect(second.body.meta.total).toBe(2_010);
    expect(second.body.data.map((product: { id: string }) => product.id)).toEqual(newest);
    expect(await getItem(keys.productCount(teamId))).toMatchObject({ productCount: 2_010, indexed: true });
    expect(
      (await api.get('/api/products?perPage=100&page=21')).body.data.map((product: { id: string }) => product.id),
    ).toEqual(
      legacy
        .slice(0, 10)
        .reverse()
        .map((product) => product.id),
    );
  });
});
