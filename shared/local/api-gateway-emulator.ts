/**
 * Local stand-in for the deployed REST API: HTTP request →
 * the same API Gateway proxy event (payload format 1.0) → the same REQUEST
 * authorizer → the same group handler module → the same response. Gateway
 * responses (401/403/404/413) come from the shared table the stack installs.
 * The request is read in api-gateway-request.ts, matched to a route in
 * api-gateway-routes.ts and handed over as the events of api-gateway-events.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { hasCorsPreflight, methodsOfPath, type EndpointGroup } from '../service/http/routes';
import { runAsFunction } from '../service/aws-call-log';
import {
  GATEWAY_RESPONSE_HEADERS,
  gatewayResponseHeaders,
  renderGatewayResponse,
  renderMethodNotAllowed,
  type GatewayResponseType,
} from '../service/http/gateway-responses';
import { isPublicClientLimitedPath, isSignInClientLimitedPath } from '../service/http/throttling';
import type { ThrottleQuota } from '../service/identity/throttle-quota';
import { authorizerEvent, clientOf, lambdaContext, proxyEvent } from './api-gateway-events';
import { decodeComponent, decodeQuery, firstValues, multiValueHeaders, readBody } from './api-gateway-request';
import { compileRouteTable, pathParametersOf } from './api-gateway-routes';
import { ClientRateLimit, UsagePlanThrottle } from './local-throttle';
import type { LocalSite } from './console-static';
import { FUNCTION_HANDLERS } from './function-handlers';
import { keepIdleSocketsOpen } from './idle-sockets';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

/**
 * Largest local request body. API Gateway caps payloads at 10 MB; the local
 * server admits a plain (un-gzipped) 10 MB SBOM wrapped in its JSON envelope
 *. Every route still applies its own ceiling in the handler.
 */
export const LOCAL_MAX_REQUEST_BYTES = 24 * 1024 * 1024;

export interface LocalApiOptions {
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
  const routeTable = compileRouteTable();
  const throttling = createThrottling(options.throttling);
  const handlers = new Map<string, Promise<ProxyHandler>>();
  let authorizer: Promise<AuthorizerHandler> | undefined;
  let inFlight = 0;
  let drained: (() => void) | undefined;

  const loadModule = async <T>(name: EndpointGroup | 'authorizer'): Promise<T> =>
    (await FUNCTION_HANDLERS[name]()).handler as T;
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
    // every route and before the authorizer; the handlers never see such a request.
    const multiQuery = decodeQuery(url.search);
    if (!urlReadable || decodeComponent(url.pathname) === null || multiQuery === null)
      return gatewayResponse('DEFAULT_4XX');

    const pathMatches = routeTable.pathMatches(url.pathname);
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

    const multiHeaders = multiValueHeaders(request);
    const event = proxyEvent({
      client: clientOf(request),
      url,
      method,
      requestId,
      route: match.route,
      headers: firstValues(multiHeaders) ?? {},
      multiValueHeaders: multiHeaders,
      multiValueQuery: multiQuery,
      pathParameters: pathParametersOf(match, url.pathname),
      body,
    });

    if (match.route.scope !== null) {
      // The authorizer has no identity source (a request may carry a Bearer header or a session cookie), so it runs for every request.
      authorizer ??= loadModule<AuthorizerHandler>('authorizer');
      let result: APIGatewayAuthorizerResult;
      try {
        const authorize = await authorizer;
        // Each invocation runs as its own function, so the calls it makes are attributed to it (shared/service/aws-call-log.ts).
        result = await runAsFunction('authorizer', () => authorize(authorizerEvent(event)));
      } catch (error) {
        return gatewayResponse((error as Error).message === 'Unauthorized' ? 'UNAUTHORIZED' : 'DEFAULT_5XX');
      }
      const allowed = result.policyDocument.Statement.some(
        (statement) => 'Effect' in statement && statement.Effect === 'Allow',
      );
      if (!allowed) return gatewayResponse('ACCESS_DENIED');
      event.requestContext.authorizer = {
        ...(result.context ?? {}),
        principalId: result.principalId,
        integrationLatency: 0,
      };
      const throttled = await throttling.usagePlan(result.usageIdentifierKey);
      if (throttled) return gatewayResponse(throttled);
    }

    const handler = await groupHandler(match.route.group);
    const context = lambdaContext(match.route.group);
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
  keepIdleSocketsOpen(server);

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
