/**
 * Team requests act for their own team only, also when requests of several
 * teams are in flight at once in one process (docs/architecture/request-path.md
 * "Tenant-scoped credentials"): the team rides in a per-request async context,
 * and the tenant guard refuses any call of a team request that names another
 * team's key. If the context leaked between interleaved requests, the guard
 * would turn the leaking calls into 500s and the lists below would mix teams.
 */
import { describe, expect, it } from '@jest/globals';
import { createTeamWithKey, uniqueSlug } from '../support/factories';

describe('tenant isolation of concurrent team requests', () => {
  it("serves interleaved requests of two teams each with its own team's data, without a single 5xx", async () => {
    const teams = await Promise.all([createTeamWithKey(), createTeamWithKey()]);
    const products = await Promise.all(
      teams.map(async ({ api }) => {
        const response = await api.post('/api/products', { name: 'Widget', slug: uniqueSlug() });
        expect(response.status).toBe(201);
        return response.body.data.id as string;
      }),
    );

    // Writes and reads of both teams, fired together so their handlers interleave in the one local process.
    const rounds = Array.from({ length: 12 }, (_unused, round) =>
      teams.map(({ api }, index) =>
        round % 2 === 0
          ? api.post(`/api/products/${products[index]}/releases`, { version: `1.0.${round}` })
          : api.get(`/api/products/${products[index]}/releases`),
      ),
    ).flat();
    const statuses = (await Promise.all(rounds)).map((response) => response.status);

    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(new Set(statuses)).toEqual(new Set([200, 201]));
    for (const [index, { api }] of teams.entries()) {
      const releases = await api.get(`/api/products/${products[index]}/releases?perPage=100`);
      expect(releases.body.data.map((release: { version: string }) => release.version).sort()).toEqual([
        '1.0.0',
        '1.0.10',
        '1.0.2',
        '1.0.4',
        '1.0.6',
        '1.0.8',
      ]);
      const listed = await api.get('/api/products');
      expect(listed.body.data.map((product: { id: string }) => product.id)).toEqual([products[index]]);
    }
  });

  it("answers 404, never another team's data, when a team names another team's product", async () => {
    const [owner, other] = await Promise.all([createTeamWithKey(), createTeamWithKey()]);
    const created = await owner.api.post('/api/products', { name: 'Widget', slug: uniqueSlug() });

    const response = await other.api.get(`/api/products/${created.body.data.id}/releases`);

    expect(response.status).toBe(404);
  });
});
