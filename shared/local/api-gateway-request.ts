/**
 * An HTTP request read the way API Gateway reads it: percent-decoding that refuses a
 * malformed escape, the multi-value query and header maps, and the body under a size cap.
 */
import type { IncomingMessage } from 'node:http';

export function firstValues(multi: Record<string, string[]>): Record<string, string> | null {
  const entries = Object.entries(multi);
  // REST APIs pass the last value of a repeated name in the single-value map.
  return entries.length
    ? Object.fromEntries(entries.map(([name, values]) => [name, values[values.length - 1] ?? '']))
    : null;
}

/** A percent-decoded URL component, or null when an escape is malformed (`%E0%A4%A`, `%ZZ`, a lone `%`, bytes that are not UTF-8). */
export function decodeComponent(value: string): string | null {
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
export function decodeQuery(search: string): Record<string, string[]> | null {
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

/** Every header with all its values, under the names as the client sent them. */
export function multiValueHeaders(request: IncomingMessage): Record<string, string[]> {
  const multi: Record<string, string[]> = {};
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] ?? '';
    (multi[name] ??= []).push(request.rawHeaders[index + 1] ?? '');
  }
  return multi;
}

const NO_BODY = Buffer.alloc(0);

export async function readBody(request: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
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
