/**
 * Releases are found by version; 409s for a taken slug or version name the holder; `GET /api/me`; unknown
 * query parameters are 422. All through HTTP against the local server and its embedded engines.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { routes, type RouteDefinition } from '../../shared/service/http/routes';
import { createTeamWithKey, addKey, uniqueSlug } from '../support/factories';
import { request } from '../support/http-client';
import { distinctSbom, productWithRelease, type Data, type SbomView } from '../support/release-navigation';

describe('find-or-create lookups', () => {
  it('finds a release by its exact version', async () => {
    const team = await createTeamWithKey();
    const { product, release } = await productWithRelease(team, '1.0.0');
    await team.api.post(`/api/products/${product.id}/releases`, { version: '1.0.0-rc1' });

    const found = await team.api.get<{ data: { id: string }[]; meta: { total: number } }>(
      `/api/products/${product.id}/releases?version=1.0.0`,
    );
    const prefix = await team.api.get<{ data: unknown[]; meta: { total: number } }>(
      `/api/products/${product.id}/releases?version=1.0`,
    );

    expect(found.status).toBe(200);
    expect(found.body.data.map((entry) => entry.id)).toEqual([release.id]);
    expect(found.body.meta.total).toBe(1);
    expect(prefix.body).toMatchObject({ data: [], meta: { total: 0, totalPages: 1 } });
  });

  it('names the existing release in the 409 for a taken version, on create and on update', async () => {
    const team = await createTeamWithKey();
    const { product, release } = await productWithRelease(team, '1.0.0');
    const other = (
      await team.api.post<Data<{ id: string }>>(`/api/products/${product.id}/releases`, { version: '2.0.0' })
    ).body.data;

    const created = await team.api.post<{
      error: { code: string; message: string; details: { path: string; message: string }[] };
    }>(`/api/products/${product.id}/releases`, { version: '1.0.0' });
    const updated = await team.api.put<{ error: { code: string; details: { path: string; message: string }[] } }>(
      `/api/releases/${other.id}`,
      { version: '1.0.0' },
    );

    expect(created.status).toBe(409);
    expect(created.body.error.code).toBe('version_taken');
    expect(created.body.error.details).toEqual([{ path: 'existing_id', message: release.id }]);
    expect(created.body.error.message).toContain(release.id);
    expect(updated.status).toBe(409);
    expect(updated.body.error.details).toEqual([{ path: 'existing_id', message: release.id }]);
  });

  it('names the existing product in the 409 for a taken slug', async () => {
    const team = await createTeamWithKey();
    const slug = uniqueSlug('taken');
    const product = (await team.api.post<Data<{ id: string }>>('/api/products', { name: 'First', slug })).body.data;

    const again = await team.api.post<{ error: { code: string; details: { path: string; message: string }[] } }>(
      '/api/products',
      { name: 'Second', slug },
    );

    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('slug_taken');
    expect(again.body.error.details).toEqual([{ path: 'existing_id', message: product.id }]);
  });
});

describe('GET /api/me', () => {
  it('describes the credential to a key holding any one scope', async () => {
    const owner = await createTeamWithKey(undefined, { expiresInDays: 30 });
    const narrow = await addKey(owner.teamId, owner.memberId, ['vex:read']);

    const me = await narrow.api.get<Data<Record<string, unknown>>>('/api/me');
    const full =
      await owner.api.get<Data<{ key: { id: string; expiresAt: string | null }; caller: { name: string } }>>('/api/me');

    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({
      team: { id: owner.teamId, name: expect.stringMatching(/^Team /) },
      caller: { id: expect.any(String), name: expect.stringMatching(/^api_key-/), type: 'service_account' },
      scopes: ['vex:read'],
      key: { id: narrow.keyId, name: expect.any(String), expiresAt: null },
    });
    expect(full.body.data.key.id).toBe(owner.keyId);
    expect(Date.parse(full.body.data.key.expiresAt ?? '')).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(full.body.data.caller.name).toBe(`api_${owner.keyName}`);
  });

  it('answers 401 without a valid key', async () => {
    expect((await request('GET', '/api/me')).status).toBe(401);
    expect((await request('GET', '/api/me', { key: `vxd_${'0'.repeat(64)}` })).status).toBe(401);
  });

  it('gives the accountId the audit export needs', async () => {
    const team = await createTeamWithKey();
    const me = await team.api.get<Data<{ team: { id: string } }>>('/api/me');

    const exported = await team.api.get(`/api/audit/export?accountId=${me.body.data.team.id}`);

    expect(exported.status).toBe(200);
  });
});

describe('unknown query parameters', () => {
  const ALL = routes as readonly RouteDefinition[];
  const UNKNOWN_ID = '7d0f3c1e-5b7a-4c41-9f57-2f4f0d8e9a10';

  // One team, release and SBOM for every route: each request only reads, and is refused before any handler runs.
  let fixture: {
    team: Awaited<ReturnType<typeof createTeamWithKey>>;
    params: Record<string, string>;
  };
  beforeAll(async () => {
    const team = await createTeamWithKey();
    const { product, release } = await productWithRelease(team);
    const sbom = (
      await team.api.post<Data<SbomView>>('/api/sboms/upload', { releaseId: release.id, content: distinctSbom() })
    ).body.data;
    fixture = {
      team,
      // Real ids where the route has them, so the answer cannot be an earlier 404.
      params: {
        releaseId: release.id,
        productId: product.id,
        id: sbom.id,
        // Well-formed CSAF provider names (a malformed one is a 404 before the query is read).
        directory: 'unknown-directory',
        year: '2026',
        // A well-formed CRA report stage (a malformed one is a 404 before the query is read).
        stage: 'early_warning',
      },
    };
  });

  it.each(
    ALL.filter((route) => route.method === 'GET').map((route) => [`${route.method} ${route.path}`, route] as const),
  )('%s answers 422 naming an unknown query parameter', async (_label, route) => {
    const { team } = fixture;
    const params: Record<string, string> = {
      ...fixture.params,
      file: route.path.includes('/openpgp/') ? `${'A'.repeat(40)}.asc` : 'unknown.json',
    };
    const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => params[name] ?? UNKNOWN_ID);
    // Query parameters a route requires, so that the unknown one is the only finding.
    const required: Record<string, string> = {
      '/api/audit/export': `accountId=${team.teamId}&`,
      '/api/vulnerabilities': 'advisory=CVE-2021-44228&',
    };
    const known = required[route.path] ?? '';

    const response = await request<{ error: { code: string; details: { path: string; message: string }[] } }>(
      'GET',
      `${path}?${known}severty=critical`,
      { key: team.key },
    );

    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('validation_failed');
    expect(response.body.error.details).toEqual([
      expect.objectContaining({ path: 'severty', message: expect.stringMatching(/^unknown query parameter/) }),
    ]);
  });

  it('still accepts every parameter a route documents', async () => {
    const team = await createTeamWithKey();
    const { product, release } = await productWithRelease(team);

    expect((await team.api.get('/api/products?page=1&perPage=5&search=nav')).status).toBe(200);
    expect((await team.api.get(`/api/products/${product.id}/releases?page=1&perPage=5&version=1.0.0`)).status).toBe(
      200,
    );
    expect((await team.api.get(`/api/releases/${release.id}/sboms?page=1&perPage=5`)).status).toBe(200);
    expect((await request('GET', '/api/disclosures?page=1&limit=5&format=openvex')).status).toBe(200);
    expect(
      (
        await team.api.get(
          `/api/audit/export?accountId=${team.teamId}&entityType=product&action=create&startDate=2026-01-01T00:00:00Z&endDate=2099-01-01T00:00:00Z`,
        )
      ).status,
    ).toBe(200);
  });
});
