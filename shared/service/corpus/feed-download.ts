/**
 * Downloads of the corpus feeds, each checked whole before anyone reads it: HTTP status, a body of
 * the announced length, and the md5 of `x-goog-hash` that OSV's bucket (Google Cloud Storage) sends.
 * A feed fetched before may be asked for conditionally (ETag, Last-Modified): an unchanged feed then
 * answers 304 and is not downloaded again.
 *
 * Redirects are followed by hand, at most `MAX_REDIRECTS`, and never from https to anything else: feed
 * URLs are operator configuration, but a feed host that moved (EPSS did) or a CDN in front of
 * it must not be able to downgrade the download to plain http or point it at another scheme.
 */
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** One download may take this long (the function runs up to 300 s; an all.zip downloads in seconds). */
const DOWNLOAD_TIMEOUT_MS = 150_000;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export class FeedDownloadError extends Error {
  constructor(
    readonly url: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${url}: ${message}`, options);
    this.name = 'FeedDownloadError';
  }
}

/** What a server said identifies the version it sent; sent back, it lets an unchanged feed answer 304. */
export interface FeedValidators {
  etag?: string;
  lastModified?: string;
}

export type Downloaded<T> = { notModified: true } | { notModified: false; body: T; validators: FeedValidators };

async function request(url: string, validators: FeedValidators | undefined): Promise<Response> {
  const headers: Record<string, string> = {};
  if (validators?.etag) headers['If-None-Match'] = validators.etag;
  if (validators?.lastModified) headers['If-Modified-Since'] = validators.lastModified;
  const signal = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
  let current = new URL(url);
  for (let redirects = 0; ; redirects++) {
    let response: Response;
    try {
      response = await fetch(current, { headers, redirect: 'manual', signal });
    } catch (error) {
      throw new FeedDownloadError(url, `request failed: ${(error as Error).message}`, { cause: error });
    }
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    await response.body?.cancel();
    current = redirectTarget(url, current, response.headers.get('location'), redirects);
  }
}

/** Where a redirect leads, if it may be followed: a Location, within the hop limit, not away from https. */
function redirectTarget(url: string, from: URL, location: string | null, redirects: number): URL {
  if (!location) throw new FeedDownloadError(url, 'redirect without a Location');
  if (redirects >= MAX_REDIRECTS) throw new FeedDownloadError(url, `more than ${MAX_REDIRECTS} redirects`);
  const to = new URL(location, from);
  const allowed = to.protocol === 'https:' || (from.protocol === 'http:' && to.protocol === 'http:');
  if (!allowed) throw new FeedDownloadError(url, `redirect from ${from.protocol} to ${to.protocol} refused`);
  return to;
}

function validatorsOf(response: Response): FeedValidators {
  const etag = response.headers.get('etag');
  const lastModified = response.headers.get('last-modified');
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}

/** Streams the body into `sink`, then checks its length and md5 against the response's headers. */
async function receive(url: string, response: Response, sink: Writable): Promise<void> {
  if (!response.ok || !response.body) throw new FeedDownloadError(url, `HTTP ${response.status}`);
  const expected = response.headers.get('content-length');
  // GCS (OSV) sends `x-goog-hash: crc32c=…,md5=<base64>`: when present, the bytes must match it.
  const md5 = /(?:^|,)\s*md5=([A-Za-z0-9+/=]+)/.exec(response.headers.get('x-goog-hash') ?? '')?.[1];
  const hash: Hash = createHash('md5');
  let received = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body), count, sink);
  } catch (error) {
    throw new FeedDownloadError(url, `download broken off after ${received} bytes: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (expected !== null && Number(expected) !== received)
    throw new FeedDownloadError(url, `received ${received} of ${expected} bytes`);
  if (md5 !== undefined && hash.digest('base64') !== md5)
    throw new FeedDownloadError(url, 'content does not match its x-goog-hash md5');
}

/** Streams `url` to `file` (feeds of hundreds of megabytes); fails on an HTTP error, a broken connection or a body of the wrong length. */
export async function downloadToFile(
  url: string,
  file: string,
  validators?: FeedValidators,
): Promise<Downloaded<string>> {
  const response = await request(url, validators);
  if (validators && response.status === 304) return { notModified: true };
  await receive(url, response, createWriteStream(file, { mode: 0o600 }));
  return { notModified: false, body: file, validators: validatorsOf(response) };
}

/** A small feed file (a record, a listing, the KEV catalog) held in memory, with the same checks. */
export async function downloadBytes(url: string, validators?: FeedValidators): Promise<Downloaded<Buffer>> {
  const response = await request(url, validators);
  if (validators && response.status === 304) return { notModified: true };
  const chunks: Buffer[] = [];
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  await receive(url, response, collect);
  return { notModified: false, body: Buffer.concat(chunks), validators: validatorsOf(response) };
}
