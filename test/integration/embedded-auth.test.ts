/**
 * Local data is private to its owner: the data directory is 0700 and its files 0600,
 * and both embedded engines accept only requests signed (SigV4, verified for real) with
 * the data directory's own key pair, answering as DynamoDB and S3 do otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import { startEmbeddedEngines, type EmbeddedEngines } from '../../shared/local/engines';
import { NodeSha256 } from '../../shared/service/aws-sha256';
import { rejection } from '../support/assertions';

const TABLE = 'auth-test';
const BUCKET = 'auth-test-bucket';
const mode = async (file: string) => (await stat(file)).mode & 0o777;

describe('embedded engines: a private data directory and signed requests only', () => {
  let parent: string;
  let dataDir: string;
  let engines: EmbeddedEngines;

  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'vexdesk-embedded-auth-'));
    // A data directory left open by an older version, with a readable file in it.
    dataDir = path.join(parent, 'data');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    await writeFile(path.join(dataDir, 'bootstrap.json'), '{}\n', { mode: 0o644 });
    engines = await startEmbeddedEngines({ dataDir });
    const client = new DynamoDBClient({
      endpoint: engines.dynamoEndpoint,
      region: 'us-east-1',
      credentials: engines.credentials,
    });
    await client.send(
      new CreateTableCommand({
        TableName: TABLE,
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    client.destroy();
    const s3 = s3Client(engines.credentials);
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'secret.txt', Body: 'top secret' }));
    s3.destroy();
  });

  afterAll(async () => {
    await engines.stop();
    await rm(parent, { recursive: true, force: true });
  });

  function dynamoClient(credentials: { accessKeyId: string; secretAccessKey: string }) {
    return new DynamoDBClient({ endpoint: engines.dynamoEndpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
  }

  function s3Client(credentials: { accessKeyId: string; secretAccessKey: string }) {
    return new S3Client({
      endpoint: engines.s3Endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials,
      maxAttempts: 1,
    });
  }

  /** A DynamoDB request signed with the right key pair, as raw HTTP parts. */
  async function signedDynamoRequest(target: string, body: string) {
    const url = new URL(engines.dynamoEndpoint);
    const signer = new SignatureV4({
      credentials: engines.credentials,
      region: 'us-east-1',
      service: 'dynamodb',
      sha256: NodeSha256,
    });
    const signed = await signer.sign({
      method: 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: '/',
      query: {},
      headers: {
        host: url.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${target}`,
      },
      body,
    });
    return signed.headers;
  }

  it('makes the data directory 0700 and the files in it 0600, including an older one', async () => {
    expect(await mode(dataDir)).toBe(0o700);
    for (const file of ['credentials.json', 'engines.json', 'bootstrap.json'])
      expect(await mode(path.join(dataDir, file))).toBe(0o600);
    for (const directory of ['dynamodb', 's3']) expect(await mode(path.join(dataDir, directory))).toBe(0o700);
    expect(engines.credentials.secretAccessKey.length).toBeGreaterThanOrEqual(40);
  });

  it('serves a DynamoDB client that signs with the data directory key pair', async () => {
    const client = dynamoClient(engines.credentials);
    const { TableNames } = await client.send(new ListTablesCommand({}));
    client.destroy();
    expect(TableNames).toContain(TABLE);
  });

  it('answers UnrecognizedClientException to another access key id', async () => {
    const client = dynamoClient({ accessKeyId: 'local', secretAccessKey: 'local' });
    const error = await rejection(client.send(new ListTablesCommand({})));
    client.destroy();
    expect(error.name).toBe('UnrecognizedClientException');
    expect((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(400);
  });

  it('answers InvalidSignatureException to the right access key id signed with another secret', async () => {
    const client = dynamoClient({ accessKeyId: engines.credentials.accessKeyId, secretAccessKey: 'guessed' });
    const error = await rejection(client.send(new ListTablesCommand({})));
    client.destroy();
    expect(error.name).toBe('InvalidSignatureException');
  });

  it('answers MissingAuthenticationTokenException to an unsigned DynamoDB request', async () => {
    const response = await fetch(engines.dynamoEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      __type: 'com.amazon.coral.service#MissingAuthenticationTokenException',
    });
  });

  it('recomputes the signature: a valid one replayed with another body or operation is refused', async () => {
    const body = JSON.stringify({ TableName: TABLE });
    const headers = await signedDynamoRequest('DescribeTable', body);
    const genuine = await fetch(engines.dynamoEndpoint, { method: 'POST', headers, body });
    expect(genuine.status).toBe(200);

    const otherBody = await fetch(engines.dynamoEndpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ TableName: 'other' }),
    });
    expect(otherBody.status).toBe(400);
    expect(await otherBody.json()).toMatchObject({ __type: 'com.amazon.coral.service#InvalidSignatureException' });

    const otherOperation = await fetch(engines.dynamoEndpoint, {
      method: 'POST',
      headers: { ...headers, 'x-amz-target': 'DynamoDB_20120810.DeleteTable' },
      body,
    });
    expect(otherOperation.status).toBe(400);
    expect(await otherOperation.json()).toMatchObject({ __type: 'com.amazon.coral.service#InvalidSignatureException' });
  });

  it('answers 403 InvalidAccessKeyId to another S3 access key id', async () => {
    const s3 = s3Client({ accessKeyId: 'local', secretAccessKey: 'local' });
    const error = await rejection(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'secret.txt' })));
    s3.destroy();
    expect(error.name).toBe('InvalidAccessKeyId');
    expect((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(403);
  });

  it('answers 403 SignatureDoesNotMatch to the right S3 access key id signed with another secret', async () => {
    const s3 = s3Client({ accessKeyId: engines.credentials.accessKeyId, secretAccessKey: 'guessed' });
    const error = await rejection(s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'planted.txt', Body: 'x' })));
    s3.destroy();
    expect(error.name).toBe('SignatureDoesNotMatch');
  });

  it('answers 403 AccessDenied to an unsigned S3 read', async () => {
    const response = await fetch(`${engines.s3Endpoint}/${BUCKET}/secret.txt`);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('accepts a pre-signed URL as made, and refuses it for another key or after its expiry', async () => {
    const s3 = s3Client(engines.credentials);
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: BUCKET, Key: 'secret.txt' }), { expiresIn: 60 });
    const expiring = await getSignedUrl(s3, new GetObjectCommand({ Bucket: BUCKET, Key: 'secret.txt' }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 120_000),
    });
    s3.destroy();

    const genuine = await fetch(url);
    expect(genuine.status).toBe(200);
    expect(await genuine.text()).toBe('top secret');

    const otherKey = await fetch(url.replace('/secret.txt?', '/planted.txt?'));
    expect(otherKey.status).toBe(403);
    expect(await otherKey.text()).toContain('<Code>SignatureDoesNotMatch</Code>');

    const expired = await fetch(expiring);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
  });
});
