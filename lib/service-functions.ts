/**
 * One Lambda function per catalog entry (lib/function-catalog.ts): its log group, code, sizing and
 * environment, the execution role's grants (lib/function-grants.ts) and, for a function acting for a
 * caller's team, its tenant role (lib/tenant-roles.ts). Construct ids come from the catalog names
 * (`scan-worker` → `ScanWorkerFunction`), added to the stack scope so logical IDs stay those of the
 * deployed functions (lib/stack-support.ts).
 */
import { Duration, Size, type Stack } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { LAMBDA_HANDLER } from './bundling';
import type { FunctionSpec } from './function-catalog';
import { acknowledgeScopedWildcards, grantAccess } from './function-grants';
import type { ResourceAccess } from './permissions';
import type { VexdeskSettings } from './settings';
import type { Storage } from './storage';
import { acknowledge, pascalCase } from './stack-support';
import { createTenantRole } from './tenant-roles';

export interface ServiceFunctionsProps {
  catalog: readonly FunctionSpec[];
  /** A function's deployment package from its entry (lib/function-code.ts `functionCode`). */
  code: (entry: string) => lambda.Code;
  settings: VexdeskSettings;
  storage: Storage;
  /** Undefined when the catalog has no scan worker. */
  scanQueue: sqs.Queue | undefined;
}

export class ServiceFunctions {
  /** Every function of the catalog, by catalog name (`products`, `authorizer`, `scan-worker`, …). */
  readonly byName = new Map<string, lambda.Function>();
  /** The tenant role of each function that acts for a caller's team (docs/architecture/request-path.md "Tenant-scoped credentials"). */
  readonly tenantRoles = new Map<string, iam.Role>();

  constructor(
    private readonly scope: Stack,
    private readonly props: ServiceFunctionsProps,
  ) {
    for (const spec of props.catalog) this.byName.set(spec.name, this.createFunction(spec));
  }

  /** The function of a catalog entry; throws for a name that is not in the catalog. */
  require(name: string): lambda.Function {
    const fn = this.byName.get(name);
    if (!fn) throw new Error(`No function named ${name} in the catalog`);
    return fn;
  }

  /** Sets one environment variable on every function (values known only once later parts exist). */
  addEnvironment(name: string, value: string): void {
    for (const fn of this.byName.values()) fn.addEnvironment(name, value);
  }

  private createFunction(spec: FunctionSpec): lambda.Function {
    const { settings, storage, scanQueue } = this.props;
    const id = pascalCase(spec.name);
    const logGroup = new logs.LogGroup(this.scope, `${id}Logs`, { retention: settings.logRetention });
    // Bundled by lib/bundling.ts (esbuild with plugins), hence lambda.Function rather than NodejsFunction.
    const fn = new lambda.Function(this.scope, `${id}Function`, {
      code: this.props.code(spec.entry),
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
        ...this.environmentFor(spec.access),
        ...(spec.role.kind === 'corpus-refresh' ? corpusFeedEnvironment(settings) : {}),
      },
    });
    grantAccess(fn, spec.access, storage, scanQueue);
    acknowledge(
      fn,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'AWSLambdaBasicExecutionRole only allows writing CloudWatch Logs; each function writes to its own retention-bounded log group.',
    );
    acknowledgeScopedWildcards(fn, spec.access, storage, settings.tracing);
    if (spec.tenant)
      this.tenantRoles.set(spec.name, createTenantRole(this.scope, id, spec.name, fn, spec.tenant, storage));
    return fn;
  }

  /** Every function gets the variables shared/service/config.ts requires; secrets and queues only where granted. */
  private environmentFor(access: ResourceAccess): Record<string, string> {
    const { settings, storage, scanQueue } = this.props;
    return {
      TABLE_NAME: storage.table.tableName,
      SBOM_BUCKET: storage.sbomBucket.bucketName,
      DISCLOSURE_BUCKET: storage.disclosureBucket.bucketName,
      LOG_LEVEL: settings.logLevel,
      ...(access.signingSecret ? { DISCLOSURE_SIGNING_SECRET_ID: storage.signingSecret.secretArn } : {}),
      ...(access.publisherKey.length > 0 ? { PUBLISHER_KEY_KMS_KEY_ID: storage.publisherKey.keyArn } : {}),
      ...(access.scanQueue === 'send' && scanQueue ? { SCAN_QUEUE_URL: scanQueue.queueUrl } : {}),
    };
  }
}

/** The refresh's feeds (functions/corpus-refresh/handler.ts requires all four; empty = that source off). */
function corpusFeedEnvironment(settings: VexdeskSettings): Record<string, string> {
  const feeds = settings.corpusFeeds;
  return {
    CORPUS_OSV_BASE_URL: feeds.osvBaseUrl,
    CORPUS_OSV_ECOSYSTEMS: feeds.osvEcosystems.join(','),
    CORPUS_KEV_URL: feeds.kevUrl,
    CORPUS_EPSS_URL: feeds.epssUrl,
  };
}
