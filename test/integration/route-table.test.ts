import { describe, expect, it } from '@jest/globals';
import { routes, type RouteDefinition } from '../../shared/service/http/routes';
import { buildOpenApiDocument } from '../../shared/service/http/openapi-document';
import { createTeamWithKey } from '../support/factories';
import { request } from '../support/http-client';

const ALL = routes as readonly RouteDefinition[];
const UNKNOWN_ID = '7d0f3c1e-5b7a-4c41-9f57-2f4f0d8e9a10';
const path = (route: RouteDefinition, id: string) => route.path.replace(/\{\w+\}/g, id);

describe('route table', () => {
  it('declares each operation once: operation ids and method + path pairs are unique', () => {
    const repeated = (values: string[]) => values.filter((value, index) => values.indexOf(value) !== index);
    expect(repeated(ALL.map((route) => route.operationId))).toEqual([]);
    expect(repeated(ALL.map((route) => `${route.method} ${route.path}`))).toEqual([]);
  });

  it.each(ALL.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s answers 4xx, never 5xx or 501, to unknown ids and junk input',
    async (_label, route) => {
      const { key } = await createTeamWithKey();
      const bodies =
        route.method === 'GET' || route.method === 'DELETE' ? [undefined] : ['{', '[]', '{"unexpected":true}', 'null'];
      for (const id of [UNKNOWN_ID, 'not-an-id', '%E2%80%AE..%2F..']) {
        for (const rawBody of bodies) {
          const response = await request(
            route.method,
            `${path(route, id)}?page=-1&perPage=abc&limit=0&format=x&severity=zzz`,
            {
              key,
              ...(rawBody !== undefined ? { rawBody, headers: { 'Content-Type': 'application/json' } } : {}),
            },
          );
          if (route.path.includes('{')) expect([400, 404, 409, 422]).toContain(response.status);
          else expect(response.status).toBeLessThan(500);
          expect(response.status).not.toBe(501);
          expect(response.text).not.toMatch(/node_modules|at [\w.]+ \(/);
        }
      }
    },
  );

  it('answers every 405 the OpenAPI document describes, with the Allow it names, and the CORS preflight where the document has none', async () => {
    const { paths } = buildOpenApiDocument() as {
      paths: Record<
        string,
        Record<string, { operationId?: string; description?: string; responses: Record<string, unknown> }>
      >;
    };
    const expected: string[] = [];
    const answered: string[] = [];
    for (const [documentedPath, item] of Object.entries(paths)) {
      const allow = ALL.filter((route) => route.path === documentedPath)
        .map((route) => route.method)
        .sort()
        .join(', ');
      for (const [method, operation] of Object.entries(item)) {
        if (operation.operationId !== undefined) continue;
        const response = await request(method.toUpperCase(), documentedPath.replace(/\{\w+\}/g, UNKNOWN_ID));
        expected.push(`${method} ${documentedPath} 405 ${allow}`);
        answered.push(`${method} ${documentedPath} ${response.status} ${response.headers.get('allow') ?? ''}`);
      }
      if (!item.options)
        expect((await request('OPTIONS', documentedPath.replace(/\{\w+\}/g, 'some-slug'))).status).toBe(204);
    }
    expect(expected.length).toBeGreaterThan(ALL.length);
    expect(answered).toEqual(expected);
  });
});
