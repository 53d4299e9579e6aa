/**
 * The client's one way to the service: the HTTPS API under a base URL, with a bearer token, through
 * openapi-fetch typed by the OpenAPI document (./api-types). A JSON error body
 * (`{ error: { code, message, details, requestId } }`, docs/api.md) becomes a ServiceError (exit 3);
 * so does a service that cannot be reached or an answer that is not JSON. Throttled and briefly
 * unavailable answers are retried a few times, with the server's Retry-After when it names one.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { setTimeout as sleep } from 'node:timers/promises';
import { trimTrailing } from '../service/text';
import type { paths, ServiceErrorBody } from './api-types';
import { ServiceError, UsageError } from './errors';

const RETRIED = new Set([429, 502, 503, 504]);
const ATTEMPTS = 4;
/** `application/json`, `application/problem+json`, with or without parameters. */
const JSON_MEDIA_TYPE = /^[^;]*[/+]json\s*(?:;|$)/i;

export interface ApiClient extends Client<paths> {
  /** The service's URL without a trailing slash; the API's paths (`/api/...`) follow it. */
  readonly baseUrl: string;
  /** The text at a path the service links to (a disclosure's signature, a key list), as it is. */
  linkedText(path: string): Promise<string>;
}

/** Plain HTTP only to this machine: a bearer token must not cross a network in clear. */
export function parseBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`the service URL "${raw}" is not a URL (e.g. https://vexdesk.example.com)`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new UsageError(`the service URL must be https:// (plain http only on this machine): ${raw}`);
  }
  return url;
}

/** A client of the service; without a token it reaches the public routes only (disclosures, the OIDC exchange). */
export function createApiClient(serviceUrl: string, token?: string, userAgent = 'vexdesk-cli'): ApiClient {
  const baseUrl = trimTrailing(parseBaseUrl(serviceUrl).href, '/');
  const send = retrying(baseUrl);
  const client = createClient<paths>({
    baseUrl,
    fetch: send,
    headers: {
      'user-agent': userAgent,
      accept: 'application/json',
      authorization: token === undefined ? undefined : `Bearer ${token}`,
    },
  });
  client.use(serviceErrors(baseUrl));
  return Object.assign(client, {
    baseUrl,
    async linkedText(path: string): Promise<string> {
      const response = await send(
        new Request(`${baseUrl}${path}`, { headers: { 'user-agent': userAgent, accept: '*/*' } }),
      );
      if (!response.ok) throw new ServiceError(`GET ${path} → ${response.status}`, response.status);
      return response.text();
    },
  });
}

/**
 * The body of a call's answer. An error answer never gets here (`serviceErrors` throws it); an answer
 * without a body, or one that is not JSON, is the service's failure, not the client's crash.
 */
export async function ok<T>(call: Promise<{ data?: T; response: Response }>): Promise<{ body: T; status: number }> {
  let answer: { data?: T; response: Response };
  try {
    answer = await call;
  } catch (error) {
    if (error instanceof SyntaxError) throw new ServiceError(`the service answered with a body that is not JSON`);
    throw error;
  }
  const { data, response } = answer;
  if (data === undefined)
    throw new ServiceError(`${response.url} answered ${response.status} without a body`, response.status);
  return { body: data, status: response.status };
}

/** fetch, each request sent again on a throttled or briefly unavailable answer; an unreachable service is a ServiceError. */
function retrying(baseUrl: string): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await fetch(request.clone());
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
        throw new ServiceError(`cannot reach ${baseUrl}: ${cause}`);
      }
      if (!RETRIED.has(response.status) || attempt === ATTEMPTS) return response;
      await response.arrayBuffer();
      const after = Number(response.headers.get('retry-after'));
      await sleep(Number.isFinite(after) && after > 0 ? Math.min(after, 10) * 1000 : 250 * 2 ** attempt);
    }
  };
}

/**
 * Every answer that is not a success becomes a ServiceError naming the call, as `METHOD /api/path →
 * status code: message`; so does a success that is not the JSON the call expects (a proxy's page).
 */
function serviceErrors(baseUrl: string): Middleware {
  const basePath = trimTrailing(new URL(baseUrl).pathname, '/');
  return {
    async onResponse({ request, response, options }) {
      const path = new URL(request.url).pathname.slice(basePath.length);
      if (!response.ok) throw errorOf(request.method, path, response.status, await response.text());
      const type = response.headers.get('content-type');
      if (options.parseAs === 'json' && type !== null && !JSON_MEDIA_TYPE.test(type))
        throw new ServiceError(
          `${request.method} ${path} answered ${response.status} with a body that is not JSON`,
          response.status,
        );
      return undefined;
    },
  };
}

function errorOf(method: string, path: string, status: number, text: string): ServiceError {
  let parsed: Partial<ServiceErrorBody> = {};
  try {
    parsed = JSON.parse(text) as Partial<ServiceErrorBody>;
  } catch {
    // Not the service's JSON error (a proxy's HTML page, say): the status alone says what failed.
  }
  const error: Partial<ServiceErrorBody['error']> = parsed.error ?? {};
  const hint =
    status === 401
      ? ' (check the token: expired, revoked or not a Vexdesk credential)'
      : status === 403
        ? ' (the credential lacks the scope this call needs)'
        : '';
  const message = `${method} ${path} → ${status}${error.code ? ` ${error.code}` : ''}: ${error.message ?? 'request failed'}${hint}`;
  return new ServiceError(message, status, error.code ?? null, error.details ?? [], error.requestId ?? null);
}
