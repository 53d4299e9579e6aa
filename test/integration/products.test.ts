/** Products through the API: create, validate, update, rename, and the errors (404, 400, 413, 405), never a 5xx. */
import { describe, expect, it } from '@jest/globals';
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
