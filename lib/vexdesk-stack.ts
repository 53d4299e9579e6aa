/**
 * The Vexdesk stack: one DynamoDB table, the SBOM and disclosure buckets and the keys (lib/storage.ts),
 * one Lambda per endpoint group plus the authorizer and the background functions with their grants
 * (lib/service-functions.ts), the REST API built from the route table (lib/rest-api.ts; its resources and
 * methods in the nested stack of lib/api-routes.ts), sign-in
 * (lib/sign-in.ts), and the CloudFront distribution serving the web console and the API on one origin
 * (lib/console-hosting.ts). Environment-agnostic: no lookups, so `cdk synth` works offline and the
 * template deploys anywhere.
 *
 * The parts other than console hosting add their resources to this stack's scope rather than being
 * Constructs of their own, so every logical ID is the one already deployed (lib/stack-support.ts).
 * The order below is the order resources are created in, which the synthesized template keeps.
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import type { ApiRoutes } from './api-routes';
import { attachBackgroundTriggers, createScanQueue } from './background-jobs';
import { ConsoleHosting } from './console-hosting';
import { functionCatalog, type FunctionSpec } from './function-catalog';
import { functionCode } from './function-code';
import { createOriginSecret, createPublicClientFirewall, ORIGIN_VERIFY_HEADER } from './public-client-firewall';
import { API_STAGE_NAME, ServiceApi, createTeamUsagePlan } from './rest-api';
import { configureNotifyEmail } from './notify-email';
import { ServiceFunctions } from './service-functions';
import { DEFAULT_SETTINGS, type VexdeskSettings } from './settings';
import { configureSignIn } from './sign-in';
import { Storage } from './storage';

export interface VexdeskStackProps extends StackProps {
  /** Deployment knobs; see lib/settings.ts for each default. */
  settings?: Partial<VexdeskSettings>;
  /** The functions to deploy; defaults to `functionCatalog()`. Tests pass variants. */
  catalog?: FunctionSpec[];
  /**
   * Each function's deployment package, from its entry; defaults to `functionCode` (esbuild through CDK's
   * local bundling, lib/function-code.ts). The infra tests pass the bundles they build once per run.
   */
  functionCode?: (entry: string) => lambda.Code;
}

export class VexdeskStack extends Stack {
  readonly table: dynamodb.Table;
  readonly sbomBucket: s3.Bucket;
  readonly disclosureBucket: s3.Bucket;
  readonly signingSecret: secretsmanager.Secret;
  /** Seals the teams' publisher private keys (shared/service/disclosures/key-vault.ts). */
  readonly publisherKey: kms.Key;
  readonly api: apigw.RestApi;
  /** The nested stack holding the API's resources and methods, which would not fit beside the rest (lib/api-routes.ts). */
  readonly routes: ApiRoutes;
  readonly authorizer: apigw.RequestAuthorizer;
  /** The default per-team usage plan; teams with an override get their own (admin CLI). */
  readonly teamUsagePlan: apigw.UsagePlan;
  readonly publicClientFirewall: wafv2.CfnWebACL;
  /** Every function of the catalog, by catalog name (`products`, `authorizer`, `scan-worker`, …). */
  readonly functions: Map<string, lambda.Function>;
  /** The tenant role of each function that acts for a caller's team (docs/architecture/request-path.md "Tenant-scoped credentials"). */
  readonly tenantRoles: Map<string, iam.Role>;
  readonly scanQueue: sqs.Queue | undefined;
  readonly settings: VexdeskSettings;
  /** PUBLIC_BASE_URL of every function: the configured custom domain, or the CloudFront distribution's. */
  readonly publicBaseUrl: string;
  /** The console bucket and the distribution in front of console and API (docs/console-hosting.md). */
  readonly console: ConsoleHosting;
  /** The default sign-in provider (docs/sign-in.md); undefined when an external issuer is configured. */
  readonly userPool: cognito.UserPool | undefined;
  private readonly serviceFunctions: ServiceFunctions;

  constructor(scope: Construct, id: string, props: VexdeskStackProps = {}) {
    super(scope, id, props);
    const settings: VexdeskSettings = { ...DEFAULT_SETTINGS, ...props.settings };
    this.settings = settings;
    const catalog = props.catalog ?? functionCatalog();

    const storage = new Storage(this, settings);
    this.table = storage.table;
    this.sbomBucket = storage.sbomBucket;
    this.disclosureBucket = storage.disclosureBucket;
    this.signingSecret = storage.signingSecret;
    this.publisherKey = storage.publisherKey;
    const scanWorker = catalog.find((spec) => spec.role.kind === 'scan-worker');
    this.scanQueue = scanWorker ? createScanQueue(this, scanWorker.timeoutSeconds) : undefined;

    this.serviceFunctions = new ServiceFunctions(this, {
      catalog,
      code: props.functionCode ?? functionCode,
      settings,
      storage,
      scanQueue: this.scanQueue,
    });
    this.functions = this.serviceFunctions.byName;
    this.tenantRoles = this.serviceFunctions.tenantRoles;

    const serviceApi = new ServiceApi(this, settings, this.serviceFunctions);
    this.authorizer = serviceApi.authorizer;
    this.api = serviceApi.api;
    this.routes = serviceApi.routes;
    const originSecret = createOriginSecret(this);
    this.console = new ConsoleHosting(this, 'Console', {
      restApiId: this.api.restApiId,
      stageName: API_STAGE_NAME,
      assetsDir: settings.consoleAssets,
      accessLogs: storage.accessLogsBucket,
      customDomain:
        settings.publicBaseUrl && settings.certificateArn
          ? { domainName: new URL(settings.publicBaseUrl).hostname, certificateArn: settings.certificateArn }
          : undefined,
      webAclArn: settings.cloudFrontWebAclArn,
      originVerify: { headerName: ORIGIN_VERIFY_HEADER, value: originSecret.secretValue.unsafeUnwrap() },
    });
    // One origin for console and API: the sign-in callback, the cookie's origin and
    // the CSRF Origin check all name it. The distribution references the API by id only, so no cycle forms.
    this.publicBaseUrl = settings.publicBaseUrl ?? this.console.origin;
    // After the API exists: every function names the public origin in what it generates (shared/service/config.ts requires it).
    this.serviceFunctions.addEnvironment('PUBLIC_BASE_URL', this.publicBaseUrl);
    // The team whose CSAF provider-metadata.json is also at /.well-known/csaf/ (docs/csaf-provider.md).
    if (settings.csafDefaultProvider)
      this.serviceFunctions.addEnvironment('CSAF_DEFAULT_PROVIDER', settings.csafDefaultProvider);
    configureNotifyEmail(settings.notifyEmail, this.serviceFunctions);
    this.userPool = configureSignIn(this, settings, this.publicBaseUrl, this.functions.get('signin'));
    this.teamUsagePlan = createTeamUsagePlan(this.api, settings, this.serviceFunctions);
    this.publicClientFirewall = createPublicClientFirewall(this, this.api, settings, originSecret);
    attachBackgroundTriggers(
      this,
      catalog,
      (name) => this.requireFunction(name),
      this.scanQueue,
      settings.corpusRefreshSchedule,
    );

    new CfnOutput(this, 'ApiUrl', {
      value: this.api.url,
      description: "API Gateway's own URL, for diagnosis: it answers only requests through CloudFront (PublicBaseUrl)",
    });
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

  /** The function of a catalog entry; throws for a name that is not in the catalog. */
  requireFunction(name: string): lambda.Function {
    return this.serviceFunctions.require(name);
  }
}
