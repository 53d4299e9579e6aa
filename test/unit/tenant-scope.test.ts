/**
 * Tenant-scoped data access (docs/architecture/request-path.md "Tenant-scoped credentials"):
 * inside a team request the DynamoDB and S3 clients refuse another team's keys
 * before sending, and with a tenant role configured they act with credentials
 * assumed per team (session tag `teamId`), cached per team. Real SDK clients
 * from shared/service/aws-clients.ts; requests are stopped before they leave the
 * process, and STS — the one external boundary — is a loopback stand-in that
 * answers AssumeRole as STS does.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { destroyClients, dynamo, s3ClientOf } from '../../shared/service/aws-clients';
import { keys } from '../../shared/service/data/keys';
import { runAsTeam } from '../../shared/service/request-context';
import { CrossTeamAccessError } from '../../shared/service/tenant-guard';

const TABLE = 'vexdesk-unit';
const BUCKET = 'unit-sboms';
const A = '11111111-1111-4111-8111-111111111111';
const B = '99999999-9999-4999-8999-999999999999';
const P = '22222222-2222-4222-8222-222222222222';
const R = '33333333-3333-4333-8333-333333333333';
const ID = '44444444-4444-4444-8444-444444444444';
const ROLE = 'arn:aws:iam::123456789012:role/vexdesk-tenant-products';

class NotSentError extends Error {
  constructor(
    readonly authorization: string,
    readonly securityToken: string | undefined,
  ) {
    super('not sent');
  }
}

type Stack = { add(middleware: unknown, options: { step: 'finalizeRequest'; name: string; priority: 'low' }): void };

const stopped = new WeakSet<object>();

/** Ends each request of the client after it is signed, reporting who signed it. */
function stopAfterSigning<C extends { middlewareStack: object }>(client: C): C {
  if (stopped.has(client.middlewareStack)) return client;
  stopped.add(client.middlewareStack);
  (client.middlewareStack as Stack).add(
    () => (args: { request: { headers: Record<string, string> } }) =>
      Promise.reject(
        new NotSentError(args.request.headers.authorization ?? '', args.request.headers['x-amz-security-token']),
      ),
    { step: 'finalizeRequest', name: 'unitStopAfterSigning', priority: 'low' },
  );
  return client;
}

const assumeRoleRequests: URLSearchParams[] = [];
let sts: Server;

beforeAll(async () => {
  sts = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const params = new URLSearchParams(body);
      assumeRoleRequests.push(params);
      const team = params.get('Tags.member.1.Value') ?? 'none';
      // Teams named `short…` get credentials with 16 minutes left.
      const expiration = new Date(Date.now() + (team.startsWith('short') ? 16 * 60_000 : 3600_000)).toISOString();
      response
        .writeHead(200, { 'content-type': 'text/xml' })
        .end(
          `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials>` +
            `<AccessKeyId>ASIA${team.slice(0, 8)}</AccessKeyId><SecretAccessKey>secret</SecretAccessKey><SessionToken>token-${team}</SessionToken>` +
            `<Expiration>${expiration}</Expiration></Credentials><AssumedRoleUser><AssumedRoleId>AROA:x</AssumedRoleId><Arn>${ROLE}/x</Arn></AssumedRoleUser>` +
            `</AssumeRoleResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></AssumeRoleResponse>`,
        );
    });
  });
  await new Promise<void>((resolve) => sts.listen(0, '127.0.0.1', resolve));
  // Configuration is read on first use, after this.
  Object.assign(process.env, {
    TABLE_NAME: TABLE,
    SBOM_BUCKET: BUCKET,
    DISCLOSURE_BUCKET: 'unit-disclosures',
    AWS_REGION: 'eu-west-1',
    PUBLIC_BASE_URL: 'https://vex.unit.test',
    AWS_ACCESS_KEY_ID: 'AKIAEXECUTIONROLE',
    AWS_SECRET_ACCESS_KEY: 'execution',
    AWS_ENDPOINT_URL_STS: `http://127.0.0.1:${(sts.address() as AddressInfo).port}`,
    TENANT_ROLE_ARN: ROLE,
  });
});

afterAll(async () => {
  destroyClients();
  await new Promise((resolve) => sts.close(resolve));
});

/** What a call sent from inside (or outside) a team request ended with. */
async function outcome(body: () => Promise<unknown>, teamId?: string): Promise<unknown> {
  try {
    await (teamId === undefined ? body() : runAsTeam(teamId, body));
    return 'answered';
  } catch (error) {
    return error instanceof NotSentError ? 'sent' : error instanceof CrossTeamAccessError ? 'refused' : error;
  }
}

const db = () => stopAfterSigning(dynamo());
const objects = () => stopAfterSigning(s3ClientOf(S3Client));

describe('the tenant guard', () => {
  it('refuses, inside a team request, every table key and object key of another team', async () => {
    const foreign = {
      item: () => db().send(new GetCommand({ TableName: TABLE, Key: keys.product(B, P) })),
      // Id pointers and audit shards are partitions of their own under the team's prefix.
      pointer: () => db().send(new GetCommand({ TableName: TABLE, Key: keys.idPointer(B, ID) })),
      auditShard: () =>
        db().send(
          new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.auditPartitions(B)[7]!.pk },
          }),
        ),
      productCollection: () =>
        db().send(
          new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.productCollection(B, P).pk },
          }),
        ),
      auditIndex: () =>
        db().send(
          new QueryCommand({
            TableName: TABLE,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.auditByEntityType(B, 'product', 0).gsi1pk },
          }),
        ),
      // One foreign item among own and global ones taints the whole transaction.
      transaction: () =>
        db().send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: TABLE, Item: { ...keys.audit(A, '2026-01-01T00:00:00Z', ID) } } },
              { Put: { TableName: TABLE, Item: { ...keys.disclosure('slug') } } },
              {
                ConditionCheck: {
                  TableName: TABLE,
                  Key: keys.release(B, P, R),
                  ConditionExpression: 'attribute_exists(pk)',
                },
              },
            ],
          }),
        ),
      object: () => objects().send(new GetObjectCommand({ Bucket: BUCKET, Key: keys.sbomObject(B, P, R, ID) })),
      upload: () =>
        objects().send(new PutObjectCommand({ Bucket: BUCKET, Key: keys.sbomUploadObject(B, ID), Body: 'x' })),
      listing: () =>
        objects().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: keys.productObjectsPrefix(B, P) })),
      allTeams: () => objects().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'teams/' })),
    };
    const outcomes = Object.fromEntries(
      await Promise.all(Object.entries(foreign).map(async ([name, call]) => [name, await outcome(call, A)])),
    );
    expect(outcomes).toEqual(Object.fromEntries(Object.keys(foreign).map((name) => [name, 'refused'])));
  });

  it('lets a team request reach its own keys and the global partitions, and lets calls outside any team through', async () => {
    const allowed = {
      team: () => db().send(new GetCommand({ TableName: TABLE, Key: keys.team(A) })),
      pointer: () => db().send(new GetCommand({ TableName: TABLE, Key: keys.idPointer(A, ID) })),
      auditShard: () =>
        db().send(
          new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.auditPartitions(A)[7]!.pk },
          }),
        ),
      product: () => db().send(new GetCommand({ TableName: TABLE, Key: keys.release(A, P, R) })),
      publish: () =>
        db().send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: TABLE, Item: { ...keys.vexDocument(A, P, R, ID) } } },
              { Put: { TableName: TABLE, Item: { ...keys.disclosure('slug') } } },
              { Put: { TableName: TABLE, Item: { ...keys.disclosureCounter('all') } } },
            ],
          }),
        ),
      corpus: () => db().send(new GetCommand({ TableName: TABLE, Key: keys.corpusKev('CVE-2024-0001') })),
      object: () =>
        objects().send(new GetObjectCommand({ Bucket: BUCKET, Key: keys.sbomInventoryObject(A, P, R, ID) })),
      upload: () =>
        objects().send(new PutObjectCommand({ Bucket: BUCKET, Key: keys.sbomUploadObject(A, ID), Body: 'x' })),
      spill: () =>
        objects().send(new GetObjectCommand({ Bucket: BUCKET, Key: keys.corpusSpillObject('package', 'npm/x') })),
    };
    const outcomes = Object.fromEntries(
      await Promise.all(Object.entries(allowed).map(async ([name, call]) => [name, await outcome(call, A)])),
    );
    expect(outcomes).toEqual(Object.fromEntries(Object.keys(allowed).map((name) => [name, 'sent'])));
    // No team in context (bootstrap, admin CLI, the public functions): nothing to scope to.
    expect(await outcome(() => db().send(new GetCommand({ TableName: TABLE, Key: keys.product(B, P) })))).toBe('sent');
  });

  it('does not take a team prefix of another team for its own (TEAM#<a>X is not under TEAM#<a>)', async () => {
    const lookalike = `${A}0`;
    expect(await outcome(() => db().send(new GetCommand({ TableName: TABLE, Key: keys.team(lookalike) })), A)).toBe(
      'refused',
    );
    expect(
      await outcome(
        () => objects().send(new GetObjectCommand({ Bucket: BUCKET, Key: keys.sbomObject(lookalike, P, R, ID) })),
        A,
      ),
    ).toBe('refused');
  });
});

describe('tenant-scoped credentials', () => {
  async function signer(teamId?: string): Promise<NotSentError> {
    const call = () => db().send(new GetCommand({ TableName: TABLE, Key: keys.team(teamId ?? A) }));
    const error = await (teamId === undefined ? call() : runAsTeam(teamId, call)).catch((caught: unknown) => caught);
    if (!(error instanceof NotSentError)) throw error;
    return error;
  }

  it('signs a team request with credentials of the tenant role assumed for that team, tagged with its id', async () => {
    const signed = await signer(A);

    expect(signed.authorization).toContain(`Credential=ASIA${A.slice(0, 8)}/`);
    expect(signed.securityToken).toBe(`token-${A}`);
    const request = assumeRoleRequests.find((params) => params.get('Tags.member.1.Value') === A);
    expect(Object.fromEntries(request ?? [])).toEqual(
      expect.objectContaining({
        Action: 'AssumeRole',
        RoleArn: ROLE,
        'Tags.member.1.Key': 'teamId',
        'Tags.member.1.Value': A,
      }),
    );
  });

  it('assumes the role once per team per container and reuses the client and credentials', async () => {
    await signer(A);
    const clientOfA = runAsTeam(A, () => dynamo());
    const before = assumeRoleRequests.length;

    const again = await signer(A);
    const other = await signer(B);

    expect(runAsTeam(A, () => dynamo())).toBe(clientOfA);
    expect(runAsTeam(B, () => dynamo())).not.toBe(clientOfA);
    expect(again.securityToken).toBe(`token-${A}`);
    expect(other.securityToken).toBe(`token-${B}`);
    expect(assumeRoleRequests.slice(before).map((params) => params.get('Tags.member.1.Value'))).toEqual([B]);
  });

  it('assumes the role again before the credentials get too short-lived for a pre-signed URL (15 minutes) to outlast them', async () => {
    const team = 'short-lived-team';
    await signer(team);
    const before = assumeRoleRequests.length;

    await signer(team);

    // Credentials with an hour left are reused (previous test); these are fetched again.
    expect(assumeRoleRequests.slice(before).map((params) => params.get('Tags.member.1.Value'))).toContain(team);
  });

  it('signs calls outside a team request with the execution role', async () => {
    const signed = await signer();
    expect(signed.authorization).toContain('Credential=AKIAEXECUTIONROLE/');
    expect(signed.securityToken).toBeUndefined();
  });
});
