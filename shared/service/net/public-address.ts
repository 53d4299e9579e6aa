/**
 * Outbound requests to URLs a customer chooses (OIDC issuers and their key sets, webhooks) reach
 * public internet addresses only: never this host, the VPC, the link-local metadata endpoint
 * (169.254.169.254) or another special-purpose range. Otherwise whoever may configure such a URL can make
 * the service fetch internal resources for them (SSRF).
 *
 * The check is made on the address the connection uses: the host is resolved once, every address it
 * resolves to must be public, and the socket connects to one of those addresses, so a second DNS answer
 * cannot slip in between the check and the connection (DNS rebinding). Ranges are ipaddr.js's
 * special-purpose ranges; everything it calls `unicast` is public.
 */
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { commonJsExports } from '../common-js';
import type { Agent } from 'undici';

export interface AddressRules {
  /** Loopback addresses count as public: only for tests whose stand-in servers run on 127.0.0.1. */
  allowLoopback: boolean;
}

/** Documents fetched this way (discovery, key sets) are small; a larger answer is refused, not buffered. */
const DEFAULT_MAX_BYTES = 1024 * 1024;

export class NonPublicAddressError extends Error {
  constructor(host: string, address: string, range: string) {
    super(`${host} resolves to ${address}, a non-public address (${range})`);
    this.name = 'NonPublicAddressError';
  }
}

/** The special-purpose range `address` (an IP literal) lies in, or undefined for a public address. */
export function nonPublicRange(address: string, rules: AddressRules): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  // IPv4-mapped IPv6 (::ffff:a.b.c.d) reaches the IPv4 address: classify that one.
  const range = ipaddr.process(address).range();
  if (range === 'unicast' || (range === 'loopback' && rules.allowLoopback)) return undefined;
  return range;
}

/** The host of a URL as an IP literal (IPv6 without brackets), or undefined for a name. */
export function ipLiteralHost(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : undefined;
}

/** A `lookup` for sockets: resolves the name and fails unless every address it resolves to is public. */
export function publicAddressLookup(rules: AddressRules): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses
        .map(({ address }) => ({ address, range: nonPublicRange(address, rules) }))
        .find(({ range }) => range !== undefined);
      if (refused || addresses.length === 0) {
        const failure = new NonPublicAddressError(hostname, refused?.address ?? 'nothing', refused?.range ?? 'none');
        return callback(failure, '', 0);
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

const agents = new Map<boolean, Agent>();
/** Below the 5 s that servers commonly keep an idle connection: a request rarely meets one the server is closing. */
const IDLE_CONNECTION_MS = 4000;

/**
 * One keep-alive pool (undici's, far less CPU per request than node:http's client) per rule: a request reuses an
 * idle connection to its origin, which was checked when it connected and stays connected to that address, so a
 * later DNS answer cannot redirect it; a new connection is checked again (the socket's lookup). The rule is part of
 * the pool: a connection opened where loopback was allowed is never reused where it is not. undici is loaded with
 * the first request: functions that never make one (most cold starts) do not load it.
 */
async function newAgent(rules: AddressRules): Promise<Agent> {
  const { Agent: PoolingAgent } = commonJsExports(await import('undici'));
  // Another request may have made it meanwhile.
  let agent = agents.get(rules.allowLoopback);
  if (!agent) {
    // Idle connections close on the server's keep-alive hint, else after IDLE_CONNECTION_MS.
    agent = new PoolingAgent({
      connect: { lookup: publicAddressLookup({ allowLoopback: rules.allowLoopback }) },
      keepAliveTimeout: IDLE_CONNECTION_MS,
    });
    agents.set(rules.allowLoopback, agent);
  }
  return agent;
}

export interface PublicFetchOptions extends AddressRules {
  method?: string;
  headers?: Headers | Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  maxBytes?: number;
}

/** An answer read whole: what a caller that needs no `Response` (a webhook's status and excerpt) gets. */
export interface PublicAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface PublicRequestOptions extends AddressRules {
  method?: string;
  /** Lower-case names. */
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  /** The whole exchange, connection included, is given up after this long. */
  timeoutMs?: number;
  maxBytes?: number;
}

function responseHeaders(message: PublicAnswer['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

export class PublicRequestTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * One request whose connection goes only to a public address, its answer read whole (at most `maxBytes`).
 * Redirects are not followed: a 3xx is answered as it is, so a redirect cannot lead to an internal address
 * either. Plain objects, no `Response`: a dispatcher sending thousands of webhooks a second pays for little else.
 */
export async function requestPublicAddress(url: string | URL, options: PublicRequestOptions): Promise<PublicAnswer> {
  const target = typeof url === 'string' ? new URL(url) : url;
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new Error(`cannot fetch ${target.protocol}`);
  const literal = ipLiteralHost(target);
  const literalRange = literal === undefined ? undefined : nonPublicRange(literal, options);
  // A socket given an IP literal does not call its lookup: check the literal here.
  if (literal !== undefined && literalRange !== undefined)
    throw new NonPublicAddressError(target.hostname, literal, literalRange);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const { timeoutMs } = options;
  const timeout = timeoutMs === undefined ? undefined : new AbortController();
  const timer = timeout && setTimeout(() => timeout.abort(new PublicRequestTimeoutError(timeoutMs!)), timeoutMs);
  const signal =
    timeout && options.signal ? AbortSignal.any([timeout.signal, options.signal]) : (timeout?.signal ?? options.signal);
  try {
    const agent = agents.get(options.allowLoopback) ?? (await newAgent(options));
    const answer = await agent.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: options.method ?? 'GET',
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(signal ? { signal } : {}),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of answer.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        answer.body.destroy();
        throw new Error(`answer larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return {
      status: answer.statusCode,
      headers: answer.headers,
      body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** A fetch (the subset this service needs) whose connection goes only to a public address; see requestPublicAddress. */
export async function fetchFromPublicAddress(url: string | URL, options: PublicFetchOptions): Promise<Response> {
  const { headers, ...rest } = options;
  const answer = await requestPublicAddress(url, {
    ...rest,
    ...(headers ? { headers: Object.fromEntries(new Headers(headers).entries()) } : {}),
  });
  const empty = answer.status === 204 || answer.status === 205 || answer.status === 304;
  return new Response(empty ? null : answer.body, {
    status: answer.status,
    statusText: STATUS_CODES[answer.status] ?? '',
    headers: responseHeaders(answer.headers),
  });
}
