/**
 * The AWS call recorder (shared/service/aws-call-log.ts): which IAM permission each
 * SDK call needs, and the middleware that writes them, on real SDK clients
 * whose requests are stopped before they leave the process.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import * as recorder from '../../shared/service/aws-call-log';
import { keys } from '../../shared/service/data/keys';

const TABLE = 'vexdesk-unit';
const SBOM_BUCKET = 'unit-sboms';
const T = '11111111-1111-4111-8111-111111111111';
const P = '22222222-2222-4222-8222-222222222222';
const R = '33333333-3333-4333-8333-333333333333';
const ID = '44444444-4444-4444-8444-444444444444';
const TABLE_ARN = 'arn:aws:dynamodb:{region}:{account}:table/{table}';

let logDir: string;

beforeAll(() => {
  logDir = mkdtempSync(join(tmpdir(), 'vexdesk-call-log-'));
  // Configuration is read on first use, after this.
  Object.assign(process.env, {
    TABLE_NAME: TABLE,
    SBOM_BUCKET,
    DISCLOSURE_BUCKET: 'unit-disclosures',
    AWS_REGION: 'eu-west-1',
    PUBLIC_BASE_URL: 'https://vex.unit.test',
    VEXDESK_AWS_CALL_LOG: join(logDir, 'calls.jsonl'),
  });
});

afterAll(() => {
  delete process.env.VEXDESK_AWS_CALL_LOG;
  rmSync(logDir, { recursive: true, force: true });
});

/** Stops every request after the recorder has seen it, as if the service answered `error`. */
function stopBeforeSending<
  T extends { middlewareStack: DynamoDBClient['middlewareStack'] | S3Client['middlewareStack'] },
>(client: T, error: Error): T {
  (client.middlewareStack as DynamoDBClient['middlewareStack']).add(() => () => Promise.reject(error), {
    step: 'build',
    name: 'unitStop',
  });
  return client;
}

const credentials = { accessKeyId: 'unit', secretAccessKey: 'unit' };

function recorded(): unknown[] {
  return readFileSync(join(logDir, 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

describe('permissionsOf', () => {
  it('splits a TransactWriteItems into the action of each item, with its partition-key prefix', () => {
    const permissions = recorder.permissionsOf('dynamodb', 'TransactWriteItemsCommand', {
      TransactItems: [
        { ConditionCheck: { TableName: TABLE, Key: keys.release(T, P, R), ConditionExpression: 'x' } },
        { Put: { TableName: TABLE, Item: { ...keys.disclosure('slug-v1') } } },
        { Update: { TableName: TABLE, Key: { pk: { S: 'DISCLOSURE_COUNTER' }, sk: { S: 'all' } } } },
        { Delete: { TableName: TABLE, Key: keys.apiKeyHash('ab') } },
      ],
    });

    expect(permissions).toEqual([
      { action: 'dynamodb:ConditionCheckItem', resource: TABLE_ARN, leadingKey: 'TEAM#' },
      { action: 'dynamodb:PutItem', resource: TABLE_ARN, leadingKey: 'DISCLOSURE#' },
      { action: 'dynamodb:UpdateItem', resource: TABLE_ARN, leadingKey: 'DISCLOSURE_COUNTER' },
      { action: 'dynamodb:DeleteItem', resource: TABLE_ARN, leadingKey: 'APIKEY_HASH#' },
    ]);
  });

  it("reads TransactGetItems as GetItem, and a GSI query as Query on the index with the index key's prefix", () => {
    expect(
      recorder.permissionsOf('dynamodb', 'TransactGetItemsCommand', {
        TransactItems: [{ Get: { TableName: TABLE, Key: keys.team(T) } }],
      }),
    ).toEqual([{ action: 'dynamodb:GetItem', resource: TABLE_ARN, leadingKey: 'TEAM#' }]);
    expect(
      recorder.permissionsOf('dynamodb', 'QueryCommand', {
        TableName: TABLE,
        IndexName: 'gsi2',
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :p)',
        ExpressionAttributeNames: { '#pk': 'gsi2pk', '#sk': 'gsi2sk' },
        ExpressionAttributeValues: { ':pk': keys.auditByAction(T, 'publish', 0).gsi2pk, ':p': '2026' },
      }),
    ).toEqual([{ action: 'dynamodb:Query', resource: `${TABLE_ARN}/index/gsi2`, leadingKey: 'TEAM#' }]);
  });

  it('maps HeadObject to s3:GetObject, DeleteObjects to one s3:DeleteObject per key and ListObjectsV2 to s3:ListBucket on the bucket with the listed prefix', () => {
    expect(
      recorder.permissionsOf('s3', 'HeadObjectCommand', { Bucket: SBOM_BUCKET, Key: keys.sbomObject(T, P, R, ID) }),
    ).toEqual([
      {
        action: 's3:GetObject',
        resource: 'arn:aws:s3:::{sbomBucket}/teams/{id}/products/{id}/releases/{id}/sboms/{id}',
      },
    ]);
    expect(
      recorder.permissionsOf('s3', 'DeleteObjectsCommand', {
        Bucket: SBOM_BUCKET,
        Delete: {
          Objects: [{ Key: keys.sbomInventoryObject(T, P, R, ID) }, { Key: keys.vexInputObject(T, P, R, ID, 3) }],
        },
      }),
    ).toEqual([
      {
        action: 's3:DeleteObject',
        resource: 'arn:aws:s3:::{sbomBucket}/teams/{id}/products/{id}/releases/{id}/sboms/{id}.components.json.gz',
      },
      {
        action: 's3:DeleteObject',
        resource: 'arn:aws:s3:::{sbomBucket}/teams/{id}/products/{id}/releases/{id}/vex/{id}/v{id}.input.json',
      },
    ]);
    expect(
      recorder.permissionsOf('s3', 'ListObjectsV2Command', {
        Bucket: SBOM_BUCKET,
        Prefix: keys.productObjectsPrefix(T, P),
      }),
    ).toEqual([
      { action: 's3:ListBucket', resource: 'arn:aws:s3:::{sbomBucket}', prefix: 'teams/{id}/products/{id}/' },
    ]);
  });

  it('names a bucket or table that is not the configured one as it is, so the infra test refuses it', () => {
    expect(recorder.permissionsOf('s3', 'GetObjectCommand', { Bucket: 'someone-elses', Key: 'x/y' })).toEqual([
      { action: 's3:GetObject', resource: 'arn:aws:s3:::someone-elses/x/{unknown-layout}' },
    ]);
  });
});

describe('recordAwsCalls', () => {
  it('records the calls a function makes through the document client, once each, and nothing outside a function', async () => {
    const base = stopBeforeSending(new DynamoDBClient({ region: 'eu-west-1', credentials }), new Error('not sent'));
    recorder.recordAwsCalls(base, 'dynamodb');
    const documents = DynamoDBDocumentClient.from(base);
    const query = () =>
      documents.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': 'pk' },
          ExpressionAttributeValues: { ':pk': 'CORPUS#META' },
        }),
      );

    await expect(query()).rejects.toThrow('not sent');
    await expect(recorder.runAsFunction('scans', query)).rejects.toThrow('not sent');
    await expect(recorder.runAsFunction('scans', query)).rejects.toThrow('not sent');
    await expect(
      recorder.runAsFunction('vex', () =>
        documents.send(
          new TransactWriteCommand({
            TransactItems: [{ Put: { TableName: TABLE, Item: { ...keys.disclosureCounter('all'), count: 1 } } }],
          }),
        ),
      ),
    ).rejects.toThrow('not sent');

    expect(recorded()).toEqual([
      { function: 'scans', command: 'Query', action: 'dynamodb:Query', resource: TABLE_ARN, leadingKey: 'CORPUS#' },
      {
        function: 'vex',
        command: 'TransactWriteItems',
        action: 'dynamodb:PutItem',
        resource: TABLE_ARN,
        leadingKey: 'DISCLOSURE_COUNTER',
      },
    ]);
  });

  it('records a pre-signed upload URL as the s3:PutObject it grants, and s3:ListBucket when a read relies on a missing key answering 404', async () => {
    const missing = Object.assign(new Error('The specified key does not exist.'), {
      name: 'NoSuchKey',
      $metadata: { httpStatusCode: 404 },
    });
    // Signing a URL sends nothing, so only the reading client needs stopping.
    const signer = new S3Client({ region: 'eu-west-1', credentials });
    const s3 = stopBeforeSending(new S3Client({ region: 'eu-west-1', credentials }), missing);
    recorder.recordAwsCalls(signer, 's3');
    recorder.recordAwsCalls(s3, 's3');

    const url = await recorder.runAsFunction('sboms', () =>
      getSignedUrl(signer, new PutObjectCommand({ Bucket: SBOM_BUCKET, Key: keys.sbomUploadObject(T, ID) }), {
        expiresIn: 60,
      }),
    );
    await expect(
      recorder.runAsFunction('compliance', () =>
        s3.send(new GetObjectCommand({ Bucket: SBOM_BUCKET, Key: keys.sbomObject(T, P, R, ID) })),
      ),
    ).rejects.toThrow('does not exist');

    expect(url).toContain('X-Amz-Signature=');
    expect(recorded()).toEqual(
      expect.arrayContaining([
        {
          function: 'sboms',
          command: 'PutObject',
          action: 's3:PutObject',
          resource: 'arn:aws:s3:::{sbomBucket}/uploads/{id}/{id}',
        },
        {
          function: 'compliance',
          command: 'GetObject',
          action: 's3:GetObject',
          resource: 'arn:aws:s3:::{sbomBucket}/teams/{id}/products/{id}/releases/{id}/sboms/{id}',
        },
        {
          function: 'compliance',
          command: 'GetObject',
          action: 's3:ListBucket',
          resource: 'arn:aws:s3:::{sbomBucket}',
        },
      ]),
    );
  });

  it('adds no middleware at all when VEXDESK_AWS_CALL_LOG is unset', () => {
    const file = process.env.VEXDESK_AWS_CALL_LOG;
    delete process.env.VEXDESK_AWS_CALL_LOG;
    try {
      const client = new S3Client({ region: 'eu-west-1', credentials });
      const before = client.middlewareStack.identify();
      recorder.recordAwsCalls(client, 's3');

      expect(client.middlewareStack.identify()).toEqual(before);
    } finally {
      process.env.VEXDESK_AWS_CALL_LOG = file;
    }
  });
});

/** Whether the source constructs a client class it imports from an AWS SDK package (the client CLI's own ApiClient is not one). */
function buildsSdkClient(source: string): boolean {
  const imported = [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'@aws-sdk\/[^']+'/g)]
    .flatMap((match) =>
      (match[1] ?? '').split(',').map(
        (name) =>
          name
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)
            .pop() ?? '',
      ),
    )
    .filter((name) => name.endsWith('Client'));
  return imported.some((name) => source.includes(`new ${name}(`));
}

describe('where SDK clients are built', () => {
  it("builds every AWS SDK client of the functions' code in shared/service/aws-clients.ts, so each call is recorded", () => {
    const root = resolve(import.meta.dirname, '../..');
    const sources = ['shared', 'functions'].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => join(root, dir, file)),
    );
    const elsewhere = sources
      .filter((file) => !file.endsWith(join('shared', 'service', 'aws-clients.ts')))
      .filter((file) => buildsSdkClient(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));

    expect(elsewhere).toEqual([]);
  });
});
