import { describe, expect, it } from '@jest/globals';
import { keys } from '../../shared/service/data/keys';
import { getItem, queryAll, transactWrite } from '../../shared/service/data/table-client';
import { releaseStore } from '../../shared/service/releases/release-store';
import { createTeamWithKey, uniqueSlug } from '../support/factories';

async function productWithRelease(version = '1.0.0') {
  const team = await createTeamWithKey();
  const product = (await team.api.post('/api/products', { name: 'Widget', slug: uniqueSlug() })).body.data;
  const release = (await team.api.post(`/api/products/${product.id}/releases`, { version })).body.data;
  return { ...team, product, release };
}

describe('releases', () => {
  it('creates a release with 201, default status active and is_locked false', async () => {
    const { api } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'Widget', slug: uniqueSlug() })).body.data;
    const response = await api.post(`/api/products/${product.id}/releases`, {
      version: '2.4.1',
      name: 'Spring',
      releaseDate: '2026-03-01',
      endOfLifeDate: '2028-03-01T00:00:00Z',
      notes: 'n',
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      version: '2.4.1',
      name: 'Spring',
      status: 'active',
      is_locked: false,
      productId: product.id,
    });
    const read = await api.get(`/api/releases/${response.body.data.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.is_locked).toBe(false);
  });

  it.each([
    ['version', { version: 'v'.repeat(101) }],
    ['version', { version: '' }],
    ['name', { version: '1', name: 'n'.repeat(256) }],
    ['notes', { version: '1', notes: 'n'.repeat(10_001) }],
    ['releaseDate', { version: '1', releaseDate: 'yesterday' }],
    ['endOfLifeDate', { version: '1', endOfLifeDate: '2026-13-45' }],
    ['status', { version: '1', status: 'retired' }],
  ])('rejects an invalid %s with 422 naming the field', async (path, body) => {
    const { api } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'Widget', slug: uniqueSlug() })).body.data;
    const response = await api.post(`/api/products/${product.id}/releases`, body);
    expect(response.status).toBe(422);
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
  });

  it('accepts the documented limits exactly', async () => {
    const { api } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'Widget', slug: uniqueSlug() })).body.data;
    const response = await api.post(`/api/products/${product.id}/releases`, {
      version: 'v'.repeat(100),
      name: 'n'.repeat(255),
      notes: 'n'.repeat(10_000),
      status: 'end-of-life',
    });
    expect(response.status).toBe(201);
  });

  it('stores the artifact purl and rejects one that is not a package URL', async () => {
    const { api } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'Widget', slug: uniqueSlug() })).body.data;
    const purl = 'pkg:oci/widget@sha256%3Aabc123?repository_url=ghcr.io/acme/widget';
    const created = await api.post(`/api/products/${product.id}/releases`, { version: '3.0.0', purl });
    expect(created.status).toBe(201);
    expect(created.body.data.purl).toBe(purl);
    for (const purl of ['widget 3.0.1', 'pkg:npm/%E0%A4%A@1']) {
      const bad = await api.post(`/api/products/${product.id}/releases`, { version: '3.0.1', purl });
      expect(bad.status).toBe(422);
      expect(bad.body.error.details[0].path).toBe('purl');
    }
    expect((await api.put(`/api/releases/${created.body.data.id}`, { purl: null })).body.data.purl).toBeNull();
  });

  it('keeps versions unique per product', async () => {
    const { api, product } = await productWithRelease('1.0.0');
    const duplicate = await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('version_taken');
  });

  it('lists releases with the paging envelope', async () => {
    const { api } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'Widget', slug: uniqueSlug() })).body.data;
    for (let index = 0; index < 3; index += 1)
      await api.post(`/api/products/${product.id}/releases`, { version: `1.${index}.0` });
    const response = await api.get(`/api/products/${product.id}/releases?perPage=2`);
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(2);
    expect(response.body.meta).toEqual({
      page: 1,
      perPage: 2,
      total: 3,
      totalPages: 2,
      hasNextPage: true,
      hasPrevPage: false,
    });
  });

  it('updates only supplied fields', async () => {
    const { api, release } = await productWithRelease();
    const response = await api.put(`/api/releases/${release.id}`, { status: 'deprecated' });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ version: '1.0.0', status: 'deprecated' });
  });

  it('returns 409 on PUT while the release is locked, and is_locked reads true', async () => {
    const { api, teamId, product, release } = await productWithRelease();
    await transactWrite([
      releaseStore.lockItem(
        { teamId, productId: product.id, id: release.id },
        'vex-test-lock',
        new Date().toISOString(),
      ),
    ]);
    expect((await api.get(`/api/releases/${release.id}`)).body.data.is_locked).toBe(true);
    const response = await api.put(`/api/releases/${release.id}`, { name: 'changed' });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('release_locked');
    expect((await api.get(`/api/releases/${release.id}`)).body.data.name).toBeNull();
    await transactWrite([releaseStore.unlockItem({ teamId, productId: product.id, id: release.id }, 'vex-test-lock')]);
    expect((await api.put(`/api/releases/${release.id}`, { name: 'changed' })).status).toBe(200);
  });

  it("returns 404 for another team's release", async () => {
    const { release } = await productWithRelease();
    const intruder = await createTeamWithKey();
    expect((await intruder.api.get(`/api/releases/${release.id}`)).status).toBe(404);
    expect((await intruder.api.put(`/api/releases/${release.id}`, { name: 'x' })).status).toBe(404);
  });

  it('cascades a product delete to its releases, pointers and claims, leaving other products alone', async () => {
    const { api, teamId, product, release } = await productWithRelease();
    const other = (await api.post('/api/products', { name: 'Other', slug: uniqueSlug() })).body.data;
    const otherRelease = (await api.post(`/api/products/${other.id}/releases`, { version: '9.9.9' })).body.data;

    expect((await api.delete(`/api/products/${product.id}`)).status).toBe(204);

    expect((await api.get(`/api/products/${product.id}`)).status).toBe(404);
    expect((await api.get(`/api/releases/${release.id}`)).status).toBe(404);
    expect(await getItem(keys.idPointer(teamId, release.id))).toBeUndefined();
    expect(await queryAll(keys.productCollection(teamId, product.id))).toHaveLength(0);
    expect((await api.post('/api/products', { name: 'Reuse', slug: product.slug })).status).toBe(201);
    expect((await api.get(`/api/releases/${otherRelease.id}`)).status).toBe(200);
    expect((await api.delete(`/api/products/${product.id}`)).status).toBe(404);
  });
});
