/** Concurrent updates of a product (fields, slugs) and of a release: no conflicts, and the last slug stays claimed. */
import { describe, expect, it } from '@jest/globals';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { createTeamWithKey, uniqueSlug } from '../support/factories';

describe('products', () => {
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
