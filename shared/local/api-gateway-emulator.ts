/**
 * Local stand-in for the deployed REST API (BRIEF decision 3): HTTP request →
 * the same API Gateway proxy event (payload format 1.0) → the same REQUEST
 * authorizer → the same group handler module → the same response. Gateway
 * responses (401/403/404/413) come from the shared table the stack installs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import {
  hasCorsPreflight,
  methodsOfPath,
  routes,
  type EndpointGroup,
  type RouteDefinition,
} from '../service/http/routes';
import { runAsFunction } from '../service/aws-call-log';
import {
  GATEWAY_RESPONSE_HEADERS,
  gatewayResponseHeaders,
  renderGatewayResponse,
  renderMethodNotAllowed,
  type GatewayResponseType,
} from '../service/http/gateway-responses';
import { isPublicClientLimitedPath, isSignInClientLimitedPath, type ThrottleQuota } from '../service/http/throttling';
import { ClientRateLimit, UsagePlanThrottle } from './local-throttle';
import type { LocalSite } from './console-static';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

/**
 * Largest local request body. API Gateway caps payloads at 10 MB; the local
 * server admits a plain (un-gzipped) 10 MB SBOM wrapped in its JSON envelope
 * (BRIEF decision 8). Every route still applies its own ceiling in the handler.
 */
export const LOCAL_MAX_REQUEST_BYTES = 24 * 1024 * 1024;
const STAGE = 'api';

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  paramNames: string[];
  literalSegments: number;
}

/** Non-empty segments of a path: a route with N segments can only match a path with N. */
function segmentCount(path: string): number {
  let count = 0;
  for (let index = 0; index < path.length; index += 1) {
    if (path.charCodeAt(index) !== 47 /* / */ && (index === 0 || path.charCodeAt(index - 1) === 47)) count += 1;
  }
  return count;
}

/** The compiled routes by segment count (each list keeps compileRoutes' order), so a request tests only routes of its length. */
function routesBySegmentCount(compiled: readonly CompiledRoute[]): Map<number, CompiledRoute[]> {
  const buckets = new Map<number, CompiledRoute[]>();
  for (const candidate of compiled) {
    const count = segmentCount(candidate.route.path);
    let bucket = buckets.get(count);
    if (!bucket) buckets.set(count, (bucket = []));
    bucket.push(candidate);
  }
  return buckets;
}

function compileRoutes(): CompiledRoute[] {
  return (
    (routes as readonly RouteDefinition[])
      .map((route) => {
        const paramNames: string[] = [];
        const segments = route.path.split('/').filter(Boolean);
        const source = segments
          .map((segment) => {
            const param = /^\{(\w+)\}$/.exec(segment);
            if (param?.[1]) {
              paramNames.push(param[1]);
              return '([^/]+)';
            }
            return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          })
          .join('/');
        return {
          route,
          pattern: new RegExp(`^/${source}/?$`),
          paramNames,
          literalSegments: segments.filter((s) => !s.startsWith('{')).length,
        };
      })
      // API Gateway prefers literal path parts over path parameters (/api/sboms/upload before /api/sboms/{id}).
      .sort((a, b) => b.literalSegments - a.literalSegments)
  );
}

function firstValues(multi: Record<string, string[]>): Record<string, string> | null {
  const entries = Object.entries(multi);
  // REST APIs pass the last value of a repeated name in the single-value map.
  return entries.length
    ? Object.fromEntries(entries.map(([name, values]) => [name, values[values.length - 1] ?? '']))
    : null;
}

/** A percent-decoded URL component, or null when an escape is malformed (`%E0%A4%A`, `%ZZ`, a lone `%`, bytes that are not UTF-8). */
function decodeComponent(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/**
 * The query string as API Gateway's multi-value map (`+` is a space), or null when a name or
 * value does not decode. Read from the raw string: URLSearchParams would pass a malformed
 * escape on as U+FFFD or as literal text instead of refusing it.
 */
function decodeQuery(search: string): Record<string, string[]> | null {
  const multi: Record<string, string[]> = {};
  for (const pair of search.slice(1).split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decodeComponent((equals === -1 ? pair : pair.slice(0, equals)).replaceAll('+', ' '));
    const value = decodeComponent(equals === -1 ? '' : pair.slice(equals + 1).replaceAll('+', ' '));
    if (name === null || value === null) return null;
    (multi[name] ??= []).push(value);
  }
  return multi;
}

const NO_BODY = Buffer.alloc(0);

async function readBody(request: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  // Neither Content-Length nor Transfer-Encoding: the request has no body (RFC 9112 §6.3),
  // so skip the stream iterator; the server drains the (empty) stream after the response.
  const { 'content-length': contentLength, 'transfer-encoding': transferEncoding } = request.headers;
  if (transferEncoding === undefined && (contentLength === undefined || contentLength === '0')) return NO_BODY;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export interface LocalApiOptions {
  functionsDir: string;
  log?: (line: Record<string, unknown>) => void;
  /** Usage-plan throttling per team and the web ACL's per-client limit, as the stack configures them. */
  throttling?: LocalThrottlingOptions;
  /**
   * A server already listening (npm start binds first: the listening address is the
   * PUBLIC_BASE_URL the configuration needs before anything else loads). Default: a new one.
   */
  server?: Server;
  /** Requests outside the API that a local site answers (the web console), looked at before any route. */
  site?: LocalSite;
}

export interface LocalThrottlingOptions {
  /** The usage-plan throttle of the key an authorizer names (API Gateway's usage plans). */
  quotaOf: (usageIdentifier: string) => Promise<ThrottleQuota | undefined>;
  /** Requests per client IP per PUBLIC_CLIENT_WINDOW_SECONDS on the anonymous disclosure routes (the WAF rule). */
  publicClientLimit: number;
  /** Sign-in starts and token exchanges per client IP per window, counted together (the second WAF rule). */
  signInClientLimit: number;
  windowSeconds: number;
}

export interface LocalApi {
  server: Server;
  /** Stops accepting connections and resolves once in-flight requests have finished. */
  close(): Promise<void>;
}

export function createLocalApi(options: LocalApiOptions): LocalApi {
  const compiled = routesBySegmentCount(compileRoutes());
  const throttling = createThrottling(options.throttling);
  const handlers = new Map<string, Promise<ProxyHandler>>();
  let authorizer: Promise<AuthorizerHandler> | undefined;
  let inFlight = 0;
  let drained: (() => void) | undefined;

  const loadModule = async <T>(name: string): Promise<T> => {
    const module = (await import(pathToFileURL(join(options.functionsDir, name, 'handler.ts')).href)) as { handler: T };
    return module.handler;
  };
  const groupHandler = (group: EndpointGroup): Promise<ProxyHandler> => {
    let loaded = handlers.get(group);
    if (!loaded) {
      loaded = loadModule<ProxyHandler>(group);
      handlers.set(group, loaded);
    }
    return loaded;
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const startedAt = performance.now();
    const requestId = randomUUID();
    const method = request.method ?? 'GET';
    // An absolute-form target Node accepts but URL cannot read (a port past 65535) is a bad request, as an encoding error is.
    const urlReadable = URL.canParse(request.url ?? '/', 'http://localhost');
    const url = new URL(urlReadable ? (request.url ?? '/') : '/', 'http://localhost');
    const send = (result: { statusCode: number; headers?: Record<string, unknown>; body: string | Buffer }) => {
      const body = typeof result.body === 'string' ? Buffer.from(result.body, 'utf8') : result.body;
      const headers: Record<string, string> = { 'x-amzn-RequestId': requestId, 'Content-Length': String(body.length) };
      for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
      response.writeHead(result.statusCode, headers);
      response.end(method === 'HEAD' ? undefined : body);
      options.log?.({
        type: 'access',
        requestId,
        ip: request.socket.remoteAddress,
        method,
        path: url.pathname,
        status: result.statusCode,
        responseLength: body.length,
        durationMs: Math.round(performance.now() - startedAt),
      });
    };
    const gatewayResponse = (type: GatewayResponseType) =>
      send({ ...renderGatewayResponse(type, requestId), headers: gatewayResponseHeaders(type) });

    // The web ACL sees a request before API Gateway routes it.
    const firewall = throttling.firewall(url.pathname, request.socket.remoteAddress ?? '');
    if (firewall) return gatewayResponse(firewall);

    // API Gateway refuses a path or query string that does not percent-decode with a 400 of its own, on
    // every route and before the authorizer (issue 8, defect 8); the handlers never see such a request.
    const multiQuery = decodeQuery(url.search);
    if (!urlReadable || decodeComponent(url.pathname) === null || multiQuery === null)
      return gatewayResponse('DEFAULT_4XX');

    const pathMatches = (compiled.get(segmentCount(url.pathname)) ?? []).filter((candidate) =>
      candidate.pattern.test(url.pathname),
    );
    // API Gateway picks the resource first (literal segments before parameters, the order of
    // pathMatches), then the method on it: a method the resource lacks is the stack's 405, even
    // when a parameter resource elsewhere has it (GET /api/sboms/upload is not GET /api/sboms/{id}).
    const resource = pathMatches[0]?.route.path;
    if (resource === undefined) return gatewayResponse('MISSING_AUTHENTICATION_TOKEN');
    if (method === 'OPTIONS' && hasCorsPreflight(resource)) {
      // CORS preflight, on the resources where the stack installs one (the public disclosure routes).
      send({
        statusCode: 204,
        headers: {
          'Access-Control-Allow-Origin': '*',
          'Access-Control-Allow-Methods': 'GET,OPTIONS',
          'Access-Control-Allow-Headers': 'Content-Type',
        },
        body: '',
      });
      return;
    }
    const match = pathMatches.find(
      (candidate) => candidate.route.path === resource && candidate.route.method === method,
    );
    if (!match) return send(renderMethodNotAllowed(method, resource, methodsOfPath(resource), requestId));

    const body = await readBody(request, LOCAL_MAX_REQUEST_BYTES);
    if (body === 'too-large') return gatewayResponse('REQUEST_TOO_LARGE');

    const values = match.pattern.exec(url.pathname)?.slice(1) ?? [];
    // Each segment decodes: the whole path did, and no escape sequence spans a literal `/`.
    const pathParameters = match.paramNames.length
      ? Object.fromEntries(match.paramNames.map((name, index) => [name, decodeComponent(values[index] ?? '') ?? '']))
      : null;
    const multiHeaders: Record<string, string[]> = {};
    for (let index = 0; index < request.rawHeaders.length; index += 2) {
      const name = request.rawHeaders[index] ?? '';
      (multiHeaders[name] ??= []).push(request.rawHeaders[index + 1] ?? '');
    }
    const headers = firstValues(multiHeaders) ?? {};
    const now = new Date();
    const requestContext = {
      accountId: '000000000000',
      apiId: 'local',
      resourceId: 'local',
      stage: STAGE,
      requestId,
      extendedRequestId: requestId,
      resourcePath: match.route.path,
      httpMethod: method,
      path: `/${STAGE}${url.pathname}`,
      protocol: `HTTP/${request.httpVersion}`,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      domainName: request.headers.host ?? 'localhost',
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? null,
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        user: null,
        userArn: null,
      },
      authorizer: null as Record<string, unknown> | null,
    };
    const event: APIGatewayProxyEvent = {
      resource: match.route.path,
      path: url.pathname,
      httpMethod: method,
      headers,
      multiValueHeaders: multiHeaders,
      queryStringParameters: firstValues(multiQuery),
      multiValueQueryStringParameters: Object.keys(multiQuery).length ? multiQuery : null,
      pathParameters,
      stageVariables: null,
      requestContext,
      // binaryMediaTypes '*/*' on the deployed API: every body arrives base64-encoded.
      body: body.length ? body.toString('base64') : null,
      isBase64Encoded: body.length > 0,
    };

    if (match.route.scope !== null) {
      // The authorizer has no identity source (a request may carry a Bearer header or a session cookie), so it runs for every request.
      authorizer ??= loadModule<AuthorizerHandler>('authorizer');
      let result: APIGatewayAuthorizerResult;
      try {
        const authorize = await authorizer;
        // Each invocation runs as its own function, so the calls it makes are attributed to it (shared/service/aws-call-log.ts).
        result = await runAsFunction('authorizer', () =>
          authorize({
            type: 'REQUEST',
            methodArn: `arn:aws:execute-api:local:000000000000:local/${STAGE}/${method}${url.pathname}`,
            resource: match.route.path,
            path: url.pathname,
            httpMethod: method,
            headers,
            multiValueHeaders: multiHeaders,
            queryStringParameters: event.queryStringParameters,
            multiValueQueryStringParameters: event.multiValueQueryStringParameters,
            pathParameters,
            stageVariables: null,
            requestContext: { ...event.requestContext, authorizer: undefined },
          }),
        );
      } catch (error) {
        return gatewayResponse((error as Error).message === 'Unauthorized' ? 'UNAUTHORIZED' : 'DEFAULT_5XX');
      }
      const allowed = result.policyDocument.Statement.some(
        (statement) => 'Effect' in statement && statement.Effect === 'Allow',
      );
      if (!allowed) return gatewayResponse('ACCESS_DENIED');
      requestContext.authorizer = { ...(result.context ?? {}), principalId: result.principalId, integrationLatency: 0 };
      const throttled = await throttling.usagePlan(result.usageIdentifierKey);
      if (throttled) return gatewayResponse(throttled);
    }

    const handler = await groupHandler(match.route.group);
    const context = {
      callbackWaitsForEmptyEventLoop: false,
      functionName: `vexdesk-${match.route.group}`,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:vexdesk-${match.route.group}`,
      memoryLimitInMB: '1024',
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/vexdesk-${match.route.group}`,
      logStreamName: 'local',
      getRemainingTimeInMillis: () => 29_000,
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    } satisfies Context;
    const result = await runAsFunction(match.route.group, () => handler(event, context));
    const responseHeaders: Record<string, unknown> = { ...(result.headers ?? {}) };
    for (const [name, list] of Object.entries(result.multiValueHeaders ?? {})) responseHeaders[name] = list.join(', ');
    send({
      statusCode: result.statusCode,
      headers: responseHeaders,
      body: result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body,
    });
  }

  const server = options.server ?? createServer();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    inFlight += 1;
    (options.site?.matches(request) ? options.site.serve(request, response) : handle(request, response))
      .catch((error: unknown) => {
        // A Lambda crash: API Gateway answers 502/500 without details.
        options.log?.({ type: 'error', message: (error as Error).message });
        if (!response.headersSent) {
          response.writeHead(500, GATEWAY_RESPONSE_HEADERS);
          response.end(renderGatewayResponse('DEFAULT_5XX', 'local').body);
        }
      })
      .finally(() => {
        inFlight -= 1;
        if (inFlight === 0) drained?.();
      });
  });
  server.requestTimeout = 60_000;
  // Longer than any client's idle timeout, so a client never reuses a socket the server just closed.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets would hold close() open: drop them once no request is in flight.
        if (inFlight === 0) server.closeAllConnections();
        else drained = () => server.closeAllConnections();
      }),
  };
}

interface Throttling {
  /** WAF_FILTERED when the client is over a per-IP limit of the anonymous routes. */
  firewall(path: string, clientIp: string): GatewayResponseType | undefined;
  /** THROTTLED when the key's bucket is empty; INVALID_API_KEY when no usage plan holds it. */
  usagePlan(usageIdentifier: string | null | undefined): Promise<GatewayResponseType | undefined>;
}

/** API Gateway order: WAF first, then (private routes) the authorizer, then the usage plan of the key it returned. */
function createThrottling(options: LocalThrottlingOptions | undefined): Throttling {
  if (!options) return { firewall: () => undefined, usagePlan: () => Promise.resolve(undefined) };
  const clients = new ClientRateLimit(options.publicClientLimit, options.windowSeconds);
  const signInClients = new ClientRateLimit(options.signInClientLimit, options.windowSeconds);
  const plans = new UsagePlanThrottle({ quotaOf: options.quotaOf });
  const admitted = (path: string, clientIp: string, now: number) =>
    (!isPublicClientLimitedPath(path) || clients.admit(clientIp, now)) &&
    (!isSignInClientLimitedPath(path) || signInClients.admit(clientIp, now));
  return {
    firewall: (path, clientIp) => (admitted(path, clientIp, performance.now()) ? undefined : 'WAF_FILTERED'),
    usagePlan: async (usageIdentifier) => {
      if (!usageIdentifier) return 'INVALID_API_KEY';
      const decision = await plans.admit(usageIdentifier, performance.now());
      if (decision === 'unknown-key') return 'INVALID_API_KEY';
      return decision === 'throttled' ? 'THROTTLED' : undefined;
    },
  };
}
