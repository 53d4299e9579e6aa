/**
 * The OpenAPI 3.1 document, generated from the route table and its zod
 * schemas (nothing hand-written). `npm run openapi` writes docs/openapi.json;
 * test/unit/openapi.test.ts fails when that file is stale.
 *
 * Only this module (served by the openapi Lambda) and bin/openapi.ts use
 * zod-to-openapi. The schemas are plain zod; the ones that become named
 * components carry zod's own `.meta({ id })`, which the generator reads.
 */
import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { errorBodySchema } from '../schemas/common';
import { METHOD_NOT_ALLOWED } from '../http/gateway-responses';
import { hasCorsPreflight, methodsOfPath, routePaths, routes, type RouteDefinition } from '../http/routes';
import { ANY_CREDENTIAL } from '../http/scopes';

const ERROR_RESPONSES: Record<number, string> = {
  400: 'Malformed request (invalid JSON, gzip or encoding)',
  401: 'Missing, malformed, expired or revoked API key',
  403: 'The API key lacks the required scope',
  404: 'Not found (including ids of other teams)',
  409: 'Conflict (locked release, duplicate, wrong workflow state)',
  413: 'Request body too large',
  415: 'Unsupported Content-Type',
  422: 'Validation failed; `details` lists field paths',
};

/** A raw body's media types: JSON ones an object (`application/json` the route's JSON schema when it names one), XML and text a string. */
function rawBodyContent(
  rawBody: NonNullable<NonNullable<RouteDefinition['request']>['rawBody']>,
): Record<string, { schema: object }> {
  const schemaOf = (type: string): object => {
    if (type === 'application/json' && rawBody.json) return rawBody.json;
    return type === 'application/json' || type.endsWith('+json') ? { type: 'object' } : { type: 'string' };
  };
  return Object.fromEntries(rawBody.contentTypes.map((type) => [type, { schema: schemaOf(type) }]));
}

export function buildOpenApiDocument(): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key: `vxd_` followed by 64 lowercase hex characters',
  });
  for (const route of routes as readonly RouteDefinition[]) {
    const responses: Record<string, { description: string; content?: Record<string, { schema: object }> }> = {};
    for (const [status, response] of Object.entries(route.responses)) {
      const alternatives = Object.fromEntries(
        Object.entries(response.alternatives ?? {}).map(([type, schema]): [string, { schema: object }] => [
          type,
          { schema: schema ?? { type: 'string' } },
        ]),
      );
      responses[status] = response.schema
        ? {
            description: response.description,
            content: {
              [response.contentType ?? 'application/json']: { schema: response.schema },
              ...alternatives,
            },
          }
        : {
            description: response.description,
            ...(response.contentType
              ? { content: { [response.contentType]: { schema: { type: 'string' } }, ...alternatives } }
              : {}),
          };
    }
    const errorStatuses =
      route.scope === null
        ? [400, 404, 422]
        : [400, 401, 403, 404, 409, 413, ...(route.request?.rawBody ? [415] : []), 422];
    for (const status of errorStatuses) {
      responses[String(status)] ??= {
        description: ERROR_RESPONSES[status] ?? 'Error',
        content: { 'application/json': { schema: errorBodySchema } },
      };
    }
    const body = route.request?.body;
    registry.registerPath({
      method: route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete',
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.group],
      ...(route.scope
        ? {
            security: [{ [bearer.name]: [] }],
            description:
              route.scope === ANY_CREDENTIAL
                ? 'Any valid credential; no scope required'
                : `Required scope: \`${route.scope}\``,
          }
        : { security: [] }),
      request: {
        ...(route.request?.params ? { params: route.request.params } : {}),
        ...(route.request?.query ? { query: route.request.query } : {}),
        ...(body ? { body: { content: { 'application/json': { schema: body } } } } : {}),
        ...(route.request?.rawBody
          ? {
              body: {
                description: route.request.rawBody.description,
                required: true,
                content: rawBodyContent(route.request.rawBody),
              },
            }
          : {}),
      },
      responses,
    });
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Vexdesk API',
      version: '0.1.0',
      description:
        'Supply-chain vulnerability disclosure: products, releases, SBOMs, CVE scanning, VEX workflow and signed public disclosures.',
    },
    servers: [{ url: '/' }],
  }) as unknown as GeneratedDocument;
  describeMethodNotAllowed(document);
  return document;
}

type GeneratedDocument = Record<string, unknown> & {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
};

/** The methods API Gateway's `ANY` stands for: each one a resource lacks is answered 405 (lib/vexdesk-stack.ts). */
const GATEWAY_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
const METHOD_NOT_ALLOWED_RESPONSE = 'MethodNotAllowed';

/**
 * The 405s are not routes: the stack answers them from a MOCK `ANY` method on each resource and
 * the local server renders the same (shared/service/http/gateway-responses.ts). OpenAPI has no "any other
 * method" entry, so each path states them as operations of their own: no operationId (nothing to
 * call), no credentials (the MOCK runs no authorizer), one 405 response whose `Allow` names the
 * path's methods. OPTIONS on a public disclosure resource is its CORS preflight, not a 405.
 */
function describeMethodNotAllowed(document: GeneratedDocument): void {
  const responseRef = { $ref: `#/components/responses/${METHOD_NOT_ALLOWED_RESPONSE}` };
  document.components = {
    ...document.components,
    responses: {
      ...document.components?.responses,
      [METHOD_NOT_ALLOWED_RESPONSE]: {
        description: `Method not allowed (\`${METHOD_NOT_ALLOWED.code}\`): the path does not serve this method`,
        headers: { Allow: { description: 'The methods the path serves, comma-separated', schema: { type: 'string' } } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
  for (const path of routePaths()) {
    const allowed = methodsOfPath(path);
    const item = document.paths?.[path];
    if (!item) continue;
    const group = (routes as readonly RouteDefinition[]).find((route) => route.path === path)?.group;
    for (const method of GATEWAY_METHODS) {
      if (allowed.includes(method.toUpperCase()) || (method === 'options' && hasCorsPreflight(path))) continue;
      item[method] = {
        summary: `Not allowed: ${path} serves ${allowed.join(', ')}`,
        description: `Answered by the gateway with 405 and \`Allow: ${allowed.join(', ')}\`; no handler runs.`,
        ...(group ? { tags: [group] } : {}),
        security: [],
        responses: { [String(METHOD_NOT_ALLOWED.statusCode)]: responseRef },
      };
    }
  }
}

/** The document as docs/openapi.json holds it: two-space JSON with a final newline. */
export function openApiJson(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
