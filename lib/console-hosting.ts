/**
 * The web console on AWS (docs/console-hosting.md): a private
 * S3 bucket read by CloudFront through origin access control, and one distribution that serves the
 * console at `/` and routes `/api/*` and `/.well-known/csaf/*` to API Gateway, so console and API
 * share one origin and the session cookie stays first-party (`__Host-`, SameSite=Lax).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AssetHashType,
  DockerImage,
  Duration,
  RemovalPolicy,
  Stack,
  Validations,
  type ILocalBundling,
} from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import {
  CONSOLE_CONTENT_SECURITY_POLICY,
  CONSOLE_SECURITY_HEADERS,
  HSTS_MAX_AGE_SECONDS,
} from '../shared/service/http/console-headers';
import { PROJECT_ROOT } from './function-catalog';

/** The viewer-request function that serves index.html for console routes (a plain JS file; the infra tests run it). */
export const CONSOLE_REWRITE_FUNCTION_FILE = fileURLToPath(new URL('./cloudfront/console-rewrite.js', import.meta.url));
/** The viewer-request function of the API behaviours that writes the viewer's address for the API's web ACL. */
export const CLIENT_ADDRESS_FUNCTION_FILE = fileURLToPath(new URL('./cloudfront/client-address.js', import.meta.url));

/** Where `npm run build:web` (Vite) writes the console: index.html and hashed files under assets/. */
export const CONSOLE_BUILD_SCRIPT = 'build:web';
export const CONSOLE_BUILD_OUTPUT = 'web/dist';
/** Vite's output directory for content-hashed files: cached for a year, never rewritten. */
const HASHED_ASSETS_PREFIX = 'assets';

/** The CloudFront path patterns routed to API Gateway (route table paths start with /api/ or /.well-known/). */
export const API_PATH_PATTERNS = ['/api/*', '/.well-known/csaf/*'] as const;

/**
 * Builds the console during synth (CDK local bundling, no Docker), as lib/function-code.ts builds the
 * functions: `npm run build:web`, then its output is the asset. A project without the script fails
 * synth with a message saying what to do, never with an empty console.
 */
export class ConsoleBuild implements ILocalBundling {
  constructor(
    readonly script: string = CONSOLE_BUILD_SCRIPT,
    readonly output: string = CONSOLE_BUILD_OUTPUT,
  ) {}

  tryBundle(outputDir: string): boolean {
    const scripts =
      (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> })
        .scripts ?? {};
    if (!scripts[this.script]) {
      throw new Error(
        `The web console cannot be built: package.json has no "${this.script}" script. Build the console into a directory with index.html ` +
          'and pass it with -c vexdesk:consoleAssets=DIR, or add the script (docs/console-hosting.md).',
      );
    }
    try {
      // Its output goes to stderr: `cdk synth` prints the template on stdout.
      execFileSync('npm', ['run', '--silent', this.script], { cwd: PROJECT_ROOT, stdio: ['ignore', 2, 2] });
    } catch (error) {
      throw new Error(`npm run ${this.script} failed; its errors are printed above`, { cause: error });
    }
    const built = join(PROJECT_ROOT, this.output);
    if (!existsSync(join(built, 'index.html')))
      throw new Error(`npm run ${this.script} wrote no ${this.output}/index.html`);
    cpSync(built, outputDir, { recursive: true });
    return true;
  }
}

/** The console's files: a directory already built (tests, CI artefacts), or the console built at synth. */
export function consoleSource(assetsDir: string | undefined): s3deploy.ISource {
  if (assetsDir !== undefined) {
    if (!existsSync(join(assetsDir, 'index.html')))
      throw new Error(`The console directory ${assetsDir} has no index.html (run npm run ${CONSOLE_BUILD_SCRIPT})`);
    return s3deploy.Source.asset(assetsDir);
  }
  // OUTPUT: the asset hash is the build's, and the project directory itself is never copied.
  return s3deploy.Source.asset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: { local: new ConsoleBuild(), image: DockerImage.fromRegistry('unused-local-bundling-only') },
  });
}

export interface ConsoleHostingProps {
  /** The REST API's id and stage: the `/api/*` origin is `<id>.execute-api.<region>.<suffix>/<stage>`. */
  restApiId: string;
  stageName: string;
  /** A directory holding the built console (index.html); undefined builds it at synth (`ConsoleBuild`). */
  assetsDir: string | undefined;
  /** Bucket that receives the console bucket's S3 access logs and CloudFront's standard logs. */
  accessLogs: s3.IBucket;
  /** The custom domain served (PUBLIC_BASE_URL's host) and its ACM certificate in us-east-1; undefined: the distribution's own domain. */
  customDomain: { domainName: string; certificateArn: string } | undefined;
  /** An existing CLOUDFRONT-scope AWS WAF web ACL (created in us-east-1) to attach. */
  webAclArn: string | undefined;
  /** The header CloudFront adds to every API request and its secret value: the API's web ACL refuses requests without it. */
  originVerify: { headerName: string; value: string };
}

function acknowledge(scope: Construct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

export class ConsoleHosting extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly rewriteFunction: cloudfront.Function;
  readonly clientAddressFunction: cloudfront.Function;
  readonly consoleHeaders: cloudfront.ResponseHeadersPolicy;
  readonly apiHeaders: cloudfront.ResponseHeadersPolicy;
  /** `https://` + the custom domain, or the distribution's own domain name. */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: ConsoleHostingProps) {
    super(scope, id);
    const stack = Stack.of(this);

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 'console/',
      // Rebuilt from the repository on every deploy, but retained like every bucket of the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.rewriteFunction = new cloudfront.Function(this, 'RewriteFunction', {
      comment: 'Vexdesk console: console routes (no file extension) are served index.html',
      code: cloudfront.FunctionCode.fromFile({ filePath: CONSOLE_REWRITE_FUNCTION_FILE }),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });

    this.clientAddressFunction = new cloudfront.Function(this, 'ClientAddressFunction', {
      comment: "Vexdesk API: the viewer's address in True-Client-IP for the API's per-client rate limits",
      code: cloudfront.FunctionCode.fromFile({ filePath: CLIENT_ADDRESS_FUNCTION_FILE }),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });

    const { customHeaders, securityHeaders } = securityHeaderSettings();
    this.consoleHeaders = new cloudfront.ResponseHeadersPolicy(this, 'ConsoleHeaders', {
      comment: 'Vexdesk console: CSP without inline script, HSTS, no framing',
      securityHeadersBehavior: {
        ...securityHeaders,
        contentSecurityPolicy: { contentSecurityPolicy: CONSOLE_CONTENT_SECURITY_POLICY, override: true },
      },
      customHeadersBehavior: { customHeaders },
    });
    // The API sets its own CSP on the HTML it answers (sign-in pages, compliance report): kept as is.
    this.apiHeaders = new cloudfront.ResponseHeadersPolicy(this, 'ApiHeaders', {
      comment: "Vexdesk API through CloudFront: HSTS, nosniff, no framing; the API's own CSP passes",
      securityHeadersBehavior: securityHeaders,
      customHeadersBehavior: { customHeaders },
    });

    const apiOrigin = new origins.HttpOrigin(`${props.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
      originPath: `/${props.stageName}`,
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      // API Gateway's own limit on an integration is 29 s; CloudFront's default wait is 30 s.
      readTimeout: Duration.seconds(30),
      customHeaders: { [props.originVerify.headerName]: props.originVerify.value },
    });
    // The API is never cached (revocation and every write are immediate), and gets every viewer header but
    // Host (API Gateway routes by its own host name): Authorization, Cookie, X-CSRF-Token, Origin, Content-Type,
    // Content-Encoding, If-None-Match… With caching disabled, this policy also forwards Authorization.
    const apiBehavior: cloudfront.BehaviorOptions = {
      origin: apiOrigin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: this.apiHeaders,
      functionAssociations: [
        { function: this.clientAddressFunction, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
      ],
      compress: true,
    };

    const certificate = props.customDomain
      ? acm.Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn)
      : undefined;
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Vexdesk: web console and API on one origin',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.consoleHeaders,
        functionAssociations: [
          { function: this.rewriteFunction, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
        ],
        compress: true,
      },
      additionalBehaviors: Object.fromEntries(API_PATH_PATTERNS.map((pattern) => [pattern, apiBehavior])),
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_ALL,
      enableLogging: true,
      logBucket: this.createLogBucket(props.accessLogs),
      logFilePrefix: 'cloudfront/',
      // Cookies carry the session id: never written to the logs.
      logIncludesCookies: false,
      ...(certificate && props.customDomain
        ? {
            certificate,
            domainNames: [props.customDomain.domainName],
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
            sslSupportMethod: cloudfront.SSLMethod.SNI,
          }
        : {}),
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
    });
    this.origin = `https://${props.customDomain?.domainName ?? this.distribution.distributionDomainName}`;

    if (!props.customDomain) {
      acknowledge(
        this.distribution,
        'AwsSolutions-CFR4',
        "Without a custom domain the distribution uses CloudFront's default *.cloudfront.net certificate, whose security policy cannot be chosen; with vexdesk:certificateArn it is TLSv1.2_2021 (docs/console-hosting.md).",
      );
    }
    if (!props.webAclArn) {
      acknowledge(
        this.distribution,
        'AwsSolutions-CFR2',
        'A CLOUDFRONT-scope web ACL can only be created in us-east-1 and this stack deploys to any region: the API keeps its regional WAF, and vexdesk:cloudFrontWebAclArn attaches an existing edge ACL.',
      );
    }
    acknowledge(
      this.distribution,
      'AwsSolutions-CFR1',
      'Public disclosures are read worldwide (spec "Public disclosure"); there is no country a security advisory must be hidden from.',
    );

    this.deployConsole(consoleSource(props.assetsDir));
  }

  /**
   * CloudFront's standard logs need a bucket with ACLs enabled (the log delivery writes with an ACL),
   * unlike the stack's access-log bucket; its own server access logs go to that bucket.
   */
  private createLogBucket(accessLogs: s3.IBucket): s3.Bucket {
    return new s3.Bucket(this, 'CdnLogsBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
      enforceSSL: true,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'cloudfront-logs/',
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ id: 'expire-cdn-logs', expiration: Duration.days(365) }],
    });
  }

  /**
   * Two uploads of the same build: the hashed files first (a year, immutable; never pruned, so a browser
   * still holding the previous index.html finds its files), then everything else with `no-cache`, and
   * index.html invalidated at the edge so the new version is served at once.
   */
  private deployConsole(source: s3deploy.ISource): void {
    const hashed = new s3deploy.BucketDeployment(this, 'DeployHashedAssets', {
      sources: [source],
      destinationBucket: this.bucket,
      exclude: ['*'],
      include: [`${HASHED_ASSETS_PREFIX}/*`],
      prune: false,
      cacheControl: [
        s3deploy.CacheControl.setPublic(),
        s3deploy.CacheControl.maxAge(Duration.days(365)),
        s3deploy.CacheControl.immutable(),
      ],
    });
    const entry = new s3deploy.BucketDeployment(this, 'DeployEntry', {
      sources: [source],
      destinationBucket: this.bucket,
      exclude: [`${HASHED_ASSETS_PREFIX}/*`],
      prune: true,
      cacheControl: [s3deploy.CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: ['/index.html'],
    });
    entry.node.addDependency(hashed);
    this.acknowledgeDeploymentHandler();
  }

  /** BucketDeployment's handler is a CDK-owned singleton at stack level whose role and runtime CDK sets. */
  private acknowledgeDeploymentHandler(): void {
    const handler = Stack.of(this).node.children.find((child) =>
      child.node.id.startsWith('Custom::CDKBucketDeployment'),
    );
    if (!handler) throw new Error('BucketDeployment created no handler: the acknowledgments below would be lost');
    const why =
      "CDK's BucketDeployment handler copies the console build from the CDK assets bucket into the console bucket and invalidates the distribution; CDK generates this role";
    acknowledge(
      handler,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      `${why}; the managed policy only writes its CloudWatch logs.`,
    );
    for (const action of ['s3:Abort*', 's3:DeleteObject*', 's3:GetBucket*', 's3:GetObject*', 's3:List*']) {
      acknowledge(
        handler,
        `AwsSolutions-IAM5[Action::${action}]`,
        `${why} with CDK's grantRead/grantReadWrite action groups, on those two buckets only.`,
      );
    }
    acknowledge(
      handler,
      `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/*]`,
      `${why}: it writes any file of the build, so every object of the console bucket.`,
    );
    acknowledge(
      handler,
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
      `${why}: the asset's object key is only known at deploy time, in the bootstrap assets bucket.`,
    );
    acknowledge(
      handler,
      'AwsSolutions-IAM5[Resource::*]',
      `${why}: cloudfront:CreateInvalidation and GetInvalidation, which CDK grants on * for the distribution it is given.`,
    );
    acknowledge(
      handler,
      'AwsSolutions-L1',
      `${why}; its Lambda runtime is pinned by the aws-cdk-lib version, not by this stack.`,
    );
  }
}

/** The response headers policy form of shared/service/http/console-headers.ts (CSP added per policy). */
function securityHeaderSettings(): {
  securityHeaders: cloudfront.ResponseSecurityHeadersBehavior;
  customHeaders: cloudfront.ResponseCustomHeader[];
} {
  const headers = CONSOLE_SECURITY_HEADERS;
  const securityHeaders: cloudfront.ResponseSecurityHeadersBehavior = {
    strictTransportSecurity: {
      accessControlMaxAge: Duration.seconds(HSTS_MAX_AGE_SECONDS),
      includeSubdomains: true,
      override: true,
    },
    contentTypeOptions: { override: true },
    frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
    referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.SAME_ORIGIN, override: true },
  };
  const customHeaders = (['Cross-Origin-Opener-Policy', 'Permissions-Policy'] as const).map((header) => ({
    header,
    value: headers[header],
    override: true,
  }));
  return { securityHeaders, customHeaders };
}
