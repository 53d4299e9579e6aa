/**
 * The embedded S3 engine through the unchanged AWS SDK v3: conditional create
 * (If-None-Match: *), racing creates, pre-signed PUT URLs and byte-exact bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { startEmbeddedEngines, type EmbeddedEngines } from '../../shared/local/engines';
import { rejection } from '../support/assertions';

const BUCKET = 'embedded-s3-test';

describe('embedded S3', () => {
  let dataDir: string;
  let engines: EmbeddedEngines;
  let s3: S3Client;
  let counter = 0;
  const uniqueKey = (label: string) => `${label}/${Date.now()}-${++counter}`;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'vexdesk-embedded-s3-'));
    engines = await startEmbeddedEngines({ dataDir, inMemory: true });
    s3 = new S3Client({
      endpoint: engines.s3Endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: engines.credentials,
    });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  });

  afterAll(async () => {
    s3.destroy();
    await engines.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const read = async (key: string): Promise<Buffer> => {
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return Buffer.from(await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
  };

  it('creates an object with If-None-Match: * once, then answers 412 PreconditionFailed', async () => {
    const key = uniqueKey('conditional');
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'first', IfNoneMatch: '*' }));

    const error = await rejection(
      s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'second', IfNoneMatch: '*' })),
    );
    expect(error).toBeInstanceOf(S3ServiceException);
    expect(error.name).toBe('PreconditionFailed');
    expect((error as S3ServiceException).$metadata.httpStatusCode).toBe(412);
    expect((await read(key)).toString()).toBe('first');

    // An unconditional put still replaces it.
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'third' }));
    expect((await read(key)).toString()).toBe('third');
  });

  it('lets exactly one of 10 racing conditional creates of the same key win', async () => {
    const key = uniqueKey('race');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) =>
        s3.send(
          new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: `writer ${index} `.repeat(5000), IfNoneMatch: '*' }),
        ),
      ),
    );
    const winners = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [index] : []));
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected')
        expect((outcome.reason as S3ServiceException).$metadata.httpStatusCode).toBe(412);
    }
    expect((await read(key)).toString()).toBe(`writer ${winners[0]} `.repeat(5000));
  });

  it('replaces an object only while its ETag still matches (If-Match)', async () => {
    const key = uniqueKey('if-match');
    const { ETag } = await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'v1' }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'v2', IfMatch: ETag }));
    const stale = await rejection(
      s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'v3', IfMatch: ETag })),
    );
    expect((stale as S3ServiceException).$metadata.httpStatusCode).toBe(412);
    expect((await read(key)).toString()).toBe('v2');
  });

  it('accepts an upload to a pre-signed PUT URL made with @aws-sdk/s3-request-presigner', async () => {
    const key = uniqueKey('presigned');
    const url = await getSignedUrl(
      s3,
      new PutObjectCommand({ Bucket: BUCKET, Key: key, ContentType: 'application/json' }),
      {
        expiresIn: 300,
      },
    );
    expect(url.startsWith(`${engines.s3Endpoint}/${BUCKET}/`)).toBe(true);
    const body = JSON.stringify({ hello: 'world' });
    const response = await fetch(url, { method: 'PUT', body, headers: { 'Content-Type': 'application/json' } });
    expect(response.status).toBe(200);

    expect((await read(key)).toString()).toBe(body);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentType).toBe('application/json');
    expect(head.ContentLength).toBe(Buffer.byteLength(body));
  });

  it('round-trips binary bodies byte for byte, from a Buffer and from a stream (aws-chunked upload)', async () => {
    const everyByte = Buffer.from(Array.from({ length: 256 }, (_, index) => index));
    const binary = Buffer.concat([everyByte, randomBytes(1024 * 1024 + 17), everyByte]);

    const fromBuffer = uniqueKey('binary-buffer');
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: fromBuffer, Body: binary, ContentType: 'application/octet-stream' }),
    );
    expect((await read(fromBuffer)).equals(binary)).toBe(true);

    // A stream body makes the SDK send `Content-Encoding: aws-chunked` with a CRC32 trailer.
    const fromStream = uniqueKey('binary-stream');
    const chunks = [binary.subarray(0, 100_000), binary.subarray(100_000, 700_001), binary.subarray(700_001)];
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: fromStream,
        Body: Readable.from(chunks),
        ContentLength: binary.length,
      }),
    );
    const stored = await read(fromStream);
    expect(stored.length).toBe(binary.length);
    expect(stored.equals(binary)).toBe(true);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: fromStream }));
    expect(head.ContentEncoding).toBeUndefined();

    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'binary-' }));
    expect(listed.Contents?.map((object) => object.Key).sort()).toEqual([fromBuffer, fromStream].sort());
  });
});
