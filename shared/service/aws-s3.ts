/**
 * Every S3 call of the service (shared/service/aws-clients.ts builds and caches the client per team).
 *
 * The S3 package (about 130 KB minified with the middleware it adds to the SDK core) is imported
 * on the first call, not at cold start: in every function bundle it sits in a lazy chunk, so only
 * the requests that read or write an object load it, once per container. Most requests of the
 * releases, dispositions, scans and VEX functions never touch S3 (docs/architecture/cold-starts.md
 * "Bundles"). Code outside this module imports only the package's types.
 */
import type {
  CreateBucketCommandInput,
  DeleteObjectCommandInput,
  DeleteObjectsCommandInput,
  GetObjectCommandInput,
  GetObjectCommandOutput,
  HeadBucketCommandInput,
  HeadObjectCommandInput,
  HeadObjectCommandOutput,
  ListObjectsV2CommandInput,
  ListObjectsV2CommandOutput,
  PutObjectCommandInput,
  S3Client,
} from '@aws-sdk/client-s3';
import { s3ClientOf } from './aws-clients';

async function s3Sdk() {
  const sdk = await import('@aws-sdk/client-s3');
  return { sdk, client: s3ClientOf(sdk.S3Client) };
}

/** The S3 client of the current team (tests and tools that send their own commands). */
export async function s3Client(): Promise<S3Client> {
  return (await s3Sdk()).client;
}

export async function putObject(input: PutObjectCommandInput): Promise<void> {
  const { sdk, client } = await s3Sdk();
  await client.send(new sdk.PutObjectCommand(input));
}

export async function getObject(input: GetObjectCommandInput): Promise<GetObjectCommandOutput> {
  const { sdk, client } = await s3Sdk();
  return client.send(new sdk.GetObjectCommand(input));
}

/**
 * An object's bytes, at most `maxBytes` of them: a longer body is refused while it streams, before it is
 * held in memory. With `IfMatch`, only the object of that ETag is read (412 PreconditionFailed otherwise).
 */
export async function readObjectBytes(input: GetObjectCommandInput, maxBytes: number): Promise<Buffer> {
  const object = await getObject(input);
  const body = object.Body as AsyncIterable<Uint8Array> | undefined; // Node: a Readable
  if (!body) return Buffer.alloc(0);
  if ((object.ContentLength ?? 0) > maxBytes) {
    (body as { destroy?: () => void }).destroy?.();
    throw new ObjectTooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      (body as { destroy?: () => void }).destroy?.();
      throw new ObjectTooLargeError(maxBytes);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

export class ObjectTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(`The object holds more than ${maxBytes} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

export async function headObject(input: HeadObjectCommandInput): Promise<HeadObjectCommandOutput> {
  const { sdk, client } = await s3Sdk();
  return client.send(new sdk.HeadObjectCommand(input));
}

export async function deleteObject(input: DeleteObjectCommandInput): Promise<void> {
  const { sdk, client } = await s3Sdk();
  await client.send(new sdk.DeleteObjectCommand(input));
}

export async function listObjects(input: ListObjectsV2CommandInput): Promise<ListObjectsV2CommandOutput> {
  const { sdk, client } = await s3Sdk();
  return client.send(new sdk.ListObjectsV2Command(input));
}

export async function deleteObjects(input: DeleteObjectsCommandInput): Promise<void> {
  const { sdk, client } = await s3Sdk();
  await client.send(new sdk.DeleteObjectsCommand(input));
}

export async function headBucket(input: HeadBucketCommandInput): Promise<void> {
  const { sdk, client } = await s3Sdk();
  await client.send(new sdk.HeadBucketCommand(input));
}

export async function createBucket(input: CreateBucketCommandInput): Promise<void> {
  const { sdk, client } = await s3Sdk();
  await client.send(new sdk.CreateBucketCommand(input));
}

/** A pre-signed PUT URL for `input`'s object, valid `expiresIn` seconds (the presigner loads with it). */
export async function presignedPutUrl(input: PutObjectCommandInput, expiresIn: number): Promise<string> {
  const [{ sdk, client }, { getSignedUrl }] = await Promise.all([s3Sdk(), import('@aws-sdk/s3-request-presigner')]);
  return getSignedUrl(client, new sdk.PutObjectCommand(input), { expiresIn });
}

/** The HTTP status S3 answered with when `error` is an S3 service error (412 for a failed `IfNoneMatch`). */
export function s3ErrorStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

/** True when GetObject or HeadObject found no object at the key. */
export function isNoSuchKey(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'NoSuchKey' || name === 'NotFound';
}
