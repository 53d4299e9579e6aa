/**
 * The client's one way to the service: the HTTPS API under a base URL, with a bearer token.
 * A JSON error body (`{ error: { code, message, details, requestId } }`, docs/api.md) becomes a
 * ServiceError (exit 3); so does a service that cannot be reached. Throttled and briefly
 * unavailable answers are retried a few times, with the server's Retry-After when it names one.
 */
import { trimTrailing } from '../service/text';
import { ServiceError, UsageError } from './errors';

export interface ApiRequest {
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  body?: Uint8Array | string;
  headers?: Record<string, string>;
  /** Public routes (disclosures, the OIDC exchange) are called without the token. */
  anonymous?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

const RETRIED = new Set([429, 502, 503, 504]);
const ATTEMPTS = 4;

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

export class ApiClient {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private token: string | undefined,
    private readonly userAgent = 'vexdesk-cli',
  ) {
    this.baseUrl = trimTrailing(parseBaseUrl(baseUrl).href, '/');
  }

  withToken(token: string): ApiClient {
    return new ApiClient(this.baseUrl, token, this.userAgent);
  }

  /** An absolute URL for a path the API answers (`/api/...`), kept under the base URL's own path. */
  url(path: string, query: ApiRequest['query'] = {}): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    return url.href;
  }

  async raw(method: string, path: string, request: ApiRequest = {}): Promise<Response> {
    const headers: Record<string, string> = {
      'user-agent': this.userAgent,
      accept: 'application/json',
      ...request.headers,
    };
    if (!request.anonymous) {
      if (!this.token)
        throw new UsageError(
          'no credential: pass --token or set VEXDESK_TOKEN (or run in GitHub Actions with OIDC, see docs/ci.md)',
        );
      headers.authorization = `Bearer ${this.token}`;
    }
    let body: Uint8Array | string | undefined = request.body;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] ??= 'application/json';
    }
    const target = this.url(path, request.query);
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await fetch(target, { method, headers, body });
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
        throw new ServiceError(`cannot reach ${this.baseUrl}: ${cause}`);
      }
      if (!RETRIED.has(response.status) || attempt === ATTEMPTS) return response;
      await response.arrayBuffer();
      const after = Number(response.headers.get('retry-after'));
      await sleep(Number.isFinite(after) && after > 0 ? Math.min(after, 10) * 1000 : 250 * 2 ** attempt);
    }
  }

  async request<T>(method: string, path: string, request: ApiRequest = {}): Promise<ApiResponse<T>> {
    const response = await this.raw(method, path, request);
    const text = await response.text();
    if (!response.ok) throw errorOf(method, path, response.status, text);
    if (response.status === 204 || text === '')
      return { status: response.status, headers: response.headers, body: undefined as T };
    try {
      return { status: response.status, headers: response.headers, body: JSON.parse(text) as T };
    } catch {
      throw new ServiceError(
        `${method} ${path} answered ${response.status} with a body that is not JSON`,
        response.status,
      );
    }
  }

  get<T>(path: string, request: ApiRequest = {}): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, request);
  }

  post<T>(path: string, json?: unknown, request: ApiRequest = {}): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, { ...request, ...(json === undefined ? {} : { json }) });
  }

  /** Every item of a paged list (`{ data, meta: { hasNextPage } }`), page by page. */
  async *pages<T>(path: string, query: ApiRequest['query'] = {}, perPage = 500): AsyncGenerator<T[]> {
    for (let page = 1; ; page += 1) {
      const { body } = await this.get<{ data: T[]; meta?: { hasNextPage?: boolean } }>(path, {
        query: { ...query, page, perPage },
      });
      yield body.data;
      if (!body.meta?.hasNextPage) return;
    }
  }
}

interface ErrorBody {
  error?: {
    code?: string;
    message?: string;
    details?: { path?: string; message?: string; code?: string }[];
    requestId?: string;
  };
}

function errorOf(method: string, path: string, status: number, text: string): ServiceError {
  let parsed: ErrorBody = {};
  try {
    parsed = JSON.parse(text) as ErrorBody;
  } catch {
    // Not the service's JSON error (a proxy's HTML page, say): the status alone says what failed.
  }
  const error = parsed.error ?? {};
  const hint =
    status === 401
      ? ' (check the token: expired, revoked or not a Vexdesk credential)'
      : status === 403
        ? ' (the credential lacks the scope this call needs)'
        : '';
  const message = `${method} ${path} → ${status}${error.code ? ` ${error.code}` : ''}: ${error.message ?? 'request failed'}${hint}`;
  return new ServiceError(message, status, error.code ?? null, error.details ?? [], error.requestId ?? null);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
