/**
 * Runtime configuration, read once at module load and validated so a missing
 * variable fails the cold start instead of the hundredth request.
 * The same variables are set by the CDK stack on AWS and by `npm start` locally;
 * locally the AWS SDK's standard endpoint variables point the clients at the
 * embedded engines (the only difference between the two environments).
 */
import * as z from 'zod';
import { trimTrailing } from './text';
import { DEFAULT_TEAM_QUOTA } from './identity/throttle-quota';

const environmentSchema = z.object({
  TABLE_NAME: z.string().min(1),
  SBOM_BUCKET: z.string().min(1),
  DISCLOSURE_BUCKET: z.string().min(1),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  AWS_ENDPOINT_URL_DYNAMODB: z.string().url().optional(),
  AWS_ENDPOINT_URL_S3: z.string().url().optional(),
  /** Local signing key (hex or text). On AWS the key comes from Secrets Manager instead. */
  DISCLOSURE_SIGNING_KEY: z.string().min(1).optional(),
  /** Secrets Manager secret id holding `{ "keyId": "...", "key": "..." }` (AWS). */
  DISCLOSURE_SIGNING_SECRET_ID: z.string().min(1).optional(),
  SCAN_QUEUE_URL: z.string().min(1).optional(),
  /** KMS key that seals the teams' publisher private keys (AWS; shared/service/disclosures/key-vault.ts). */
  PUBLISHER_KEY_KMS_KEY_ID: z.string().min(1).optional(),
  /** Local: file holding the key that seals them instead (created 0600 under the data directory on first need). */
  PUBLISHER_KEY_SEAL_FILE: z.string().min(1).optional(),
  /** Role assumed per team for the DynamoDB and S3 calls of a team request (AWS); unset locally (docs/architecture/request-path.md "Tenant-scoped credentials"). */
  TENANT_ROLE_ARN: z.string().min(1).optional(),
  /**
   * Public origin used in generated documents and reports (publisher namespace, disclosure links).
   * Required, no default: a document naming a host that does not exist cannot be taken back once
   * published. The stack sets it on every function (the API's URL or the configured custom domain),
   * `npm start` to its listening address.
   */
  PUBLIC_BASE_URL: z.url({
    protocol: /^https?$/,
    error:
      'required: the public http(s) origin of the API, e.g. https://vex.example.com (the stack sets it; npm start uses its listening address)',
  }),
  /**
   * Directory name of the team whose CSAF provider-metadata.json this deployment also serves at
   * /.well-known/csaf/provider-metadata.json (CSAF requirement 9; docs/csaf-provider.md). Unset: 404 there.
   */
  CSAF_DEFAULT_PROVIDER: z
    .string()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
    .optional(),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  /** Default per-team quota (the stack's usage plan); shown by GET /api/settings, enforced locally. */
  TEAM_RATE_LIMIT: z.coerce.number().int().min(1).max(10_000).default(DEFAULT_TEAM_QUOTA.rateLimit),
  TEAM_BURST_LIMIT: z.coerce.number().int().min(1).max(5_000).default(DEFAULT_TEAM_QUOTA.burstLimit),
  /**
   * Browser sign-in (docs/sign-in.md): the OpenID provider and this service's client there. Unset: sign-in
   * answers 501. The stack sets its Cognito user pool or the configured external issuer; `npm start` its embedded provider.
   */
  SIGN_IN_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  SIGN_IN_CLIENT_ID: z.string().min(1).optional(),
  /** Only for providers that refuse public (PKCE-only) clients; prefer none. */
  SIGN_IN_CLIENT_SECRET: z.string().min(1).optional(),
  /** Where a completed sign-in lands when the console asked for no other path. */
  SIGN_IN_RETURN_PATH: z
    .string()
    .regex(/^\/(?!\/)/, 'must be a path on this origin, starting with one /')
    .default('/'),
  /** Tests only: trust OIDC issuers on loopback over plain HTTP (docs/oidc.md). Anything but "1" leaves them refused. */
  VEXDESK_ALLOW_LOOPBACK_ISSUERS: z.string().optional(),
  /** Tests and local use only: notification URLs on loopback over plain HTTP (docs/notifications.md). Never set by the stack. */
  VEXDESK_ALLOW_LOOPBACK_WEBHOOKS: z.string().optional(),
  /** Local e-mail delivery over SMTP (smtp://host:port); unset locally: `.eml` files in NOTIFY_OUTBOX_DIR. */
  VEXDESK_SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  /** Local: where e-mails go as `.eml` files when no SMTP server is set (`$DATA_DIR/outbox`). */
  NOTIFY_OUTBOX_DIR: z.string().min(1).optional(),
  /** AWS: the SES identity notification e-mails are sent from; set, e-mail goes through SES. */
  NOTIFY_SES_FROM: z.email().optional(),
  /** Sender address of SMTP and file e-mail. */
  NOTIFY_EMAIL_FROM: z.email().default('notifications@vexdesk.invalid'),
  /** First retry delay of a failed delivery; doubles each attempt (tests shorten it). */
  VEXDESK_NOTIFY_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
});

export type AppConfig = Readonly<{
  tableName: string;
  sbomBucket: string;
  disclosureBucket: string;
  region: string;
  dynamoEndpoint: string | undefined;
  s3Endpoint: string | undefined;
  signingKey: string | undefined;
  signingSecretId: string | undefined;
  scanQueueUrl: string | undefined;
  publisherKeyKmsKeyId: string | undefined;
  publisherKeySealFile: string | undefined;
  tenantRoleArn: string | undefined;
  publicBaseUrl: string;
  csafDefaultProvider: string | undefined;
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  teamRateLimit: number;
  teamBurstLimit: number;
  allowLoopbackIssuers: boolean;
  notifications: Readonly<{
    allowLoopback: boolean;
    smtpUrl: string | undefined;
    outboxDir: string | undefined;
    sesFrom: string | undefined;
    emailFrom: string;
    /** How e-mail channels deliver: SES when a sender is set, else SMTP, else `.eml` files; null: not at all. */
    emailTransport: 'ses' | 'smtp' | 'files' | null;
    retryBaseMs: number;
  }>;
  signIn:
    | Readonly<{ issuer: string; clientId: string; clientSecret: string | undefined; returnPath: string }>
    | undefined;
}>;

export function loadConfig(environment: NodeJS.ProcessEnv): AppConfig {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  const env = parsed.data;
  if ((env.SIGN_IN_ISSUER === undefined) !== (env.SIGN_IN_CLIENT_ID === undefined)) {
    throw new Error('Invalid configuration: SIGN_IN_ISSUER and SIGN_IN_CLIENT_ID are set together or not at all');
  }
  return Object.freeze({
    tableName: env.TABLE_NAME,
    sbomBucket: env.SBOM_BUCKET,
    disclosureBucket: env.DISCLOSURE_BUCKET,
    region: env.AWS_REGION,
    dynamoEndpoint: env.AWS_ENDPOINT_URL_DYNAMODB,
    s3Endpoint: env.AWS_ENDPOINT_URL_S3,
    signingKey: env.DISCLOSURE_SIGNING_KEY,
    signingSecretId: env.DISCLOSURE_SIGNING_SECRET_ID,
    scanQueueUrl: env.SCAN_QUEUE_URL,
    publisherKeyKmsKeyId: env.PUBLISHER_KEY_KMS_KEY_ID,
    publisherKeySealFile: env.PUBLISHER_KEY_SEAL_FILE,
    tenantRoleArn: env.TENANT_ROLE_ARN,
    publicBaseUrl: trimTrailing(env.PUBLIC_BASE_URL, '/'),
    csafDefaultProvider: env.CSAF_DEFAULT_PROVIDER,
    logLevel: env.LOG_LEVEL,
    teamRateLimit: env.TEAM_RATE_LIMIT,
    teamBurstLimit: env.TEAM_BURST_LIMIT,
    allowLoopbackIssuers: env.VEXDESK_ALLOW_LOOPBACK_ISSUERS === '1',
    notifications: {
      allowLoopback: env.VEXDESK_ALLOW_LOOPBACK_WEBHOOKS === '1',
      smtpUrl: env.VEXDESK_SMTP_URL,
      outboxDir: env.NOTIFY_OUTBOX_DIR,
      sesFrom: env.NOTIFY_SES_FROM,
      emailFrom: env.NOTIFY_EMAIL_FROM,
      emailTransport: emailTransportOf(env),
      retryBaseMs: env.VEXDESK_NOTIFY_RETRY_BASE_MS,
    },
    signIn:
      env.SIGN_IN_ISSUER !== undefined && env.SIGN_IN_CLIENT_ID !== undefined
        ? {
            issuer: trimTrailing(env.SIGN_IN_ISSUER, '/'),
            clientId: env.SIGN_IN_CLIENT_ID,
            clientSecret: env.SIGN_IN_CLIENT_SECRET,
            returnPath: env.SIGN_IN_RETURN_PATH,
          }
        : undefined,
  });
}

function emailTransportOf(env: z.infer<typeof environmentSchema>): AppConfig['notifications']['emailTransport'] {
  if (env.NOTIFY_SES_FROM) return 'ses';
  if (env.VEXDESK_SMTP_URL) return 'smtp';
  return env.NOTIFY_OUTBOX_DIR ? 'files' : null;
}

let loaded: AppConfig | undefined;

/** The process-wide configuration; parsed on first use, then cached. */
export function config(): AppConfig {
  loaded ??= loadConfig(process.env);
  return loaded;
}
