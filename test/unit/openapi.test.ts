/**
 * docs/openapi.json is the API reference clients read. It is generated
 * (`npm run openapi`) from the route table and its zod schemas; these tests
 * fail when the committed file no longer matches what the generator writes,
 * and check the document against the route table independently.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  hasCorsPreflight,
  methodsOfPath,
  routePaths,
  routes,
  type RouteDefinition,
} from '../../shared/service/http/routes';
import { buildOpenApiDocument, openApiJson } from '../../shared/service/http/openapi-document';

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  description?: string;
  tags?: string[];
  responses?: Record<string, unknown>;
}

interface OpenApiDocument {
  openapi: string;
  security?: unknown;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas?: Record<string, unknown>;
    responses?: Record<string, unknown>;
    securitySchemes?: Record<string, { type: string; scheme?: string }>;
  };
}

const COMMITTED_PATH = new URL('../../docs/openapi.json', import.meta.url);
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const allRoutes = routes as readonly RouteDefinition[];

let doc: OpenApiDocument;

beforeAll(() => {
  doc = buildOpenApiDocument() as unknown as OpenApiDocument;
});

function operationOf(route: RouteDefinition): Operation | undefined {
  return doc.paths[route.path]?.[route.method.toLowerCase()];
}

/** Every `$ref` string anywhere below `value`. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner),
  );
}

describe('docs/openapi.json', () => {
  it('is what `npm run openapi` generates from the current route table and schemas', () => {
    const committed = readFileSync(COMMITTED_PATH, 'utf8');

    // Content first, for a readable diff; then the exact bytes the generator writes.
    expect(JSON.parse(committed)).toEqual(doc);
    expect(committed).toBe(openApiJson());
  });
});

describe('generated document', () => {
  it('is OpenAPI 3.1 with no document-wide security requirement (each operation states its own)', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.security).toBeUndefined();
    expect(doc.components.securitySchemes?.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it.each(allRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    'describes %s with its operationId and security',
    (_name, route) => {
      const operation = operationOf(route);

      expect(operation).toBeDefined();
      expect(operation?.operationId).toBe(route.operationId);
      expect(operation?.tags).toEqual([route.group]);
      // Public routes override any default with an empty list: no credentials at all.
      expect(operation?.security).toEqual(route.scope === null ? [] : [{ apiKey: [] }]);
      const scopeNote =
        route.scope === 'authenticated'
          ? 'Any valid credential; no scope required'
          : `Required scope: \`${route.scope}\``;
      expect(operation?.description).toBe(route.scope === null ? undefined : scopeNote);
    },
  );

  it('has no operation with an operationId that is not in the route table, and unique operationIds', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([key, operation]) => HTTP_METHODS.has(key) && operation.operationId !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    const operationIds = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => operation.operationId ?? []),
    );

    expect(documented.sort()).toEqual(allRoutes.map((route) => `${route.method} ${route.path}`).sort());
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it("describes the 405 of every method a path does not serve, naming the path's methods, and nothing else for it", () => {
    const gatewayMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
    for (const path of routePaths()) {
      const allow = methodsOfPath(path);
      const item = doc.paths[path] ?? {};
      const notAllowed = gatewayMethods.filter(
        (method) => !allow.includes(method.toUpperCase()) && !(method === 'options' && hasCorsPreflight(path)),
      );

      expect(notAllowed.length).toBeGreaterThan(0);
      for (const method of notAllowed) {
        const operation = item[method];
        expect({
          path,
          method,
          operationId: operation?.operationId,
          security: operation?.security,
          responses: operation?.responses,
        }).toEqual({
          path,
          method,
          operationId: undefined,
          security: [],
          responses: { 405: { $ref: '#/components/responses/MethodNotAllowed' } },
        });
        expect(operation?.description).toContain(`Allow: ${allow.join(', ')}`);
      }
      expect(
        Object.keys(item)
          .filter((key) => HTTP_METHODS.has(key))
          .sort(),
      ).toEqual([...allow.map((method) => method.toLowerCase()), ...notAllowed].sort());
    }
    expect(doc.components.responses?.MethodNotAllowed).toMatchObject({
      headers: { Allow: { schema: { type: 'string' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  });

  it('resolves every $ref to a component the document defines', () => {
    const refs = [...new Set(refsIn(doc))];
    const defined = new Set(
      Object.entries(doc.components).flatMap(([kind, entries]) =>
        Object.keys(entries ?? {}).map((name) => `#/components/${kind}/${name}`),
      ),
    );

    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((ref) => !defined.has(ref))).toEqual([]);
  });

  it('names the shared schemas as components (product, release, SBOM, error body, page metadata)', () => {
    expect(Object.keys(doc.components.schemas ?? {})).toEqual(
      expect.arrayContaining(['Product', 'ProductList', 'Release', 'ReleaseList', 'Sbom', 'Error', 'PageMeta']),
    );
  });
});
