/**
 * Embedded S3-compatible engine: s3rver (files on disk) with the pieces the
 * application relies on and s3rver lacks, added as Koa middleware in front of its
 * router:
 * - conditional writes: PutObject / CompleteMultipartUpload with `If-None-Match: *`
 *   answer 412 PreconditionFailed when the key exists (`If-Match: <etag>` likewise),
 *   atomically, because every write of a key holds that key's lock exclusively; reads
 *   (GET, HEAD) with `If-Match: <etag>` answer 412 for another ETag, as S3 does;
 * - reads of a key hold its lock shared until the body is sent, so a reader never
 *   sees an object half replaced;
 * - `aws-chunked` request bodies (what SDK v3 sends for streamed uploads with
 *   checksums) are decoded, and their CRC32 trailer checked, instead of being stored
 *   verbatim;
 * - objects are written to a temporary file and renamed, and acknowledged only once
 *   flushed (s3rver answers as soon as its hashing stream is done, not the file);
 * - only requests signed (SigV4, header or pre-signed URL) with the data directory's key
 *   pair get in (sigv4-verifier.ts; s3rver checks no V4 signature and lets unsigned
 *   requests through), else S3's 403 InvalidAccessKeyId / SignatureDoesNotMatch /
 *   AccessDenied.
 */
import { createRequire } from 'node:module';
import { randomUUID, createHash } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { KeyedReadWriteLock, ReadWriteLock, type Release } from './embedded-lock';
import { verifySigV4, type EngineCredentials } from './sigv4-verifier';

const require = createRequire(import.meta.url);

export interface EmbeddedS3 {
  endpoint: string;
  stop(): Promise<void>;
}

export interface EmbeddedS3Options {
  /** Directory holding the buckets. */
  directory: string;
  /** The only key pair requests may be signed with. */
  credentials: EngineCredentials;
  /** Loopback port; 0 or omitted = random. */
  port?: number;
}

/** The part of a Koa context the middleware uses. */
interface KoaContext {
  method: string;
  path: string;
  url: string;
  query: Record<string, string | string[] | undefined>;
  headers: IncomingHttpHeaders;
  req: IncomingMessage | Readable;
  request: { req: IncomingMessage };
  res: ServerResponse;
}
type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

interface StoredObject {
  bucket: string;
  key: string;
  content: Buffer | Readable;
  metadata: Record<string, unknown>;
}

interface FilesystemStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  existsObject(bucket: string, key: string): Promise<boolean>;
  getMetadata(bucket: string, key: string): Promise<{ etag: string }>;
  putMetadata(bucket: string, key: string, metadata: Record<string, unknown>, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
  putPart(
    bucket: string,
    uploadId: string,
    partNumber: string,
    content: Readable,
  ): Promise<{ size: number; md5: string }>;
}

interface S3rverInstance {
  middleware: Middleware[];
  store: FilesystemStore;
  httpServer?: Server;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}

interface S3rverOptions {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  allowMismatchedSignatures: boolean;
  vhostBuckets: boolean;
}

const S3rver = require('s3rver') as new (options: S3rverOptions) => S3rverInstance;
const S3Error = require('s3rver/lib/models/error') as new (
  code: string,
  message: string,
  detail?: Record<string, string>,
) => Error;
const accounts = require('s3rver/lib/models/account') as {
  registry: Map<string, unknown>;
  DUMMY_ACCOUNT: { createKeyPair(accessKeyId: string, secretAccessKey: string): void };
};

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function queryValue(query: KoaContext['query'], name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

/** S3's answers to a request that is unsigned or not signed with the data directory's key. */
function signatureError(problem: string, message: string, accessKeyId: string | undefined): Error {
  const detail: Record<string, string> = accessKeyId === undefined ? {} : { AWSAccessKeyId: accessKeyId };
  switch (problem) {
    case 'unknown-key':
      return new S3Error(
        'InvalidAccessKeyId',
        'The AWS Access Key Id you provided does not exist in our records.',
        detail,
      );
    case 'mismatch':
      return new S3Error(
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
        detail,
      );
    case 'skewed':
      return new S3Error(
        'RequestTimeTooSkewed',
        'The difference between the request time and the current time is too large.',
      );
    case 'malformed':
      return new S3Error('InvalidRequest', message);
    default: // 'missing', 'expired'
      return new S3Error('AccessDenied', problem === 'expired' ? 'Request has expired' : 'Access Denied');
  }
}

/** Bucket and key of a path-style object URL, or undefined for service/bucket calls. */
function objectOf(ctx: KoaContext): { bucket: string; key: string } | undefined {
  const match = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
  if (!match?.[1] || !match[2]) return undefined;
  try {
    return { bucket: decodeURIComponent(match[1]), key: decodeURIComponent(match[2]) };
  } catch {
    return undefined; // malformed escapes: s3rver's router answers those
  }
}

/** Decodes an `aws-chunked` body (`<hex size>[;chunk-signature=...]\r\n<data>\r\n ... 0\r\n<trailers>\r\n`). */
class AwsChunkedDecoder extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private state: 'size' | 'data' | 'data-end' | 'trailer' | 'done' = 'size';
  private remaining = 0;
  private decoded = 0;
  private crc = 0;
  private readonly trailers = new Map<string, string>();

  constructor(private readonly expectedLength: number | undefined) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    try {
      this.drain();
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.state !== 'trailer' && this.state !== 'done')
      return callback(new S3Error('IncompleteBody', 'The request body terminated unexpectedly'));
    if (this.expectedLength !== undefined && this.decoded !== this.expectedLength)
      return callback(
        new S3Error(
          'IncompleteBody',
          'You did not provide the number of bytes specified by the Content-Length HTTP header',
        ),
      );
    const expected = this.trailers.get('x-amz-checksum-crc32');
    if (expected !== undefined) {
      const actual = Buffer.alloc(4);
      actual.writeUInt32BE(this.crc >>> 0);
      if (actual.toString('base64') !== expected)
        return callback(new S3Error('BadDigest', 'The CRC32 you specified did not match the calculated checksum.'));
    }
    callback();
  }

  private drain(): void {
    for (;;) {
      if (this.state === 'done') {
        this.pending = Buffer.alloc(0);
        return;
      }
      if (this.state === 'data') {
        if (this.pending.length === 0) return;
        const piece = this.pending.subarray(0, this.remaining);
        this.pending = this.pending.subarray(piece.length);
        this.remaining -= piece.length;
        this.decoded += piece.length;
        this.crc = crc32(piece, this.crc);
        this.push(piece);
        if (this.remaining === 0) this.state = 'data-end';
        continue;
      }
      const end = this.pending.indexOf('\r\n');
      if (end < 0) {
        if (this.pending.length > 64 * 1024) throw new S3Error('InvalidRequest', 'Malformed aws-chunked body');
        return;
      }
      const line = this.pending.subarray(0, end).toString('latin1');
      this.pending = this.pending.subarray(end + 2);
      if (this.state === 'data-end') {
        if (line !== '') throw new S3Error('InvalidRequest', 'Malformed aws-chunked body');
        this.state = 'size';
      } else if (this.state === 'size') {
        const hex = line.split(';')[0] ?? '';
        if (!/^[0-9a-fA-F]+$/.test(hex)) throw new S3Error('InvalidRequest', 'Malformed aws-chunked body');
        this.remaining = Number.parseInt(hex, 16);
        this.state = this.remaining === 0 ? 'trailer' : 'data';
      } else if (line === '') {
        this.state = 'done';
      } else {
        const colon = line.indexOf(':');
        if (colon > 0) this.trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
    }
  }
}

/** Swaps an aws-chunked request body for its decoded bytes, and hides the encoding from s3rver. */
function decodeAwsChunked(ctx: KoaContext): void {
  const headers = ctx.request.req.headers;
  const encodings = (header(headers, 'content-encoding') ?? '')
    .split(',')
    .map((encoding) => encoding.trim())
    .filter(Boolean);
  const streaming = header(headers, 'x-amz-content-sha256')?.startsWith('STREAMING-') ?? false;
  if (!encodings.includes('aws-chunked') && !streaming) return;
  const remainingEncodings = encodings.filter((encoding) => encoding !== 'aws-chunked');
  // Stored as the object's Content-Encoding otherwise.
  if (remainingEncodings.length) headers['content-encoding'] = remainingEncodings.join(',');
  else delete headers['content-encoding'];
  const decodedLength = header(headers, 'x-amz-decoded-content-length');
  const expected = decodedLength === undefined ? undefined : Number(decodedLength);
  if (expected !== undefined) headers['content-length'] = String(expected);
  const decoder = new AwsChunkedDecoder(Number.isFinite(expected) ? expected : undefined);
  ctx.request.req.pipe(decoder);
  ctx.request.req.on('error', (error) => decoder.destroy(error));
  ctx.req = decoder;
}

/** Writes a body to a temporary file, then renames it into place once flushed. */
async function writeFileAtomically(target: string, content: Buffer | Readable): Promise<{ size: number; md5: string }> {
  await mkdir(path.dirname(target), { recursive: true });
  // Not ending in "._S3rver_object", so listings never show it.
  const temporary = `${target}.${randomUUID()}.tmp`;
  const md5 = createHash('md5');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      md5.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  try {
    await pipeline(
      Buffer.isBuffer(content) ? Readable.from([content]) : content,
      measure,
      createWriteStream(temporary),
    );
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return { size, md5: md5.digest('hex') };
}

export async function startEmbeddedS3(options: EmbeddedS3Options): Promise<EmbeddedS3> {
  await mkdir(options.directory, { recursive: true, mode: 0o700 });
  // s3rver looks the access key up in its (process-wide) registry after our own check.
  if (!accounts.registry.has(options.credentials.accessKeyId))
    accounts.DUMMY_ACCOUNT.createKeyPair(options.credentials.accessKeyId, options.credentials.secretAccessKey);
  const s3rver = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    directory: options.directory,
    silent: true,
    allowMismatchedSignatures: false,
    // Path-style only (clients use forcePathStyle), so a Host header never names a bucket.
    vhostBuckets: false,
  });
  const store = s3rver.store;

  store.putObject = async (object) => {
    const result = await writeFileAtomically(
      store.getResourcePath(object.bucket, object.key, 'object'),
      object.content,
    );
    await store.putMetadata(object.bucket, object.key, object.metadata, result.md5);
    return result;
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const partPath = path.join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId, partNumber);
    const result = await writeFileAtomically(partPath, content);
    await writeFileAtomically(`${partPath}.md5`, Buffer.from(result.md5));
    return result;
  };

  const inFlight = new ReadWriteLock();
  const keys = new KeyedReadWriteLock();
  let stopped = false;

  const holdUntilSent = (ctx: KoaContext, release: Release): boolean => {
    if (ctx.res.destroyed) {
      release(); // the client is gone; 'close' already happened
      return false;
    }
    ctx.res.once('close', release);
    return true;
  };

  // Every request is tracked so stop() can wait for the ones in progress.
  const track: Middleware = async (ctx, next) => {
    const release = await inFlight.shared();
    if (stopped) {
      release();
      ctx.res.destroy();
      return;
    }
    if (holdUntilSent(ctx, release)) await next();
  };

  // Before s3rver's own middleware; only a CORS preflight goes unsigned, as on S3.
  const authenticate: Middleware = async (ctx, next) => {
    if (ctx.method.toUpperCase() !== 'OPTIONS') {
      const request = ctx.request.req;
      const verdict = await verifySigV4(
        { method: ctx.method, url: request.url ?? ctx.url, headers: request.headers },
        options.credentials,
      );
      if (!verdict.ok) throw signatureError(verdict.problem, verdict.message, verdict.accessKeyId);
    }
    await next();
  };

  const conditionalWrites: Middleware = async (ctx, next) => {
    const object = objectOf(ctx);
    if (!object) return next();
    const method = ctx.method.toUpperCase();
    const uploadId = queryValue(ctx.query, 'uploadId');
    const isPartUpload = method === 'PUT' && uploadId !== undefined;
    // Writes that replace the object: PutObject, CopyObject, CompleteMultipartUpload, DeleteObject (not its tagging/acl).
    const replaces =
      (method === 'PUT' && !isPartUpload && !('tagging' in ctx.query) && !('acl' in ctx.query)) ||
      (method === 'POST' && uploadId !== undefined) ||
      (method === 'DELETE' && uploadId === undefined && !('tagging' in ctx.query));
    const reads = method === 'GET' || method === 'HEAD';
    if (method === 'PUT' || method === 'POST') decodeAwsChunked(ctx);
    if (!replaces && !reads) return next();

    const lockKey = `${object.bucket}/${object.key}`;
    const release = await (replaces ? keys.exclusive(lockKey) : keys.shared(lockKey));
    if (!holdUntilSent(ctx, release)) return;
    // S3 answers a read whose If-Match names another ETag 412; s3rver ignores If-Match on reads.
    const readIfMatch = reads ? header(ctx.headers, 'if-match')?.trim() : undefined;
    if (readIfMatch !== undefined && readIfMatch !== '*') {
      const current = await store.getMetadata(object.bucket, object.key).catch(() => undefined);
      if (current && readIfMatch.replace(/^"|"$/g, '') !== current.etag.replace(/^"|"$/g, ''))
        throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
          Condition: 'If-Match',
        });
    }
    if (replaces && method !== 'DELETE') {
      const ifNoneMatch = header(ctx.headers, 'if-none-match');
      const ifMatch = header(ctx.headers, 'if-match');
      if (ifNoneMatch?.trim() === '*' && (await store.existsObject(object.bucket, object.key)))
        throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
          Condition: 'If-None-Match',
        });
      if (ifMatch !== undefined) {
        const current = await store.getMetadata(object.bucket, object.key).catch(() => undefined);
        if (!current) throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: object.key });
        const wanted = ifMatch.trim();
        if (wanted !== '*' && wanted.replace(/^"|"$/g, '') !== current.etag.replace(/^"|"$/g, ''))
          throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
            Condition: 'If-Match',
          });
      }
    }
    await next();
  };

  // Koa runs app.middleware in order: tracking, then authentication, first; conditional
  // writes just before the router (last).
  s3rver.middleware.unshift(track, authenticate);
  s3rver.middleware.splice(s3rver.middleware.length - 1, 0, conditionalWrites);

  const address = await s3rver.run();
  const server = s3rver.httpServer;
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    stop() {
      stopping ??= (async () => {
        const closed = s3rver.close();
        // Lets the requests in progress finish (their files are then renamed into place).
        const release = await inFlight.exclusive();
        stopped = true;
        release();
        server?.closeAllConnections();
        await closed;
      })();
      return stopping;
    },
  };
}
