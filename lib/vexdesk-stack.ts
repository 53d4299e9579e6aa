/**
 * The Vexdesk stack: one DynamoDB table, the SBOM and disclosure buckets, the
 * signing secret, one Lambda per endpoint group plus the authorizer, the
 * REST API built from the route table (BRIEF "Shape"), and the CloudFront
 * distribution serving the web console and the API on one origin
 * (lib/console-hosting.ts). Environment-agnostic:
 * no lookups, so `cdk synth` works offline and the template deploys anywhere.
 */
import { CfnOutput, Duration, RemovalPolicy, Size, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct, IConstruct } from 'constructs';
import { tableDefinition } from '../shared/service/data/table-definition';
import {
  GATEWAY_RESPONSE_HEADERS,
  METHOD_NOT_ALLOWED,
  gatewayResponseHeaders,
  gatewayResponseTemplate,
  gatewayResponses,
  methodNotAllowedTemplate,
  type GatewayResponseType,
} from '../shared/service/http/gateway-responses';
import { PUBLIC_CLIENT_LIMITED_PATH, PUBLIC_CLIENT_WINDOW_SECONDS } from '../shared/service/http/throttling';
import {
  isPublicDisclosureRoute,
  methodsOfPath,
  routePaths,
  routes,
  type EndpointGroup,
  type RouteDefinition,
} from '../shared/service/http/routes';
import { SCAN_QUEUE_MAX_RECEIVES } from '../shared/service/scans/scan-retries';
import { LAMBDA_HANDLER } from './bundling';
import { functionCatalog, type FunctionSpec } from './function-catalog';
import { functionCode } from './function-code';
import { keys } from '../shared/service/data/keys';
import { TEAM_TAG_VARIABLE, type BucketAccess, type ResourceAccess, type TenantAccess } from './permissions';
import { ConsoleHosting } from './console-hosting';
import { DEFAULT_SETTINGS, osvFeedUrls, type VexdeskSettings } from './settings';

export interface VexdeskStackProps extends StackProps {
  /** Deployment knobs; see lib/settings.ts for each default. */
  settings?: Partial<VexdeskSettings>;
  /** The functions to deploy; defaults to `functionCatalog()`. Tests pass variants. */
  catalog?: FunctionSpec[];
}

/** Stage name: URLs are `https://<api>.execute-api.<region>.amazonaws.com/prod/api/...`. */
export const API_STAGE_NAME = 'prod';

/** The anonymous disclosure routes: the only ones with CORS preflight and their own (tighter) throttling. */
/** Record why a cdk-nag rule does not apply here; the infra tests require a reason on each. */
function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** Media types the 405 MOCK integration maps; a request without Content-Type counts as application/json. */
const METHOD_NOT_ALLOWED_MEDIA_TYPES = [
  'application/json',
  'application/gzip',
  'application/octet-stream',
  'application/xml',
  'text/xml',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/vnd.cyclonedx+json',
  'application/spdx+json',
];

function pascalCase(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
}

export class VexdeskStack extends Stack {
  readonly table: dynamodb.Table;
  readonly sbomBucket: s3.Bucket;
  readonly disclosureBucket: s3.Bucket;
  readonly signingSecret: secretsmanager.Secret;
  /** Seals the teams' publisher private keys (shared/service/disclosures/key-vault.ts). */
  readonly publisherKey: kms.Key;
  readonly api: apigw.RestApi;
  readonly authorizer: apigw.RequestAuthorizer;
  /** The default per-team usage plan; teams with an override get their own (admin CLI). */
  readonly teamUsagePlan: apigw.UsagePlan;
  readonly publicClientFirewall: wafv2.CfnWebACL;
  /** Every function of the catalog, by catalog name (`products`, `authorizer`, `scan-worker`, …). */
  readonly functions = new Map<string, lambda.Function>();
  /** The tenant role of each function that acts for a caller's team (docs/architecture.md "Tenant-scoped credentials"). */
  readonly tenantRoles = new Map<string, iam.Role>();
  readonly scanQueue: sqs.Queue | undefined;
  readonly settings: VexdeskSettings;
  /** PUBLIC_BASE_URL of every function: the configured custom domain, or the CloudFront distribution's. */
  readonly publicBaseUrl: string;
  /** The console bucket and the distribution in front of console and API (docs/console-hosting.md). */
  readonly console: ConsoleHosting;
  /** The default sign-in provider (docs/sign-in.md); undefined when an external issuer is configured. */
  readonly userPool: cognito.UserPool | undefined;

  constructor(scope: Construct, id: string, props: VexdeskStackProps = {}) {
    super(scope, id, props);
    const settings: VexdeskSettings = { ...DEFAULT_SETTINGS, ...props.settings };
    this.settings = settings;
    const catalog = props.catalog ?? functionCatalog();

    this.table = this.createTable();
    const accessLogsBucket = this.createAccessLogsBucket();
    this.sbomBucket = this.createSbomBucket(accessLogsBucket);
    this.disclosureBucket = this.createDisclosureBucket(accessLogsBucket, settings.disclosureRetentionDays);
    this.signingSecret = this.createSigningSecret();
    this.publisherKey = this.createPublisherKey();
    const scanWorker = catalog.find((spec) => spec.role.kind === 'scan-worker');
    this.scanQueue = scanWorker ? this.createScanQueue(scanWorker.timeoutSeconds) : undefined;

    for (const spec of catalog) this.functions.set(spec.name, this.createFunction(spec, settings));

    const authorizerFunction = this.requireFunction('authorizer');
    this.authorizer = new apigw.RequestAuthorizer(this, 'ApiKeyAuthorizer', {
      handler: authorizerFunction,
      // None: a request carries a Bearer header or a session cookie (BRIEF decision 10), and API Gateway would answer 401
      // without invoking the authorizer when an identity source is missing. Allowed because results are not cached.
      identitySources: [],
      // Revocation must take effect on the next request (BRIEF decision 6), so no result caching.
      resultsCacheTtl: Duration.seconds(0),
    });
    this.api = this.createApi(settings);
    this.console = new ConsoleHosting(this, 'Console', {
      restApiId: this.api.restApiId,
      stageName: API_STAGE_NAME,
      assetsDir: settings.consoleAssets,
      accessLogs: accessLogsBucket,
      customDomain:
        settings.publicBaseUrl && settings.certificateArn
          ? { domainName: new URL(settings.publicBaseUrl).hostname, certificateArn: settings.certificateArn }
          : undefined,
      webAclArn: settings.cloudFrontWebAclArn,
    });
    // One origin for console and API (BRIEF decision 12): the sign-in callback, the cookie's origin and
    // the CSRF Origin check all name it. The distribution references the API by id only, so no cycle forms.
    this.publicBaseUrl = settings.publicBaseUrl ?? this.console.origin;
    // After the API exists: every function names the public origin in what it generates (shared/service/config.ts requires it).
    for (const fn of this.functions.values()) fn.addEnvironment('PUBLIC_BASE_URL', this.publicBaseUrl);
    // The team whose CSAF provider-metadata.json is also at /.well-known/csaf/ (docs/csaf-provider.md).
    if (settings.csafDefaultProvider)
      for (const fn of this.functions.values())
        fn.addEnvironment('CSAF_DEFAULT_PROVIDER', settings.csafDefaultProvider);
    this.userPool = this.configureSignIn(settings);
    this.teamUsagePlan = this.createTeamUsagePlan(settings);
    this.publicClientFirewall = this.createPublicClientFirewall(settings);
    this.attachBackgroundTriggers(catalog);

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL; append the route paths (/api/...)' });
    new CfnOutput(this, 'PublicBaseUrl', {
      value: this.publicBaseUrl,
      description:
        "The service's origin: console, API (/api/...), sign-in and the links in generated documents (PUBLIC_BASE_URL)",
    });
    new CfnOutput(this, 'DistributionDomainName', {
      value: this.console.distribution.distributionDomainName,
      description: "CloudFront domain: point the custom domain's DNS (CNAME or alias) here",
    });
    new CfnOutput(this, 'ConsoleBucketName', { value: this.console.bucket.bucketName });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'SbomBucketName', { value: this.sbomBucket.bucketName });
    new CfnOutput(this, 'DisclosureBucketName', { value: this.disclosureBucket.bucketName });
    new CfnOutput(this, 'TeamUsagePlanId', {
      value: this.teamUsagePlan.usagePlanId,
      description: "Default per-team usage plan; the admin CLI adds each team's API key to it",
    });
    new CfnOutput(this, 'PublisherKeyKmsKeyArn', {
      value: this.publisherKey.keyArn,
      description: "KMS key sealing the teams' publisher private keys (admin CLI publisher-key rotate)",
    });
    new CfnOutput(this, 'SigningSecretId', {
      value: this.signingSecret.secretArn,
      description: 'Secrets Manager secret holding { keyId, key }',
    });
  }

  /**
   * Browser sign-in (docs/sign-in.md): the external issuer from context, or a Cognito user pool with a
   * hosted domain and a public app client (code flow with PKCE, no secret). Only the sign-in function
   * needs the issuer; the authorizer checks sessions in the table.
   */
  private configureSignIn(settings: VexdeskSettings): cognito.UserPool | undefined {
    const signInFunction = this.functions.get('signin');
    let issuer: string;
    let clientId: string;
    let pool: cognito.UserPool | undefined;
    if (settings.signIn) {
      ({ issuer, clientId } = settings.signIn);
    } else {
      pool = new cognito.UserPool(this, 'UserPool', {
        // Administrators create users; a member still needs an invitation in Vexdesk.
        selfSignUpEnabled: false,
        signInAliases: { email: true },
        autoVerify: { email: true },
        standardAttributes: { email: { required: true, mutable: true } },
        passwordPolicy: {
          minLength: 12,
          requireLowercase: true,
          requireUppercase: true,
          requireDigits: true,
          requireSymbols: true,
        },
        mfa: cognito.Mfa.REQUIRED,
        mfaSecondFactor: { otp: true, sms: false },
        accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      acknowledge(
        pool,
        'AwsSolutions-COG8',
        'Threat protection needs the Cognito Plus feature plan; sign-in is MFA-required and customers with stricter needs bring their own IdP (docs/sign-in.md).',
      );
      pool.addDomain('HostedDomain', {
        cognitoDomain: { domainPrefix: settings.signInDomainPrefix ?? `vexdesk-${this.node.addr.slice(0, 12)}` },
      });
      const client = pool.addClient('ConsoleClient', {
        generateSecret: false,
        authFlows: {},
        preventUserExistenceErrors: true,
        oAuth: {
          flows: { authorizationCodeGrant: true },
          scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
          callbackUrls: [`${this.publicBaseUrl}/api/auth/callback`],
          logoutUrls: [this.publicBaseUrl],
        },
        supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
      });
      // The pool's ProviderURL attribute has no scheme; the issuer its tokens name is this URL.
      issuer = `https://cognito-idp.${this.region}.${this.urlSuffix}/${pool.userPoolId}`;
      clientId = client.userPoolClientId;
      new CfnOutput(this, 'UserPoolId', {
        value: pool.userPoolId,
        description: "Cognito user pool of browser sign-in: create the members' users here",
      });
    }
    signInFunction?.addEnvironment('SIGN_IN_ISSUER', issuer);
    signInFunction?.addEnvironment('SIGN_IN_CLIENT_ID', clientId);
    return pool;
  }

  /** The function of a catalog entry; throws for a name that is not in the catalog. */
  requireFunction(name: string): lambda.Function {
    const fn = this.functions.get(name);
    if (!fn) throw new Error(`No function named ${name} in the catalog`);
    return fn;
  }

  private createTable(): dynamodb.Table {
    const string = dynamodb.AttributeType.STRING;
    const table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: string },
      sortKey: { name: tableDefinition.sortKey, type: string },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      // Every team's data lives here: never dropped by a stack deletion or replacement.
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
    });
    for (const index of tableDefinition.globalIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: string },
        sortKey: { name: index.sortKey, type: string },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
    return table;
  }

  private createAccessLogsBucket(): s3.Bucket {
    return new s3.Bucket(this, 'AccessLogsBucket', {
      // S3 server access logging can only deliver to SSE-S3 buckets.
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
    });
  }

  private createSbomBucket(accessLogs: s3.Bucket): s3.Bucket {
    return new s3.Bucket(this, 'SbomBucket', {
      versioned: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'sboms/',
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        // Product deletion leaves delete markers; the replaced bytes go after 90 days.
        { id: 'expire-deleted-sboms', noncurrentVersionExpiration: Duration.days(90) },
        // Pre-signed uploads that never completed.
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(7) },
        // Files PUT to a pre-signed URL but never completed (complete moves them out of uploads/).
        { id: 'expire-abandoned-uploads', prefix: 'uploads/', expiration: Duration.days(2) },
      ],
    });
  }

  private createDisclosureBucket(accessLogs: s3.Bucket, retentionDays: number): s3.Bucket {
    return new s3.Bucket(this, 'DisclosureBucket', {
      // BRIEF decision 9: snapshots are written once. COMPLIANCE mode means no
      // principal, root included, can overwrite or delete a version before its
      // retention ends; the code adds If-None-Match on top.
      objectLockEnabled: true,
      objectLockDefaultRetention: s3.ObjectLockRetention.compliance(Duration.days(retentionDays)),
      versioned: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'disclosures/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  private createSigningSecret(): secretsmanager.Secret {
    const secret = new secretsmanager.Secret(this, 'DisclosureSigningSecret', {
      description:
        'Vexdesk disclosure HMAC signing key: { "keyId", "key" }. Rotate by writing a new version with a new keyId.',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ keyId: 'disclosure-key-1' }),
        generateStringKey: 'key',
        passwordLength: 64,
        excludePunctuation: true,
        includeSpace: false,
      },
      // Losing the key turns every published signature unverifiable.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      secret,
      'AwsSolutions-SMG4',
      'The signing key is rotated by an operator writing a new version with a new keyId (BRIEF decision 9); each signature records its keyId, so a blind scheduled rotation would only turn verifiable disclosures into signature_valid: null.',
    );
    return secret;
  }

  /**
   * Publisher private keys are sealed with KMS Encrypt under this key, bound to team and fingerprint
   * by the encryption context (BRIEF decision 13). Yearly rotation of the key material is KMS's own
   * and transparent to Decrypt; losing the key loses every team's signing key, hence RETAIN.
   */
  private createPublisherKey(): kms.Key {
    return new kms.Key(this, 'PublisherKeySealKey', {
      description: "Vexdesk: seals the teams' OpenPGP/Ed25519 publisher private keys",
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  private createScanQueue(workerTimeoutSeconds: number): sqs.Queue {
    const deadLetters = new sqs.Queue(this, 'ScanDeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    return new sqs.Queue(this, 'ScanQueue', {
      // AWS guidance for Lambda event sources: visibility ≥ 6 × the function timeout.
      visibilityTimeout: Duration.seconds(workerTimeoutSeconds * 6),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: SCAN_QUEUE_MAX_RECEIVES },
    });
  }

  private createFunction(spec: FunctionSpec, settings: VexdeskSettings): lambda.Function {
    const id = pascalCase(spec.name);
    const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: settings.logRetention });
    // Bundled by lib/bundling.ts (esbuild with plugins), hence lambda.Function rather than NodejsFunction.
    const fn = new lambda.Function(this, `${id}Function`, {
      code: functionCode(spec.entry),
      handler: LAMBDA_HANDLER,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: spec.memoryMb,
      timeout: Duration.seconds(spec.timeoutSeconds),
      ...(spec.ephemeralStorageMb !== undefined
        ? { ephemeralStorageSize: Size.mebibytes(spec.ephemeralStorageMb) }
        : {}),
      description: `Vexdesk ${spec.name}`,
      logGroup,
      tracing: settings.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      environment: {
        ...this.environmentFor(spec.access, settings),
        ...(spec.role.kind === 'corpus-refresh' ? this.corpusFeedEnvironment(settings) : {}),
      },
    });
    this.grantAccess(fn, spec.access);
    acknowledge(
      fn,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'AWSLambdaBasicExecutionRole only allows writing CloudWatch Logs; each function writes to its own retention-bounded log group.',
    );
    this.acknowledgeScopedWildcards(fn, spec.access, settings);
    if (spec.tenant) this.createTenantRole(id, spec.name, fn, spec.tenant);
    return fn;
  }

  /**
   * The role a tenant function assumes per team (shared/service/aws-clients.ts), with
   * the team id as session tag `teamId`: every statement is confined to
   * `${aws:PrincipalTag/teamId}`'s partitions and prefixes, except the global
   * partitions and prefixes the function is listed for. Only the function's
   * own execution role may assume it, and only with that tag.
   */
  private createTenantRole(id: string, name: string, fn: lambda.Function, access: TenantAccess): void {
    const executionRole = fn.role;
    if (!executionRole) throw new Error(`${name} has no execution role`);
    const role = new iam.Role(this, `${id}TenantRole`, {
      description: `Vexdesk ${name}: data access of one team, assumed per request team with the session tag teamId`,
      assumedBy: new iam.SessionTagsPrincipal(executionRole).withConditions({
        // The tag must be present and the only one: without it every ${aws:PrincipalTag/teamId} condition fails closed anyway.
        Null: { 'aws:RequestTag/teamId': 'false' },
        'ForAllValues:StringEquals': { 'aws:TagKeys': ['teamId'] },
      }),
      maxSessionDuration: Duration.hours(1),
    });
    const team = keys.teamScope(TEAM_TAG_VARIABLE);
    const leading = (patterns: readonly string[]) => ({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...patterns] },
      Null: { 'dynamodb:LeadingKeys': 'false' },
    });
    const teamPartitions = leading([team.partition, `${team.partition}#*`]);
    const { actions, queryIndexes } = access.table;
    if (actions.length > 0)
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: [...actions],
          resources: [this.table.tableArn],
          conditions: teamPartitions,
        }),
      );
    if (queryIndexes)
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: [`${this.table.tableArn}/index/*`],
          conditions: teamPartitions,
        }),
      );
    if (access.teamFiles.objects.length > 0) {
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: [...access.teamFiles.objects],
          resources: [this.sbomBucket.arnForObjects(`${team.filesPrefix}*`)],
        }),
      );
    }
    if (access.teamFiles.list) {
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['s3:ListBucket'],
          resources: [this.sbomBucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': [`${team.filesPrefix}*`] } },
        }),
      );
    }
    if (access.uploads.length > 0) {
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: [...access.uploads],
          resources: [this.sbomBucket.arnForObjects(`${team.uploadsPrefix}*`)],
        }),
      );
    }
    for (const grant of access.globalPartitions) {
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: [...grant.actions],
          resources: [this.table.tableArn],
          conditions: leading(grant.leadingKeys),
        }),
      );
    }
    for (const grant of access.globalObjects) {
      const bucket = grant.bucket === 'sbomBucket' ? this.sbomBucket : this.disclosureBucket;
      role.addToPolicy(
        new iam.PolicyStatement({ actions: [...grant.actions], resources: [bucket.arnForObjects(`${grant.prefix}*`)] }),
      );
    }
    // Same account: the trust policy names the execution role; the identity policy says so too, explicitly.
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sts:AssumeRole', 'sts:TagSession'], resources: [role.roleArn] }),
    );
    fn.addEnvironment('TENANT_ROLE_ARN', role.roleArn);
    this.tenantRoles.set(name, role);
    this.acknowledgeTenantWildcards(role, access);
  }

  private acknowledgeTenantWildcards(role: iam.Role, access: TenantAccess): void {
    if (access.table.queryIndexes) {
      acknowledge(
        role,
        `AwsSolutions-IAM5[Resource::<${this.logicalIdOf(this.table)}.Arn>/index/*]`,
        "The audit export queries the table's own GSIs, only on the team's partitions (dynamodb:LeadingKeys).",
      );
    }
    const objectPatterns: Array<[s3.Bucket, string]> = [
      ...(access.teamFiles.objects.length > 0
        ? [[this.sbomBucket, `${keys.teamScope(TEAM_TAG_VARIABLE).filesPrefix}*`] as [s3.Bucket, string]]
        : []),
      ...(access.uploads.length > 0
        ? [[this.sbomBucket, `${keys.teamScope(TEAM_TAG_VARIABLE).uploadsPrefix}*`] as [s3.Bucket, string]]
        : []),
      ...access.globalObjects.map((grant): [s3.Bucket, string] => [
        grant.bucket === 'sbomBucket' ? this.sbomBucket : this.disclosureBucket,
        `${grant.prefix}*`,
      ]),
    ];
    for (const [bucket, pattern] of objectPatterns) {
      acknowledge(
        role,
        // cdk-nag names a policy variable `<aws:PrincipalTag/teamId>`.
        `AwsSolutions-IAM5[Resource::<${this.logicalIdOf(bucket)}.Arn>/${pattern.replace(/\$\{([^}]+)\}/g, '<$1>')}]`,
        "Object keys are generated per team and entity at run time; the grant covers one key prefix of one bucket (the team's own, through the teamId session tag, or a listed global one).",
      );
    }
  }

  /** The refresh's feeds (functions/corpus-refresh/handler.ts requires all three; empty = that source off). */
  private corpusFeedEnvironment(settings: VexdeskSettings): Record<string, string> {
    const feeds = settings.corpusFeeds;
    return {
      CORPUS_OSV_URLS: osvFeedUrls(feeds).join(','),
      CORPUS_KEV_URL: feeds.kevUrl,
      CORPUS_EPSS_URL: feeds.epssUrl,
    };
  }

  /** Every function gets the variables shared/service/config.ts requires; secrets and queues only where granted. */
  private environmentFor(access: ResourceAccess, settings: VexdeskSettings): Record<string, string> {
    return {
      TABLE_NAME: this.table.tableName,
      SBOM_BUCKET: this.sbomBucket.bucketName,
      DISCLOSURE_BUCKET: this.disclosureBucket.bucketName,
      LOG_LEVEL: settings.logLevel,
      ...(access.signingSecret ? { DISCLOSURE_SIGNING_SECRET_ID: this.signingSecret.secretArn } : {}),
      ...(access.publisherKey.length > 0 ? { PUBLISHER_KEY_KMS_KEY_ID: this.publisherKey.keyArn } : {}),
      ...(access.scanQueue === 'send' && this.scanQueue ? { SCAN_QUEUE_URL: this.scanQueue.queueUrl } : {}),
    };
  }

  /**
   * Explicit statements from the access map (lib/permissions.ts), no CDK
   * grant helpers: grantReadData and friends add actions the code never uses
   * (Scan, DescribeTable, GetRecords, DescribeSecret, GetQueueAttributes, ...).
   */
  private grantAccess(fn: lambda.Function, access: ResourceAccess): void {
    const { actions, queryIndexes, leadingKeys } = access.table;
    // ForAllValues alone would also pass a request without any leading key; the Null test refuses those.
    const conditions = leadingKeys
      ? {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...leadingKeys] },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        }
      : undefined;
    if (actions.length > 0)
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: [...actions], resources: [this.table.tableArn], conditions }),
      );
    if (queryIndexes)
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: [`${this.table.tableArn}/index/*`],
          conditions,
        }),
      );
    grantBucket(fn, this.sbomBucket, access.sbomBucket);
    grantBucket(fn, this.disclosureBucket, access.disclosureBucket);
    if (access.signingSecret)
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: [this.signingSecret.secretArn],
        }),
      );
    if (access.publisherKey.length > 0)
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: [...access.publisherKey], resources: [this.publisherKey.keyArn] }),
      );
    // 'consume' is granted by the SQS event source itself (attachBackgroundTriggers).
    if (access.scanQueue === 'send' && this.scanQueue)
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.scanQueue.queueArn] }),
      );
  }

  /**
   * The wildcards cdk-nag (IAM5) reports on our grants are all scoped to one
   * of our own resources: the table's indexes and the objects of one bucket.
   */
  private acknowledgeScopedWildcards(fn: lambda.Function, access: ResourceAccess, settings: VexdeskSettings): void {
    if (access.table.queryIndexes) {
      acknowledge(
        fn,
        `AwsSolutions-IAM5[Resource::<${this.logicalIdOf(this.table)}.Arn>/index/*]`,
        "The audit export queries the table's own GSIs (access patterns in shared/service/data); the wildcard covers only this table's indexes.",
      );
    }
    const buckets: Array<[s3.Bucket, BucketAccess]> = [
      [this.sbomBucket, access.sbomBucket],
      [this.disclosureBucket, access.disclosureBucket],
    ];
    for (const [bucket, granted] of buckets) {
      if (granted.objects.length === 0) continue;
      acknowledge(
        fn,
        `AwsSolutions-IAM5[Resource::<${this.logicalIdOf(bucket)}.Arn>/*]`,
        'Object keys are generated per team and entity at run time; the grant covers only the objects of this one bucket, with object-level actions listed one by one.',
      );
    }
    if (settings.tracing) {
      acknowledge(
        fn,
        'AwsSolutions-IAM5[Resource::*]',
        'X-Ray PutTraceSegments/PutTelemetryRecords do not support resource-level permissions.',
      );
    }
  }

  private logicalIdOf(construct: s3.Bucket | dynamodb.Table): string {
    return this.getLogicalId(construct.node.defaultChild as s3.CfnBucket | dynamodb.CfnTable);
  }

  // API Gateway REST API (v1) rather than an HTTP API (v2). Only v1 lets us
  // replace API Gateway's own answers (authorizer 401, 403, unknown route,
  // 413, 429) with the service's one error body (BRIEF decision 7): HTTP APIs
  // have no gateway responses. v1 also gives us a REQUEST authorizer with
  // result caching off, so revocation is immediate (decision 6); stage
  // throttling with per-method overrides for the anonymous routes; execution
  // logging per method; and binaryMediaTypes ['*/*'], which hands every request
  // body, `Content-Encoding: gzip` SBOM uploads and raw SBOM files (XML, tag-value)
  // included, to the Lambda intact as base64 (decision 8; docs/sbom-formats.md "Raw bodies").
  private createApi(settings: VexdeskSettings): apigw.RestApi {
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', { retention: settings.logRetention });
    const api = new apigw.RestApi(this, 'Api', {
      restApiName: 'vexdesk',
      description: 'Vexdesk supply-chain vulnerability disclosure API',
      endpointTypes: [apigw.EndpointType.REGIONAL],
      binaryMediaTypes: ['*/*'],
      // Per-team throttling: the authorizer returns the team's usage-plan key (usageIdentifierKey).
      apiKeySourceType: apigw.ApiKeySourceType.AUTHORIZER,
      // Execution logging (loggingLevel below) needs the account-level CloudWatch role.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: API_STAGE_NAME,
        throttlingRateLimit: settings.throttle.rateLimit,
        throttlingBurstLimit: settings.throttle.burstLimit,
        methodOptions: this.publicMethodOptions(settings),
        // Errors only, and never request/response bodies: they carry SBOMs and keys.
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: settings.tracing,
        accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
        accessLogFormat: accessLogFormat(),
      },
    });
    acknowledge(
      api,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      'The account-level role API Gateway uses to write execution logs; AWS documents this managed policy for exactly that role.',
    );
    acknowledge(
      api,
      'AwsSolutions-APIG2',
      "Requests are validated in the Lambda with the route table's zod schemas, which also produce the 422 error details the spec requires.",
    );
    acknowledge(
      api,
      'AwsSolutions-COG4',
      'Clients authenticate with scoped API keys, CI tokens or a browser session, all checked by the Lambda REQUEST authorizer (BRIEF decisions 6 and 10); Cognito only signs people in, it never authorizes an API call.',
    );

    this.installGatewayResponses(api);
    this.addRoutes(api);
    return api;
  }

  /** Per-method throttling of the anonymous routes, keyed `/{path}/{METHOD}` as the stage expects. */
  private publicMethodOptions(settings: VexdeskSettings): Record<string, apigw.MethodDeploymentOptions> {
    const options: Record<string, apigw.MethodDeploymentOptions> = {};
    for (const route of routes as readonly RouteDefinition[]) {
      if (!isPublicDisclosureRoute(route)) continue;
      options[`${route.path}/${route.method}`] = {
        throttlingRateLimit: settings.publicThrottle.rateLimit,
        throttlingBurstLimit: settings.publicThrottle.burstLimit,
      };
    }
    return options;
  }

  private installGatewayResponses(api: apigw.RestApi): void {
    for (const type of Object.keys(gatewayResponses) as GatewayResponseType[]) {
      const headers = Object.fromEntries(
        Object.entries(gatewayResponseHeaders(type)).map(([name, value]) => [name, `'${value}'`]),
      );
      api.addGatewayResponse(`GatewayResponse${pascalCase(type.toLowerCase().replace(/_/g, '-'))}`, {
        type: apigw.ResponseType.of(type),
        statusCode: String(gatewayResponses[type].statusCode),
        responseHeaders: headers,
        templates: { 'application/json': gatewayResponseTemplate(type) },
      });
    }
  }

  /** Resources and methods straight from the route table (BRIEF decision 2). */
  private addRoutes(api: apigw.RestApi): void {
    const integrations = new Map<EndpointGroup, apigw.LambdaIntegration>();
    const integrationFor = (group: EndpointGroup): apigw.LambdaIntegration => {
      let integration = integrations.get(group);
      if (!integration) {
        // One API-wide invoke permission per function instead of two per method.
        integration = new apigw.LambdaIntegration(this.requireFunction(group), {
          proxy: true,
          scopePermissionToMethod: false,
        });
        integrations.set(group, integration);
      }
      return integration;
    };
    const corsResources = new Set<apigw.Resource>();

    for (const route of routes as readonly RouteDefinition[]) {
      const resource = api.root.resourceForPath(route.path);
      const method = resource.addMethod(
        route.method,
        integrationFor(route.group),
        route.scope === null
          ? { operationName: route.operationId, authorizationType: apigw.AuthorizationType.NONE }
          : // apiKeyRequired: the usage plan of the key the authorizer names throttles the call.
            {
              operationName: route.operationId,
              authorizationType: apigw.AuthorizationType.CUSTOM,
              authorizer: this.authorizer,
              apiKeyRequired: true,
            },
      );
      if (route.scope === null) {
        acknowledge(
          method,
          'AwsSolutions-APIG4',
          `${route.method} ${route.path} is public by the spec: disclosures and the API description are read without credentials.`,
        );
        acknowledge(method, 'AwsSolutions-COG4', `${route.method} ${route.path} is public by the spec.`);
      }
      if (isPublicDisclosureRoute(route) && !corsResources.has(resource)) {
        corsResources.add(resource);
        this.addCorsPreflight(resource);
      }
    }
    for (const path of routePaths()) this.addMethodNotAllowed(api.root.resourceForPath(path), path);
  }

  /**
   * 405 with `Allow` for a method the route table does not serve on a path. API Gateway answers
   * an unknown method like an unknown path (MISSING_AUTHENTICATION_TOKEN, 404 here), so each
   * resource gets an `ANY` method — a specific method always wins over ANY — answered by a MOCK
   * integration: no Lambda, no authorizer, nothing of the team's quota spent.
   */
  private addMethodNotAllowed(resource: apigw.Resource, path: string): void {
    const allow = methodsOfPath(path);
    const headers: Record<string, string> = { ...GATEWAY_RESPONSE_HEADERS, Allow: allow.join(', ') };
    const method = resource.addMethod(
      'ANY',
      new apigw.MockIntegration({
        // Binary media type '*/*': without CONVERT_TO_TEXT a MOCK integration fails on a request body.
        contentHandling: apigw.ContentHandling.CONVERT_TO_TEXT,
        // The template ignores the body. A body of another media type is not passed to the MOCK
        // unmapped (which could fail as a 5xx): API Gateway refuses it, 415 → DEFAULT_4XX (400).
        requestTemplates: Object.fromEntries(
          METHOD_NOT_ALLOWED_MEDIA_TYPES.map((type) => [type, '{ "statusCode": 200 }']),
        ),
        passthroughBehavior: apigw.PassthroughBehavior.NEVER,
        integrationResponses: [
          {
            statusCode: String(METHOD_NOT_ALLOWED.statusCode),
            contentHandling: apigw.ContentHandling.CONVERT_TO_TEXT,
            responseParameters: Object.fromEntries(
              Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, `'${value}'`]),
            ),
            responseTemplates: { 'application/json': methodNotAllowedTemplate(path, allow) },
          },
        ],
      }),
      {
        authorizationType: apigw.AuthorizationType.NONE,
        methodResponses: [
          {
            statusCode: String(METHOD_NOT_ALLOWED.statusCode),
            responseParameters: Object.fromEntries(
              Object.keys(headers).map((name) => [`method.response.header.${name}`, true]),
            ),
          },
        ],
      },
    );
    acknowledge(
      method,
      'AwsSolutions-APIG4',
      `ANY ${path} only answers 405 from a MOCK integration; the route table's methods on it keep their authorizer.`,
    );
    acknowledge(method, 'AwsSolutions-COG4', `ANY ${path} only answers 405 from a MOCK integration.`);
  }

  // A hand-built preflight instead of `addCorsPreflight`: with binary media
  // type '*/*' API Gateway treats the OPTIONS request as binary, and a MOCK
  // integration without CONVERT_TO_TEXT then fails with 500.
  private addCorsPreflight(resource: apigw.Resource): void {
    // cdk-nag exempts OPTIONS methods from its authorization rules, so nothing to acknowledge here.
    const headers = {
      'Access-Control-Allow-Origin': "'*'",
      'Access-Control-Allow-Methods': "'GET,OPTIONS'",
      'Access-Control-Allow-Headers': "'Accept,Content-Type'",
      'Access-Control-Max-Age': "'86400'",
    };
    resource.addMethod(
      'OPTIONS',
      new apigw.MockIntegration({
        contentHandling: apigw.ContentHandling.CONVERT_TO_TEXT,
        requestTemplates: { 'application/json': '{ "statusCode": 204 }' },
        integrationResponses: [
          {
            statusCode: '204',
            contentHandling: apigw.ContentHandling.CONVERT_TO_TEXT,
            responseParameters: Object.fromEntries(
              Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, value]),
            ),
          },
        ],
      }),
      {
        authorizationType: apigw.AuthorizationType.NONE,
        methodResponses: [
          {
            statusCode: '204',
            responseParameters: Object.fromEntries(
              Object.keys(headers).map((name) => [`method.response.header.${name}`, true]),
            ),
          },
        ],
      },
    );
  }

  /**
   * Throttling per team (issue 8, defect 9): every team is one API key of a
   * usage plan, named by the authorizer (apiKeySource AUTHORIZER), so one
   * tenant cannot spend the stage-wide budget. This is the default plan; the
   * admin CLI creates each team's key and moves it to a plan of its own for
   * an override (shared/service/identity/usage-plan-keys.ts). Every function learns
   * the default, which GET /api/settings shows.
   */
  private createTeamUsagePlan(settings: VexdeskSettings): apigw.UsagePlan {
    const plan = this.api.addUsagePlan('TeamUsagePlan', {
      name: `${this.stackName}-team-default`,
      description: 'Vexdesk default per-team throttle; each team is one API key named by the Lambda authorizer',
      throttle: { rateLimit: settings.teamThrottle.rateLimit, burstLimit: settings.teamThrottle.burstLimit },
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });
    for (const fn of this.functions.values()) {
      fn.addEnvironment('TEAM_RATE_LIMIT', String(settings.teamThrottle.rateLimit));
      fn.addEnvironment('TEAM_BURST_LIMIT', String(settings.teamThrottle.burstLimit));
    }
    return plan;
  }

  /**
   * Throttling per anonymous client: usage plans need a key, which anonymous
   * callers have none of, so a WAF rate-based rule keyed by source IP limits
   * each client on the disclosure routes. A blocked request gets the
   * WAF_FILTERED gateway response: 429 with Retry-After, our error body.
   */
  private createPublicClientFirewall(settings: VexdeskSettings): wafv2.CfnWebACL {
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    const acl = new wafv2.CfnWebACL(this, 'PublicClientFirewall', {
      description: 'Vexdesk: per-client rate limit on the anonymous disclosure routes',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('vexdesk-api'),
      rules: [
        {
          name: 'public-client-rate-limit',
          priority: 0,
          action: { block: {} },
          visibilityConfig: visibility('vexdesk-public-client-rate-limit'),
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: settings.publicClientLimit,
              evaluationWindowSec: PUBLIC_CLIENT_WINDOW_SECONDS,
              scopeDownStatement: {
                byteMatchStatement: {
                  fieldToMatch: { uriPath: {} },
                  positionalConstraint: 'CONTAINS',
                  searchString: PUBLIC_CLIENT_LIMITED_PATH,
                  textTransformations: [{ priority: 0, type: 'NONE' }],
                },
              },
            },
          },
        },
      ],
    });
    const association = new wafv2.CfnWebACLAssociation(this, 'PublicClientFirewallAssociation', {
      resourceArn: this.api.deploymentStage.stageArn,
      webAclArn: acl.attrArn,
    });
    // The ARN names the stage by name only: associate once the stage exists.
    association.node.addDependency(this.api.deploymentStage);
    return acl;
  }

  private attachBackgroundTriggers(catalog: FunctionSpec[]): void {
    for (const spec of catalog) {
      const fn = this.requireFunction(spec.name);
      if (spec.role.kind === 'scan-worker' && this.scanQueue) {
        // The worker reports failed records one by one ({ batchItemFailures }); three failures move a message to the DLQ.
        fn.addEventSource(new SqsEventSource(this.scanQueue, { batchSize: 1, reportBatchItemFailures: true }));
        new events.Rule(this, 'RecoverySweepSchedule', {
          description:
            'Recovery after a crash: files of unfinished uploads, expired upload sessions, scans the queue gave up on',
          schedule: events.Schedule.rate(Duration.minutes(15)),
          targets: [new eventTargets.LambdaFunction(fn, { retryAttempts: 0 })],
        });
      }
      if (spec.role.kind === 'corpus-refresh') {
        new events.Rule(this, 'CorpusRefreshSchedule', {
          description: 'Daily refresh of the vulnerability corpus (OSV, CISA KEV, EPSS)',
          schedule: events.Schedule.cron({ minute: '17', hour: '3' }),
          targets: [new eventTargets.LambdaFunction(fn, { retryAttempts: 2, maxEventAge: Duration.hours(6) })],
        });
      }
    }
  }
}

/**
 * Object-level S3 actions listed one by one (no `s3:GetObject*`-style
 * wildcards); ListBucket only where the code lists a prefix.
 */
function grantBucket(fn: lambda.Function, bucket: s3.Bucket, access: BucketAccess): void {
  if (access.objects.length > 0)
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: [...access.objects], resources: [bucket.arnForObjects('*')] }),
    );
  if (access.list)
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
}

/** JSON access log lines: who (key's service account), what, how it went, how long. */
function accessLogFormat(): apigw.AccessLogFormat {
  const f = apigw.AccessLogField;
  return apigw.AccessLogFormat.custom(
    JSON.stringify({
      requestId: f.contextRequestId(),
      requestTime: f.contextRequestTime(),
      sourceIp: f.contextIdentitySourceIp(),
      userAgent: f.contextIdentityUserAgent(),
      httpMethod: f.contextHttpMethod(),
      resourcePath: f.contextResourcePath(),
      path: f.contextPath(),
      status: f.contextStatus(),
      responseLength: f.contextResponseLength(),
      responseLatency: f.contextResponseLatency(),
      integrationLatency: f.contextIntegrationLatency(),
      principalId: f.contextAuthorizerPrincipalId(),
      authorizerError: f.contextAuthorizerError(),
      errorType: f.contextErrorResponseType(),
      errorMessage: f.contextErrorMessage(),
    }),
  );
}
