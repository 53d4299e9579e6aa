/**
 * AWS SDK clients, built once per process and only here (every SDK call of
 * the functions goes through one of these, so shared/service/aws-call-log.ts sees it).
 * The endpoint is the only thing that differs between AWS and the embedded
 * engines (set through config).
 *
 * Inside a team request (shared/service/request-context.ts `runAsTeam`) `dynamo()` and
 * `s3ClientOf()` answer clients that act with credentials scoped to that team when the
 * function has a tenant role (`TENANT_ROLE_ARN`): one AssumeRole per team per
 * container, tagged with the team id, refreshed by the SDK before expiry
 * (docs/architecture/request-path.md "Tenant-scoped credentials"). Without a tenant role
 * (locally, and functions that act for no team) they are the execution-role
 * clients. Every DynamoDB and S3 client carries the tenant guard either way.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { STSClient } from '@aws-sdk/client-sts';
import { recordAwsCalls } from './aws-call-log';
import { config } from './config';
import { currentContext } from './request-context';
import { guardTeamKeys } from './tenant-guard';
import { NodeSha256 } from './aws-sha256';

/** The session tag the tenant roles' policies read as `${aws:PrincipalTag/teamId}`. */
export const TEAM_SESSION_TAG = 'teamId';

/** STS's default session length; the SDK refreshes 5 minutes before the end it is told. */
const TENANT_SESSION_SECONDS = 3600;

/**
 * The longest lifetime of a pre-signed URL the functions hand out (the SBOM
 * upload). A URL stops working when the credentials that signed it expire, so
 * tenant credentials are reported to the SDK as expiring this much early: any
 * URL signed with them outlives its own expiry.
 */
export const PRESIGNED_URL_MAX_SECONDS = 15 * 60;

interface TemporaryCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}
type CredentialsProvider = () => Promise<TemporaryCredentials>;

/** Teams whose clients a container keeps; the least recently used beyond this are closed. */
const MAX_CACHED_TEAMS = 100;

/**
 * One team's (or the execution role's) clients, each built on first use (the S3
 * client with the first S3 call, which also loads the S3 package: shared/service/aws-s3.ts).
 */
interface DataClients {
  credentials: CredentialsProvider | undefined;
  dynamo?: DynamoDBDocumentClient;
  /** The client the document client wraps (its destroy() does not destroy it). */
  dynamoUnderDocuments?: DynamoDBClient;
  /** The client of table-client.ts, which marshalls its items itself. */
  dynamoItems?: DynamoDBClient;
  s3?: S3Client;
}

let executionClients: DataClients | undefined;
const tenantClients = new Map<string, DataClients>();
let sqsClient: SQSClient | undefined;
let secretsClient: SecretsManagerClient | undefined;
let kmsClient: KMSClient | undefined;
let sesClient: SESv2Client | undefined;
let stsClient: STSClient | undefined;

/**
 * The SDK's logger middleware builds a redacted copy of every input and output
 * before it calls the logger, even the default no-op one: a 2,000-finding query
 * was copied item by item on every page. Nothing reads the SDK's log (our own
 * log and shared/service/aws-call-log.ts record the calls), so the middleware goes.
 */
function withoutSdkLogging<T extends { middlewareStack: { remove(name: string): boolean } }>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/**
 * How DynamoDB calls travel when not as signed HTTPS requests: set only by the local runtime, whose
 * engine may run in this very process and take the SDK's requests as function calls or messages, unsigned
 * (shared/local/in-process-dynamo-handler.ts). Never set on AWS.
 */
export interface DynamoTransport {
  requestHandler: NonNullable<DynamoDBClientConfig['requestHandler']>;
  signer: NonNullable<DynamoDBClientConfig['signer']>;
}

let dynamoTransport: DynamoTransport | undefined;

/** Clients built from now on send DynamoDB calls through `transport` (undefined: the SDK's own). */
export function useDynamoTransport(transport: DynamoTransport | undefined): void {
  dynamoTransport = transport;
}

/** How items become attribute values and back, for the document client and for callers that marshall themselves. */
export const DYNAMO_MARSHALL_OPTIONS = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;
export const DYNAMO_UNMARSHALL_OPTIONS = { wrapNumbers: false } as const;

/**
 * A DynamoDB client. `cacheMiddleware` resolves its middleware stack once per command class: not for the client
 * under the document client, whose commands answer the first command's input from a cached stack
 * (aws/aws-sdk-js-v3#7801).
 */
function lowLevelDynamo(credentials: CredentialsProvider | undefined, cacheMiddleware: boolean): DynamoDBClient {
  const { region, dynamoEndpoint } = config();
  const client = withoutSdkLogging(
    new DynamoDBClient({
      region,
      ...(credentials ? { credentials } : {}),
      ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}),
      // The signer's HMACs with keys made once (aws-sha256.ts): making one per HMAC was ~5 % of an import's own CPU.
      sha256: NodeSha256,
      ...(dynamoTransport ?? {}),
      cacheMiddleware,
    }),
  );
  // A call handed to an engine in this process has no user agent to tell: its header cost ~2 % of the API thread.
  if (dynamoTransport) client.middlewareStack.remove('getUserAgentMiddleware');
  recordAwsCalls(client, 'dynamodb');
  guardTeamKeys(client, 'dynamodb');
  return client;
}

/** The document client, for the few callers that send its commands (table scans of the migrations, tests). */
function buildDocuments(clients: DataClients): DynamoDBDocumentClient {
  clients.dynamoUnderDocuments = lowLevelDynamo(clients.credentials, false);
  // Copies: the document client adds its own defaults to the objects it is given.
  return DynamoDBDocumentClient.from(clients.dynamoUnderDocuments, {
    marshallOptions: { ...DYNAMO_MARSHALL_OPTIONS },
    unmarshallOptions: { ...DYNAMO_UNMARSHALL_OPTIONS },
  });
}

function buildS3(credentials: CredentialsProvider | undefined, Client: typeof S3Client): S3Client {
  const { region, s3Endpoint } = config();
  // Path-style addressing is what S3-compatible engines on loopback understand.
  const client = withoutSdkLogging(
    new Client({
      region,
      ...(credentials ? { credentials } : {}),
      ...(s3Endpoint ? { endpoint: s3Endpoint, forcePathStyle: true } : {}),
    }),
  );
  recordAwsCalls(client, 's3');
  guardTeamKeys(client, 's3');
  return client;
}

/** STS is loaded with the first tenant credentials, not at cold start: functions without a tenant role never use it. */
async function stsModule() {
  return import('@aws-sdk/client-sts');
}

async function sts(): Promise<STSClient> {
  const { STSClient } = await stsModule();
  stsClient ??= new STSClient({ region: config().region });
  return stsClient;
}

/** Credentials of `roleArn` for one team: the team id rides as a session tag, so one role serves every team. */
function tenantCredentials(roleArn: string, teamId: string): CredentialsProvider {
  return async (): Promise<TemporaryCredentials> => {
    const { AssumeRoleCommand } = await stsModule();
    const { Credentials: issued } = await (
      await sts()
    ).send(
      new AssumeRoleCommand({
        RoleArn: roleArn,
        // Shows in CloudTrail next to every call made with these credentials.
        RoleSessionName: `team-${teamId}`.slice(0, 64),
        Tags: [{ Key: TEAM_SESSION_TAG, Value: teamId }],
        DurationSeconds: TENANT_SESSION_SECONDS,
      }),
    );
    if (!issued?.AccessKeyId || !issued.SecretAccessKey)
      throw new Error(`AssumeRole on ${roleArn} returned no credentials`);
    const expiration = issued.Expiration
      ? new Date(issued.Expiration.getTime() - PRESIGNED_URL_MAX_SECONDS * 1000)
      : undefined;
    return {
      accessKeyId: issued.AccessKeyId,
      secretAccessKey: issued.SecretAccessKey,
      sessionToken: issued.SessionToken,
      expiration,
    };
  };
}

/** The clients a team request uses: cached per team (credentials are fetched on first use, not here). */
function tenantDataClients(roleArn: string, teamId: string): DataClients {
  let clients = tenantClients.get(teamId);
  if (clients) {
    // Re-inserting keeps the map in least-recently-used order.
    tenantClients.delete(teamId);
  } else {
    clients = { credentials: tenantCredentials(roleArn, teamId) };
    const oldest = tenantClients.size >= MAX_CACHED_TEAMS ? tenantClients.keys().next().value : undefined;
    if (oldest !== undefined) {
      const evicted = tenantClients.get(oldest);
      tenantClients.delete(oldest);
      // The document client's destroy() does nothing (it wraps a client it was given): destroy the clients themselves.
      evicted?.dynamoUnderDocuments?.destroy();
      evicted?.dynamoItems?.destroy();
      evicted?.s3?.destroy();
    }
  }
  tenantClients.set(teamId, clients);
  return clients;
}

function dataClients(): DataClients {
  const { teamId } = currentContext();
  const { tenantRoleArn } = config();
  if (teamId !== undefined && tenantRoleArn !== undefined) return tenantDataClients(tenantRoleArn, teamId);
  executionClients ??= { credentials: undefined };
  return executionClients;
}

export function dynamo(): DynamoDBDocumentClient {
  const clients = dataClients();
  clients.dynamo ??= buildDocuments(clients);
  return clients.dynamo;
}

/**
 * The low-level client every call of shared/service/data/table-client.ts goes through, its items marshalled once
 * there (the document client walks every input and output again around its own marshalling). Its middleware
 * stack is resolved once per command class (`cacheMiddleware`), not on every call: with the document client's
 * walks, that was about an eighth of the server's CPU for a simple read (docs/architecture/performance.md "The SDK's
 * cost per DynamoDB call").
 * Its middleware never changes after it is built (recorded and guarded as `dynamo()`'s).
 */
export function dynamoItems(): DynamoDBClient {
  const clients = dataClients();
  clients.dynamoItems ??= lowLevelDynamo(clients.credentials, true);
  return clients.dynamoItems;
}

/**
 * The S3 client of the current team (or the execution role), built with `Client`. Code calls the
 * operations of shared/service/aws-s3.ts, which import the S3 package on first use and pass the class: this
 * module does not import it, so no function loads it at cold start (docs/architecture/cold-starts.md "Bundles").
 */
export function s3ClientOf(Client: typeof S3Client): S3Client {
  const clients = dataClients();
  clients.s3 ??= buildS3(clients.credentials, Client);
  return clients.s3;
}

/*
 * SQS, Secrets Manager and KMS are loaded with their first call, like S3 (shared/service/aws-s3.ts): each
 * serves one or two operations (dispatching a scan, reading the signing secret, sealing a publisher
 * key), so no function loads them at cold start. Each answers the package with its client.
 */

export async function sqs() {
  const sdk = await import('@aws-sdk/client-sqs');
  if (!sqsClient) {
    sqsClient = withoutSdkLogging(new sdk.SQSClient({ region: config().region }));
    recordAwsCalls(sqsClient, 'sqs');
  }
  return { sdk, client: sqsClient };
}

export async function secretsManager() {
  const sdk = await import('@aws-sdk/client-secrets-manager');
  if (!secretsClient) {
    secretsClient = withoutSdkLogging(new sdk.SecretsManagerClient({ region: config().region }));
    recordAwsCalls(secretsClient, 'secretsmanager');
  }
  return { sdk, client: secretsClient };
}

/** KMS seals the publisher private keys (shared/service/disclosures/key-vault.ts); execution role, like Secrets Manager. */
export async function kms() {
  const sdk = await import('@aws-sdk/client-kms');
  if (!kmsClient) {
    kmsClient = withoutSdkLogging(new sdk.KMSClient({ region: config().region }));
    recordAwsCalls(kmsClient, 'kms');
  }
  return { sdk, client: kmsClient };
}

/** SES sends notification e-mail on AWS (shared/service/notifications/email.ts); execution role. */
export async function ses() {
  const sdk = await import('@aws-sdk/client-sesv2');
  if (!sesClient) {
    // Not recorded: no integration run reaches SES (local e-mail is SMTP or files), so its grant is listed unobserved.
    sesClient = withoutSdkLogging(new sdk.SESv2Client({ region: config().region }));
  }
  return { sdk, client: sesClient };
}

export function tableName(): string {
  return config().tableName;
}

/** Closes keep-alive sockets (tests and CLI runs end cleanly). */
export function destroyClients(): void {
  for (const clients of [executionClients, ...tenantClients.values()]) {
    clients?.dynamoUnderDocuments?.destroy();
    clients?.dynamoItems?.destroy();
    clients?.s3?.destroy();
  }
  for (const client of [sqsClient, secretsClient, kmsClient, stsClient]) client?.destroy();
  executionClients = undefined;
  tenantClients.clear();
  sqsClient = undefined;
  secretsClient = undefined;
  kmsClient = undefined;
  stsClient = undefined;
}
