/**
 * The one middleware chain of every endpoint-group Lambda. Order, once:
 *   1. Powertools logger context (request id, route, team) — reset per request;
 *   2. route lookup in the route table → 404 when absent;
 *   3. scope check against the authorizer's scopes → 403, before any parsing;
 *   4. input parsing with the route's zod schemas → 400 / 413 / 422 / 404;
 *   5. the operation (domain service call) and result mapping;
 *   6. the error mapper (registered last, so it sees every failure);
 *   7. one access-log line per request.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { z } from 'zod';
import {
  ForbiddenError,
  NotFoundError,
  NotImplementedError,
  ServiceUnavailableError,
  UnauthorizedError,
} from '../errors';
import type { Caller } from '../identity/actor';
import { logger } from '../logger';
import { runAsTeam } from '../request-context';
import { callerFromAuthorizer } from './authorizer-context';
import { scopeAllows } from './scopes';
import {
  DEFAULT_MAX_BODY_BYTES,
  decodeBody,
  lowerCaseHeaders,
  parseJsonBody,
  parsePathParameters,
  parseQuery,
  strictQuerySchema,
} from './request';
import { errorToProxyResult, toProxyResult, type RawResult } from './response';
import type { RouteDefinition } from './route-definition';

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;
type RequestPart<R, K extends string> = R extends { request: infer Q }
  ? Q extends Record<K, infer S>
    ? Parsed<S>
    : undefined
  : undefined;

export interface OperationRequest<R extends RouteDefinition> {
  params: RequestPart<R, 'params'>;
  query: RequestPart<R, 'query'>;
  body: RequestPart<R, 'body'>;
  /** Present on every non-public route (the authorizer established it). */
  caller: R['scope'] extends null ? undefined : Caller;
  headers: Record<string, string>;
  requestId: string;
  /** The decoded request body bytes, for routes that keep the original file. */
  rawBody: Buffer | undefined;
  /** Epoch ms when the invocation times out: an operation that waits (a joined scan) stops before it. */
  deadline: number;
}

/**
 * What an operation may answer: for each status its route declares, a JSON body of that response's
 * schema (no body where the response has none), or raw bytes. The compiler holds every handler to
 * the schemas the OpenAPI document publishes.
 */
export type RouteResult<R extends RouteDefinition> = {
  [S in keyof R['responses'] & number]:
    | (R['responses'][S] extends { schema: infer Schema extends z.ZodType }
        ? { status: S; body: z.infer<Schema>; headers?: Record<string, string> }
        : { status: S; body?: undefined; headers?: Record<string, string> })
    | { status: S; raw: RawResult['raw']; contentType: string; headers?: Record<string, string> };
}[keyof R['responses'] & number];

export type Operation<R extends RouteDefinition> = (request: OperationRequest<R>) => Promise<RouteResult<R>>;
/** The operations of one group's routes (shared/service/http/route-groups/), by operation id. */
export type GroupOperations<Routes extends readonly RouteDefinition[]> = {
  [Id in Routes[number]['operationId']]?: Operation<Extract<Routes[number], { operationId: Id }>>;
};

/** Body ceilings per operation; the SBOM upload carries up to 10 MB of JSON-escaped content. */
const MAX_BODY_BYTES: Partial<Record<string, number>> = {
  uploadSbom: 24 * 1024 * 1024,
  /** The document itself, not JSON-escaped: the spec's 10 MB SBOM content limit (after gzip decoding). */
  importVex: 10 * 1024 * 1024,
};

const PARAM_ENTITY: Record<string, string> = {
  productId: 'Product',
  releaseId: 'Release',
  id: 'SBOM',
  dispositionId: 'Disposition',
  vexId: 'VEX document',
  uploadId: 'Upload',
  slug: 'Disclosure',
  policyId: 'Trust policy',
  memberId: 'Member',
  keyId: 'API key',
};

function entityOfParams(route: RouteDefinition): string {
  const name = /\{(\w+)\}[^{]*$/.exec(route.path)?.[1];
  return (name && PARAM_ENTITY[name]) ?? 'Resource';
}

/**
 * The Lambda handler of one endpoint group: `groupRoutes` is the group's list from
 * shared/service/http/route-groups/ (not the whole table, whose other schemas the function never needs).
 */
export function createGroupHandler<const Routes extends readonly RouteDefinition[]>(
  groupRoutes: Routes,
  operations: NoInfer<GroupOperations<Routes>>,
) {
  // Looked up per request by method and resource; the first route of a pair wins, as a linear search would.
  const routeTable = new Map<string, { route: RouteDefinition; entity: string; query: z.ZodObject }>();
  for (const route of groupRoutes) {
    const key = `${route.method} ${route.path}`;
    if (!routeTable.has(key))
      routeTable.set(key, { route, entity: entityOfParams(route), query: strictQuerySchema(route.request?.query) });
  }
  const operationTable = operations as Record<string, Operation<RouteDefinition> | undefined>;

  async function dispatch(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
    const requestId = event.requestContext.requestId;
    const entry = routeTable.get(`${event.httpMethod} ${event.resource}`);
    if (!entry) throw new NotFoundError('Endpoint');
    const { route, entity } = entry;
    const caller = callerFromAuthorizer(event.requestContext.authorizer);
    if (caller) logger.appendKeys({ teamId: caller.teamId });
    if (route.scope !== null) {
      if (!caller) throw new UnauthorizedError();
      if (!scopeAllows(route.scope, caller.scopes))
        throw new ForbiddenError(
          `This API key lacks the "${route.scope}" scope required by ${route.method} ${route.path}`,
        );
    }
    const operation = operationTable[route.operationId];
    if (!operation) {
      throw new NotImplementedError(`${route.method} ${route.path} is not available yet`);
    }
    const headers = lowerCaseHeaders(event);
    const params = route.request?.params ? parsePathParameters(event, route.request.params, entity) : undefined;
    // Every route parses its query, so one without a query schema still refuses unknown parameters.
    const parsedQuery = parseQuery(event, entry.query);
    const query = route.request?.query ? parsedQuery : undefined;
    const rawBody = decodeBody(event, headers, MAX_BODY_BYTES[route.operationId] ?? DEFAULT_MAX_BODY_BYTES);
    const body = route.request?.body ? parseJsonBody(rawBody, route.request.body) : undefined;
    const deadline = Date.now() + context.getRemainingTimeInMillis();
    const run = () =>
      operation({
        params,
        query,
        body,
        caller,
        headers,
        requestId,
        rawBody,
        deadline,
      } as OperationRequest<RouteDefinition>);
    // A caller's request acts for its team only: its DynamoDB and S3 calls use team-scoped clients.
    const teamId =
      caller?.teamId ?? (route.teamFromBody ? (body as { teamId?: string } | undefined)?.teamId : undefined);
    const result = await (teamId ? runAsTeam(teamId, run) : run());
    return toProxyResult(result, requestId);
  }

  const requestLogging: middy.MiddlewareObj<
    APIGatewayProxyEvent,
    APIGatewayProxyResult,
    Error,
    Context,
    { startedAt: number }
  > = {
    before: (request) => {
      const { event } = request;
      logger.appendKeys({ requestId: event.requestContext.requestId, route: `${event.httpMethod} ${event.resource}` });
      request.internal.startedAt = performance.now();
    },
    after: (request) => logAccess(request.event, request.response?.statusCode, request.internal.startedAt),
    onError: (request) => {
      request.response = errorToProxyResult(request.error, request.event.requestContext.requestId);
      logAccess(request.event, request.response.statusCode, request.internal.startedAt);
    },
  };

  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, { startedAt: number }>({
    // middy stops waiting for the operation just before the function's timeout; its own TimeoutError
    // would map to a 500. Operations that can tell more answer before it (POST /api/cve-scan: 409 scan_pending).
    timeoutEarlyResponse: () => {
      throw new ServiceUnavailableError(
        'timeout',
        'The request ran out of time before it could answer; it may still complete. Check the resource, then retry if needed.',
      );
    },
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestLogging)
    .handler(dispatch);
}

function logAccess(event: APIGatewayProxyEvent, status: number | undefined, startedAt: unknown): void {
  const durationMs = typeof startedAt === 'number' ? Math.round((performance.now() - startedAt) * 10) / 10 : undefined;
  logger.info('request completed', { method: event.httpMethod, path: event.path, status, durationMs });
}
