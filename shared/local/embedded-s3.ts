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
 *   verbatim (aws-chunked-decoder.ts);
 * - objects are written to a temporary file and renamed, and acknowledged only once
 *   flushed (embedded-s3-durable-writes.ts);
 * - only requests signed (SigV4, header or pre-signed URL) with the data directory's key
 *   pair get in (sigv4-verifier.ts; s3rver checks no V4 signature and lets unsigned
 *   requests through), else S3's 403 InvalidAccessKeyId / SignatureDoesNotMatch /
 *   AccessDenied.
 */
import { mkdir } from 'node:fs/promises';
import { decodeAwsChunked } from './aws-chunked-decoder';
import { KeyedReadWriteLock, ReadWriteLock, type Release } from './embedded-lock';
import { writeObjectsAtomically } from './embedded-s3-durable-writes';
import { S3Error, S3rver, accounts, header, queryValue, type KoaContext, type Middleware } from './embedded-s3rver';
import { verifySigV4, type EngineCredentials } from './sigv4-verifier';

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

  writeObjectsAtomically(store);

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
