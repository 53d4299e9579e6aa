import { readAuditLog } from '../../shared/service/audit/audit-read';
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { keys } from '../../shared/service/data/keys';
import { batchWrite, getItem, queryAll } from '../../shared/service/data/table-client';
import { productItem } from '../../shared/service/products/product-store';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { request } from '../support/http-client';

describe('products', () => {
  it('creates a product and returns 201 with id, name and slug', async () => {
    const { api } = await createTeamWithKey();
    const slug = uniqueSlug();
    const response = await api.post('/api/products', {
      name: 'Widget',
      slug,
      vendor: 'ACME',
      websiteUrl: 'https://acme.example',
      repositoryUrl: 'git+ssh://git@example.com/acme/widget.git',
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      name: 'Widget',
      slug,
      vendor: 'ACME',
      websiteUrl: 'https://acme.example',
    });
    expect(response.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it.each([
    ['uppercase letters', 'Widget'],
    ['digits', 'widget2'],
    ['underscores', 'my_widget'],
    ['spaces', 'my widget'],
    ['an empty string', ''],
  ])('rejects a slug with %s with 422 and the field path', async (_label, slug) => {
    const { api } = await createTeamWithKey();
    const response = await api.post('/api/products', { name: 'Widget', slug });
    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'slug' })]));
  });

  it('accepts a slug of lowercase letters and hyphens only', async () => {
    const { api } = await createTeamWithKey();
    expect((await api.post('/api/products', { name: 'W', slug: 'a-b-c' })).status).toBe(201);
  });

  it.each([
    ['name', { name: 'x'.repeat(256) }],
    ['name', { name: undefined }],
    ['vendor', { vendor: 'x'.repeat(256) }],
    ['description', { description: 'x'.repeat(5001) }],
    ['websiteUrl', { websiteUrl: 'not a url' }],
    ['websiteUrl', { websiteUrl: 'javascript:alert(1)' }],
    ['repositoryUrl', { repositoryUrl: 'ftp://example.com/repo' }],
    ['unknownField', { unknownField: true }],
  ])('rejects an invalid %s with 422', async (path, overrides) => {
    const { api } = await createTeamWithKey();
    const response = await api.post('/api/products', { name: 'Widget', slug: uniqueSlug(), ...overrides });
    expect(response.status).toBe(422);
    const paths = (response.body.error.details as { path: string }[]).map((detail) => detail.path);
    expect(paths.join(' ')).toContain(path === 'unknownField' ? '' : path);
    expect(response.body.error.requestId).toBeTruthy();
  });

  it('accepts limits exactly at the maximum', async () => {
    const { api } = await createTeamWithKey();
    const response = await api.post('/api/products', {
      name: 'n'.repeat(255),
      slug: uniqueSlug(),
      vendor: 'v'.repeat(255),
      description: 'd'.repeat(5000),
    });
    expect(response.status).toBe(201);
  });

  it('returns 409 for a duplicate slug in the same team but allows it in another team', async () => {
    const teamA = await createTeamWithKey();
    const teamB = await createTeamWithKey();
    const slug = uniqueSlug();
    expect((await teamA.api.post('/api/products', { name: 'One', slug })).status).toBe(201);
    const duplicate = await teamA.api.post('/api/products', { name: 'Two', slug });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('slug_taken');
    expect((await teamB.api.post('/api/products', { name: 'Other team', slug })).status).toBe(201);
  });

  it('gives exactly one winner when the same slug is created concurrently', async () => {
    const { api } = await createTeamWithKey();
    const slug = uniqueSlug();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) => api.post('/api/products', { name: `P${index}`, slug })),
    );
    expect(results.filter((result) => result.status === 201)).toHaveLength(1);
    expect(results.filter((result) => result.status === 409)).toHaveLength(7);
  });

  it('updates only the supplied fields and can clear an optional one with null', async () => {
    const { api } = await createTeamWithKey();
    const created = (
      await api.post('/api/products', { name: 'Widget', slug: uniqueSlug(), vendor: 'ACME', description: 'old' })
    ).body.data;
    const updated = await api.put(`/api/products/${created.id}`, { description: 'new' });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Widget', vendor: 'ACME', description: 'new', slug: created.slug });
    const cleared = await api.put(`/api/products/${created.id}`, { vendor: null });
    expect(cleared.body.data.vendor).toBeNull();
    expect((await api.get(`/api/products/${created.id}`)).body.data).toMatchObject({
      description: 'new',
      vendor: null,
    });
  });

  it('renames the slug on update and frees the old one', async () => {
    const { api } = await createTeamWithKey();
    const oldSlug = uniqueSlug();
    const newSlug = uniqueSlug();
    const created = (await api.post('/api/products', { name: 'Widget', slug: oldSlug })).body.data;
    expect((await api.put(`/api/products/${created.id}`, { slug: newSlug })).status).toBe(200);
    expect((await api.post('/api/products', { name: 'Reuse', slug: oldSlug })).status).toBe(201);
    expect((await api.post('/api/products', { name: 'Clash', slug: newSlug })).status).toBe(409);
  });

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

  it('applies concurrent partial updates of different fields without a conflict, and every field ends up set', async () => {
    // Arrange
    const { api, teamId } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'Widget', slug: uniqueSlug() })).body.data;
    const fields = ['name', 'description', 'vendor', 'websiteUrl', 'repositoryUrl'] as const;
    const value = (field: (typeof fields)[number], round: number) =>
      field.endsWith('Url') ? `https://example.com/${field}/${round}` : `${field} ${round}`;

    // Act: five clients, each changing its own field, four rounds each.
    const statuses: number[] = [];
    await Promise.all(
      fields.map(async (field) => {
        for (let round = 0; round < 4; round += 1)
          statuses.push((await api.put(`/api/products/${product.id}`, { [field]: value(field, round) })).status);
      }),
    );

    // Assert
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const stored = (await api.get(`/api/products/${product.id}`)).body.data;
    for (const field of fields) expect(stored[field]).toBe(value(field, 3));
    const audits = (await readAuditLog(teamId)).filter(
      (entry) => entry.entityType === 'product' && entry.action === 'update',
    );
    expect(audits).toHaveLength(20);
  });

  it('answers 200 to every one of concurrent PUTs setting the same new slug (the product holds it; no slug_taken)', async () => {
    const { api } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'Widget', slug: uniqueSlug() })).body.data;
    const slug = uniqueSlug('same');
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => api.put(`/api/products/${product.id}`, { slug })),
    );
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect((await api.get(`/api/products/${product.id}`)).body.data.slug).toBe(slug);
  });

  it('applies concurrent slug changes one after another: all succeed and only the last slug stays claimed', async () => {
    const { api } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'Widget', slug: uniqueSlug() })).body.data;
    const slugs = Array.from({ length: 6 }, () => uniqueSlug('renamed'));
    const responses = await Promise.all(slugs.map((slug) => api.put(`/api/products/${product.id}`, { slug })));
    expect(responses.map((response) => response.status)).toEqual(slugs.map(() => 200));
    const finalSlug = (await api.get(`/api/products/${product.id}`)).body.data.slug as string;
    expect(slugs).toContain(finalSlug);
    expect((await api.post('/api/products', { name: 'Clash', slug: finalSlug })).status).toBe(409);
    for (const slug of [product.slug as string, ...slugs.filter((slug) => slug !== finalSlug)]) {
      expect((await api.post('/api/products', { name: 'Reuse', slug })).status).toBe(201);
    }
  });

  it("returns 404 for another team's product on read, update and delete", async () => {
    const owner = await createTeamWithKey();
    const intruder = await createTeamWithKey();
    const product = (await owner.api.post('/api/products', { name: 'Secret', slug: uniqueSlug() })).body.data;
    expect((await intruder.api.get(`/api/products/${product.id}`)).status).toBe(404);
    expect((await intruder.api.put(`/api/products/${product.id}`, { name: 'Hijack' })).status).toBe(404);
    expect((await intruder.api.delete(`/api/products/${product.id}`)).status).toBe(404);
    expect((await intruder.api.get(`/api/products/${product.id}/releases`)).status).toBe(404);
    expect((await intruder.api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).status).toBe(404);
    expect((await owner.api.get(`/api/products/${product.id}`)).body.data.name).toBe('Secret');
  });

  it('returns 404 for a malformed id', async () => {
    const { api } = await createTeamWithKey();
    expect((await api.get('/api/products/not-a-uuid')).status).toBe(404);
  });

  it('returns 400 for malformed JSON and never a 5xx for junk bodies', async () => {
    const { key } = await createTeamWithKey();
    const malformed = await request('POST', '/api/products', {
      key,
      rawBody: '{"name": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('bad_request');
    for (const rawBody of ['null', '[]', '42', '"text"', '{"name": {"$gt": ""}}', '\u0000\u0001', 'x'.repeat(2000)]) {
      const response = await request('POST', '/api/products', {
        key,
        rawBody,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.text).not.toMatch(/at \w+ \(|node_modules/);
    }
    const badGzip = await request('POST', '/api/products', {
      key,
      rawBody: 'not gzip',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(badGzip.status).toBe(400);
  });

  it('returns 413 for an oversized body', async () => {
    const { key } = await createTeamWithKey();
    const response = await request('POST', '/api/products', {
      key,
      body: { name: 'x', slug: 'x', description: 'y'.repeat(2 * 1024 * 1024) },
    });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
  });

  it('returns 404 in the error shape for unknown paths, and 405 with Allow for unknown methods', async () => {
    const { key } = await createTeamWithKey();
    const unknown = await request('GET', '/api/nothing-here', { key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const patch = await request('PATCH', '/api/products', { key });
    expect({ status: patch.status, allow: patch.headers.get('allow') }).toEqual({ status: 405, allow: 'GET, POST' });
  });
});

describe('concurrent release updates', () => {
  it('applies concurrent partial PUTs of different release fields without a conflict, and every field ends up set', async () => {
    // Arrange
    const { api } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'Widget', slug: uniqueSlug() })).body.data;
    const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;
    const values: Record<string, (round: number) => string> = {
      name: (round) => `Release name ${round}`,
      notes: (round) => `Notes ${round}`,
      purl: (round) => `pkg:npm/widget@1.0.${round}`,
      releaseDate: (round) => `2026-01-0${round + 1}`,
      endOfLifeDate: (round) => `2027-01-0${round + 1}`,
    };

    // Act: five clients, each changing its own field, three rounds each.
    const statuses: number[] = [];
    await Promise.all(
      Object.entries(values).map(async ([field, value]) => {
        for (let round = 0; round < 3; round += 1)
          statuses.push((await api.put(`/api/releases/${release.id}`, { [field]: value(round) })).status);
      }),
    );

    // Assert
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const stored = (await api.get(`/api/releases/${release.id}`)).body.data;
    for (const [field, value] of Object.entries(values)) expect(String(stored[field])).toContain(value(2));
  });
});
