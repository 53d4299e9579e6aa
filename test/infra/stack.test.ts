/**
 * CDK assertions on the synthesized template, one behaviour per test
 * (STYLE 13: properties, not counts). The stack is synthesized once, with real
 * esbuild bundling, so a function that no longer bundles fails here too.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { App } from 'aws-cdk-lib';
import { tableDefinition } from '../../shared/service/data/table-definition';
import {
  gatewayResponseHeaders,
  gatewayResponseTemplate,
  gatewayResponses,
  type GatewayResponseType,
} from '../../shared/service/http/gateway-responses';
import { routes, type RouteDefinition } from '../../shared/service/http/routes';
import { functionCatalog, type FunctionSpec } from '../../lib/function-catalog';
import { readOnlyGroups, usesTable, type BucketAccess } from '../../lib/permissions';
import { API_STAGE_NAME } from '../../lib/rest-api';
import type { VexdeskStack } from '../../lib/vexdesk-stack';
import {
  actionsOfRole,
  apiMethods,
  assertOutput,
  assertResource,
  assertResourceProperties,
  logicalIdOf,
  resourcesOf,
  synthStack,
  type ApiMethod,
} from './support/synth';

const allRoutes = routes as readonly RouteDefinition[];
const routeKey = (method: string, path: string): string => `${method} ${path}`;

/** The public CSAF provider routes (docs/csaf-provider.md), in the disclosures group. */
const CSAF_PROVIDER_PATHS = [
  '/.well-known/csaf/provider-metadata.json',
  '/api/disclosures/csaf/{directory}/provider-metadata.json',
  '/api/disclosures/csaf/{directory}/service.json',
  '/api/disclosures/csaf/{directory}/openpgp/{file}',
  '/api/disclosures/csaf/{directory}/white',
  '/api/disclosures/csaf/{directory}/white/index.txt',
  '/api/disclosures/csaf/{directory}/white/changes.csv',
  '/api/disclosures/csaf/{directory}/white/feed-tlp-white.json',
  '/api/disclosures/csaf/{directory}/white/category-white.json',
  '/api/disclosures/csaf/{directory}/white/{year}',
  '/api/disclosures/csaf/{directory}/white/{year}/{file}',
];

const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:BatchWriteItem',
];
const S3_WRITE_ACTIONS = [
  's3:PutObject',
  's3:DeleteObject',
  's3:DeleteObjectVersion',
  's3:PutObjectRetention',
  's3:PutObjectLegalHold',
];

/** The S3 actions a bucket entry of the access map stands for. */
function expectedBucketActions(access: BucketAccess): string[] {
  return [...access.objects, ...(access.list ? ['s3:ListBucket'] : [])].sort();
}

let app: App;
let stack: VexdeskStack;
let template: Template;
let catalog: FunctionSpec[];
let methods: ApiMethod[];

beforeAll(() => {
  ({ app, stack, template } = synthStack({ bundle: true }));
  catalog = functionCatalog();
  methods = apiMethods(template);
});

function functionId(name: string): string {
  return logicalIdOf(stack, stack.requireFunction(name));
}

function roleId(name: string): string {
  const role = stack.requireFunction(name).role;
  if (!role) throw new Error(`${name} has no role`);
  return logicalIdOf(stack, role);
}

/** The role that does the function's table and bucket work: its tenant role when it acts for a team, else its execution role. */
function dataRoleId(name: string): string {
  const tenantRole = stack.tenantRoles.get(name);
  return tenantRole ? logicalIdOf(stack, tenantRole) : roleId(name);
}

/** The table and bucket actions the access map gives a function's data role. */
function expectedDataActions(spec: FunctionSpec): {
  table: string[];
  sbomBucket: string[];
  disclosureBucket: string[];
} {
  const sorted = (actions: string[]) => [...new Set(actions)].sort();
  const { tenant } = spec;
  if (!tenant) {
    return {
      table: sorted([...spec.access.table.actions, ...(spec.access.table.queryIndexes ? ['dynamodb:Query'] : [])]),
      sbomBucket: expectedBucketActions(spec.access.sbomBucket),
      disclosureBucket: expectedBucketActions(spec.access.disclosureBucket),
    };
  }
  const globalObjects = (bucket: 'sbomBucket' | 'disclosureBucket') =>
    tenant.globalObjects.filter((grant) => grant.bucket === bucket).flatMap((grant) => grant.actions);
  return {
    table: sorted([
      ...tenant.table.actions,
      ...(tenant.table.queryIndexes ? ['dynamodb:Query'] : []),
      ...tenant.globalPartitions.flatMap((grant) => grant.actions),
    ]),
    sbomBucket: sorted([...expectedBucketActions(tenant.teamFiles), ...tenant.uploads, ...globalObjects('sbomBucket')]),
    disclosureBucket: sorted(globalObjects('disclosureBucket')),
  };
}

function functionProperties(name: string): Record<string, unknown> {
  const properties = resourcesOf(template)[functionId(name)]?.Properties;
  if (!properties) throw new Error(`No template resource for function ${name}`);
  return properties;
}

/** The directory CDK staged a function's bundle in. */
function bundleDirOf(name: string): string {
  const assetPath = (resourcesOf(template)[functionId(name)]?.Metadata as { 'aws:asset:path': string })[
    'aws:asset:path'
  ];
  return join(app.outdir, assetPath);
}

/** Every input file of a bundle, entry and chunks, from their source maps (paths relative to each map, so `../..`-prefixed). */
function sourcesOf(name: string): string[] {
  const dir = bundleDirOf(name);
  const maps = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.mjs.map'));
  return maps.flatMap((map) => (JSON.parse(readFileSync(join(dir, map), 'utf8')) as { sources: string[] }).sources);
}

/** The npm packages a bundle contains. */
function bundledPackages(name: string): string[] {
  const packages = sourcesOf(name)
    .map((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(packages)].sort();
}

function environmentOf(name: string): Record<string, unknown> {
  return (functionProperties(name).Environment as { Variables: Record<string, unknown> }).Variables;
}

describe('data stores', () => {
  it('creates the single table from the shared definition: keys, three GSIs with ALL projection and TTL', () => {
    assertResourceProperties(template, 'AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Match.arrayEquals(
        tableDefinition.globalIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      ),
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    });
  });

  it('bills the table on demand, with point-in-time recovery and encryption at rest', () => {
    assertResourceProperties(template, 'AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('retains the table when the stack is deleted and protects it from deletion', () => {
    assertResource(template, 'AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });

  it('versions and encrypts the SBOM bucket, blocks public access and logs access to the logs bucket', () => {
    assertResourceProperties(template, 'AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: {
        DestinationBucketName: { Ref: logicalIdOf(stack, stack.node.findChild('AccessLogsBucket')) },
        LogFilePrefix: 'sboms/',
      },
    });
  });

  it('expires deleted SBOM versions and abandoned pre-signed uploads', () => {
    assertResourceProperties(template, 'AWS::S3::Bucket', {
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'sboms/' }),
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({
            Id: 'expire-deleted-sboms',
            NoncurrentVersionExpiration: { NoncurrentDays: 90 },
            Status: 'Enabled',
          }),
          Match.objectLike({
            Id: 'expire-abandoned-uploads',
            Prefix: 'uploads/',
            ExpirationInDays: 2,
            Status: 'Enabled',
          }),
        ]),
      },
    });
  });

  it('locks disclosure snapshots in COMPLIANCE mode for the default 3650 days', () => {
    assertResourceProperties(template, 'AWS::S3::Bucket', {
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 3650 } },
      },
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: Match.objectLike({}),
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'disclosures/' }),
    });
  });

  it('retains both data buckets when the stack is deleted', () => {
    for (const bucket of [stack.sbomBucket, stack.disclosureBucket]) {
      expect(resourcesOf(template)[logicalIdOf(stack, bucket)]).toMatchObject({
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    }
  });

  it('denies every request that does not use TLS, on every bucket', () => {
    const bucketIds = Object.keys(template.findResources('AWS::S3::Bucket'));
    for (const bucketId of bucketIds) {
      assertResourceProperties(template, 'AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucketId },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it('generates the signing key as a JSON secret { keyId, key } and retains it', () => {
    assertResource(template, 'AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        GenerateSecretString: Match.objectLike({
          SecretStringTemplate: Match.serializedJson({ keyId: Match.stringLikeRegexp('.+') }),
          GenerateStringKey: 'key',
          PasswordLength: 64,
        }),
      }),
    });
  });
});

describe('functions', () => {
  it('deploys one arm64 Node.js 24 function per endpoint group plus the authorizer', () => {
    for (const spec of catalog) {
      expect(functionProperties(spec.name)).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: spec.memoryMb,
        Timeout: spec.timeoutSeconds,
      });
    }
    expect(catalog.map((spec) => spec.name)).toEqual(
      expect.arrayContaining(['authorizer', ...new Set(allRoutes.map((route) => route.group))]),
    );
  });

  it('gives the SBOM-parsing groups more memory and the 29 s the API allows', () => {
    for (const name of ['sboms', 'scans']) {
      expect(functionProperties(name)).toMatchObject({ MemorySize: 2048, Timeout: 29 });
    }
    expect(functionProperties('products')).toMatchObject({ MemorySize: 512, Timeout: 10 });
  });

  it('gives the dispositions group the 29 s the API allows, so a 500-item batch finishes within its request', () => {
    expect(functionProperties('dispositions')).toMatchObject({ MemorySize: 1024, Timeout: 29 });
  });

  it('passes the configuration variables to every function, without --enable-source-maps (the bundles map stacks on demand)', () => {
    for (const spec of catalog) {
      expect(environmentOf(spec.name)).toMatchObject({
        TABLE_NAME: { Ref: logicalIdOf(stack, stack.table) },
        SBOM_BUCKET: { Ref: logicalIdOf(stack, stack.sbomBucket) },
        DISCLOSURE_BUCKET: { Ref: logicalIdOf(stack, stack.disclosureBucket) },
        LOG_LEVEL: 'INFO',
      });
      // Node would parse every chunk's source map at cold start (shared/service/source-mapped-stacks.ts).
      expect(environmentOf(spec.name)).not.toHaveProperty('NODE_OPTIONS');
    }
  });

  it('passes the signing secret id only to the functions that sign or verify (vex, disclosures)', () => {
    const withSecret = catalog
      .filter((spec) => 'DISCLOSURE_SIGNING_SECRET_ID' in environmentOf(spec.name))
      .map((spec) => spec.name);
    expect(withSecret.sort()).toEqual(['disclosures', 'vex']);
    expect(environmentOf('vex').DISCLOSURE_SIGNING_SECRET_ID).toEqual({ Ref: logicalIdOf(stack, stack.signingSecret) });
  });

  it("writes each function's logs to its own log group kept for 30 days", () => {
    const logGroupIds = catalog.map((spec) => {
      const loggingConfig = functionProperties(spec.name).LoggingConfig as { LogGroup: { Ref: string } };
      expect(resourcesOf(template)[loggingConfig.LogGroup.Ref]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        Properties: { RetentionInDays: 30 },
      });
      return loggingConfig.LogGroup.Ref;
    });
    expect(new Set(logGroupIds).size).toBe(catalog.length);
  });

  it('bundles each function as minified ESM with a source map and the AWS SDK inside', () => {
    for (const spec of catalog) {
      const bundleDir = bundleDirOf(spec.name);
      const bundle = readFileSync(join(bundleDir, 'index.mjs'), 'utf8');

      expect(existsSync(join(bundleDir, 'index.mjs.map'))).toBe(true);
      expect(bundle).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      expect(bundle.startsWith('import { createRequire')).toBe(true);
      // esbuild marks each module with a `// path/file.ts` comment unless it minifies.
      expect(bundle).not.toMatch(/^\/\/ (shared|functions|node_modules)\//m);
      expect(bundle).not.toMatch(/from\s*["']@aws-sdk\//);
      // The SDK is bundled (not taken from the runtime): every function with table access carries its DynamoDB client.
      const expectedSdk = usesTable(spec.access) || spec.tenant ? ['@aws-sdk/client-dynamodb'] : [];
      expect(bundledPackages(spec.name)).toEqual(expect.arrayContaining(expectedSdk));
    }
  });

  it("leaves zod-to-openapi, zod's non-English locales and the non-Lambda credential providers out of the bundles", () => {
    for (const spec of catalog) {
      const sources = sourcesOf(spec.name);
      const unexpected = sources.filter(
        (source) =>
          (spec.name !== 'openapi' && source.includes('node_modules/@asteasolutions/zod-to-openapi/')) ||
          /node_modules\/zod\/v4\/locales\/(?!en\.js|index\.js)/.test(source) ||
          /node_modules\/@aws-sdk\/(credential-provider-(ini|sso|process|web-identity|login)|nested-clients)\//.test(
            source,
          ),
      );

      expect({ name: spec.name, unexpected }).toEqual({ name: spec.name, unexpected: [] });
    }
    expect(bundledPackages('openapi')).toContain('@asteasolutions/zod-to-openapi');
  });
});

describe('least privilege', () => {
  it("grants groups without mutating routes, and the authorizer, no table or bucket writes (the authorizer only updates a session's last-seen time)", () => {
    for (const name of [...readOnlyGroups(), 'authorizer']) {
      const actions = [...actionsOfRole(template, roleId(name)), ...actionsOfRole(template, dataRoleId(name))];
      const writes = [
        ...new Set(actions.filter((action) => [...TABLE_WRITE_ACTIONS, ...S3_WRITE_ACTIONS].includes(action))),
      ];
      expect({ name, writes }).toEqual({ name, writes: name === 'authorizer' ? ['dynamodb:UpdateItem'] : [] });
    }
  });

  it('lets the authorizer only get items from the table, and update sessions', () => {
    expect(actionsOfRole(template, roleId('authorizer'))).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
  });

  it("grants on the table exactly the actions of the function's access entry, never Scan", () => {
    for (const spec of catalog) {
      const actions = actionsOfRole(template, dataRoleId(spec.name), logicalIdOf(stack, stack.table));
      expect({ name: spec.name, actions }).toEqual({ name: spec.name, actions: expectedDataActions(spec).table });
      expect(actions).not.toContain('dynamodb:Scan');
    }
  });

  it("leaves team-acting functions' execution roles nothing on the table or the buckets (their tenant role does it)", () => {
    for (const spec of catalog.filter((candidate) => candidate.tenant)) {
      const direct = [stack.table, stack.sbomBucket, stack.disclosureBucket].flatMap((resource) =>
        actionsOfRole(template, roleId(spec.name), logicalIdOf(stack, resource)),
      );
      expect({ name: spec.name, direct }).toEqual({ name: spec.name, direct: [] });
    }
  });

  it("grants on each bucket exactly the object actions of the function's access level", () => {
    for (const spec of catalog) {
      const expected = expectedDataActions(spec);
      for (const [bucket, level] of [
        [stack.sbomBucket, expected.sbomBucket],
        [stack.disclosureBucket, expected.disclosureBucket],
      ] as const) {
        const actions = actionsOfRole(template, dataRoleId(spec.name), logicalIdOf(stack, bucket));
        expect({ name: spec.name, bucket: bucket.node.id, actions }).toEqual({
          name: spec.name,
          bucket: bucket.node.id,
          actions: level,
        });
      }
    }
  });

  it('lets vex create disclosure snapshots and read them back, never delete them, and sign with the secret', () => {
    expect(actionsOfRole(template, dataRoleId('vex'), logicalIdOf(stack, stack.disclosureBucket))).toEqual([
      's3:GetObject',
      's3:PutObject',
    ]);
    expect(actionsOfRole(template, roleId('vex'), logicalIdOf(stack, stack.signingSecret))).toContain(
      'secretsmanager:GetSecretValue',
    );
  });

  it('lets the public disclosures function read snapshots and the secret, and write nothing', () => {
    expect(actionsOfRole(template, roleId('disclosures'), logicalIdOf(stack, stack.disclosureBucket))).toEqual([
      's3:GetObject',
    ]);
    expect(actionsOfRole(template, roleId('disclosures'), logicalIdOf(stack, stack.signingSecret))).toContain(
      'secretsmanager:GetSecretValue',
    );
    expect(actionsOfRole(template, roleId('disclosures'), logicalIdOf(stack, stack.sbomBucket))).toEqual([]);
  });

  it('keeps a KMS key (rotating, retained) for the publisher private keys, used only by the functions that sign or rotate', () => {
    assertResource(template, 'AWS::KMS::Key', {
      Properties: Match.objectLike({ EnableKeyRotation: true }),
      DeletionPolicy: 'Retain',
    });
    const key = logicalIdOf(stack, stack.publisherKey);
    expect(actionsOfRole(template, roleId('vex'), key)).toEqual(['kms:Decrypt', 'kms:Encrypt']);
    expect(actionsOfRole(template, roleId('settings'), key)).toEqual(['kms:Encrypt']);
    expect(actionsOfRole(template, roleId('disclosures'), key)).toEqual([]);
    expect(environmentOf('vex').PUBLISHER_KEY_KMS_KEY_ID).toEqual({ 'Fn::GetAtt': [key, 'Arn'] });
    expect(environmentOf('disclosures').PUBLISHER_KEY_KMS_KEY_ID).toBeUndefined();
    assertOutput(template, 'PublisherKeyKmsKeyArn', { Value: { 'Fn::GetAtt': [key, 'Arn'] } });
  });

  it('gives the secret only to the functions that sign or verify', () => {
    const readers = catalog
      .filter((spec) => actionsOfRole(template, roleId(spec.name)).includes('secretsmanager:GetSecretValue'))
      .map((spec) => spec.name);
    expect(readers.sort()).toEqual(['disclosures', 'vex']);
  });

  it('gives the OpenAPI function no data permissions at all', () => {
    expect(actionsOfRole(template, roleId('openapi'))).toEqual([]);
  });
});

describe('REST API', () => {
  // OPTIONS (CORS preflight) and ANY (the 405 answer) are the gateway's own methods, not routes.
  const nonPreflight = (): ApiMethod[] =>
    methods.filter((method) => method.httpMethod !== 'OPTIONS' && method.httpMethod !== 'ANY');

  it("has exactly one method per route of the route table, on the route's path", () => {
    expect(
      nonPreflight()
        .map((method) => routeKey(method.httpMethod, method.path))
        .sort(),
    ).toEqual(allRoutes.map((route) => routeKey(route.method, route.path)).sort());
  });

  it("sends each route to its endpoint group's function through a proxy integration", () => {
    for (const route of allRoutes) {
      const method = nonPreflight().find(
        (candidate) => candidate.httpMethod === route.method && candidate.path === route.path,
      );
      expect(method?.properties).toMatchObject({
        OperationName: route.operationId,
        Integration: {
          Type: 'AWS_PROXY',
          IntegrationHttpMethod: 'POST',
          Uri: { 'Fn::Join': ['', expect.arrayContaining([{ 'Fn::GetAtt': [functionId(route.group), 'Arn'] }])] },
        },
      });
    }
  });

  it('hands raw-body routes (SBOM upload, VEX import) their bytes unconverted: proxy integration, no ContentHandling', () => {
    for (const route of allRoutes.filter((candidate) => candidate.request?.rawBody)) {
      const method = nonPreflight().find(
        (candidate) => candidate.httpMethod === route.method && candidate.path === route.path,
      );
      expect(method?.properties.Integration).toMatchObject({ Type: 'AWS_PROXY' });
      expect(method?.properties.Integration).not.toHaveProperty('ContentHandling');
    }
    expect(allRoutes.filter((candidate) => candidate.request?.rawBody).map((route) => route.operationId)).toEqual(
      expect.arrayContaining(['uploadSbom', 'importVex']),
    );
  });

  it('protects every non-public route with the Lambda authorizer', () => {
    const authorizerRef = { Ref: logicalIdOf(stack, stack.authorizer) };
    for (const route of allRoutes.filter((candidate) => candidate.scope !== null)) {
      const method = nonPreflight().find(
        (candidate) => candidate.httpMethod === route.method && candidate.path === route.path,
      );
      expect({
        route: routeKey(route.method, route.path),
        auth: method?.properties.AuthorizationType,
        authorizer: method?.properties.AuthorizerId,
      }).toEqual({
        route: routeKey(route.method, route.path),
        auth: 'CUSTOM',
        authorizer: authorizerRef,
      });
    }
  });

  it('leaves exactly the disclosure routes and their files, the CSAF provider, the OIDC token exchange, browser sign-in and the OpenAPI document public', () => {
    const publicMethods = nonPreflight()
      .filter((method) => method.properties.AuthorizationType === 'NONE')
      .map((method) => routeKey(method.httpMethod, method.path));
    const csafProvider = CSAF_PROVIDER_PATHS.map((path) => `GET ${path}`);
    expect(publicMethods.sort()).toEqual(
      [
        'GET /api/disclosures',
        'GET /api/disclosures/{slug}',
        'GET /api/disclosures/{slug}/verify',
        'GET /api/openapi.json',
        'POST /api/auth/oidc/token',
        // The files beside a snapshot and the publishers' public keys (docs/disclosure-verification.md).
        'GET /api/disclosures/{slug}/signature',
        'GET /api/disclosures/{slug}/sha256',
        'GET /api/disclosures/{slug}/sha512',
        'GET /api/disclosures/{slug}/attestation',
        'GET /api/disclosures/publishers/{teamId}/keys',
        'GET /api/auth/login',
        'GET /api/auth/callback',
        'POST /api/auth/logout',
        ...csafProvider,
      ].sort(),
    );
  });

  it('checks every private request with a REQUEST authorizer without identity source (Bearer header or session cookie) and without result caching', () => {
    assertResourceProperties(template, 'AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: '',
      AuthorizerResultTtlInSeconds: 0,
      AuthorizerUri: Match.objectLike({
        'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [functionId('authorizer'), 'Arn'] }])],
      }),
    });
  });

  it('treats every media type as binary so gzip and raw SBOM request bodies reach the Lambda intact', () => {
    assertResourceProperties(template, 'AWS::ApiGateway::RestApi', {
      BinaryMediaTypes: ['*/*'],
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  it('throttles the stage, with tighter limits on the anonymous disclosure routes', () => {
    const publicSettings = allRoutes
      .filter((route) => route.scope === null && route.group === 'disclosures')
      .map((route) =>
        Match.objectLike({
          HttpMethod: 'GET',
          ResourcePath: route.path.replace(/\//g, '~1').replace(/^~1/, '/~1'),
          ThrottlingRateLimit: 20,
          ThrottlingBurstLimit: 40,
        }),
      );
    assertResourceProperties(template, 'AWS::ApiGateway::Stage', {
      StageName: API_STAGE_NAME,
      MethodSettings: Match.arrayWith([
        Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
        ...publicSettings,
      ]),
    });
  });

  it('logs access as JSON lines and execution errors without request or response bodies', () => {
    const stages = template.findResources('AWS::ApiGateway::Stage');
    const stageProperties = Object.values(stages)[0]?.Properties as {
      AccessLogSetting: { Format: string; DestinationArn: unknown };
      MethodSettings: Array<Record<string, unknown>>;
    };
    const format = JSON.parse(stageProperties.AccessLogSetting.Format) as Record<string, string>;

    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      resourcePath: '$context.resourcePath',
    });
    expect(stageProperties.MethodSettings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          MetricsEnabled: true,
        }),
      ]),
    );
  });

  it("answers API Gateway's own errors in the service's JSON error shape", () => {
    for (const type of Object.keys(gatewayResponses) as GatewayResponseType[]) {
      assertResourceProperties(template, 'AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: String(gatewayResponses[type].statusCode),
        ResponseParameters: Object.fromEntries(
          Object.entries(gatewayResponseHeaders(type)).map(([name, value]) => [
            `gatewayresponse.header.${name}`,
            `'${value}'`,
          ]),
        ),
        ResponseTemplates: { 'application/json': gatewayResponseTemplate(type) },
      });
    }
  });

  it('sends X-Content-Type-Options: nosniff and a JSON content type on every gateway response (401, 403, 404, 400, 413, 429, 5xx)', () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse')).map(
      (resource) => resource.Properties as { ResponseType: string; ResponseParameters?: Record<string, string> },
    );

    expect(responses.map((response) => response.ResponseType).sort()).toEqual(
      expect.arrayContaining([
        'ACCESS_DENIED',
        'DEFAULT_4XX',
        'DEFAULT_5XX',
        'MISSING_AUTHENTICATION_TOKEN',
        'UNAUTHORIZED',
      ]),
    );
    for (const response of responses) {
      expect({ type: response.ResponseType, headers: response.ResponseParameters }).toEqual({
        type: response.ResponseType,
        headers: expect.objectContaining({
          'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
          'gatewayresponse.header.Content-Type': "'application/json'",
        }),
      });
    }
  });

  it("answers an unknown method on every route path with a MOCK 405 whose Allow lists the route table's methods", () => {
    const anyMethods = methods.filter((method) => method.httpMethod === 'ANY');
    const paths = [...new Set(allRoutes.map((route) => route.path))];
    expect(anyMethods.map((method) => method.path).sort()).toEqual([...paths].sort());
    for (const method of anyMethods) {
      const allow = [...new Set(allRoutes.filter((route) => route.path === method.path).map((route) => route.method))]
        .sort()
        .join(', ');
      expect(method.properties).toMatchObject({
        AuthorizationType: 'NONE',
        Integration: {
          Type: 'MOCK',
          ContentHandling: 'CONVERT_TO_TEXT',
          IntegrationResponses: [
            expect.objectContaining({
              StatusCode: '405',
              ResponseParameters: expect.objectContaining({ 'method.response.header.Allow': `'${allow}'` }),
              ResponseTemplates: { 'application/json': expect.stringContaining('"code":"method_not_allowed"') },
            }),
          ],
        },
      });
    }
  });

  it('answers CORS preflight only on the public disclosure routes, as text despite the binary media type', () => {
    const preflights = methods.filter((method) => method.httpMethod === 'OPTIONS');
    expect(preflights.map((method) => method.path).sort()).toEqual(
      [
        '/api/disclosures',
        '/api/disclosures/publishers/{teamId}/keys',
        '/api/disclosures/{slug}',
        '/api/disclosures/{slug}/attestation',
        '/api/disclosures/{slug}/sha256',
        '/api/disclosures/{slug}/sha512',
        '/api/disclosures/{slug}/signature',
        '/api/disclosures/{slug}/verify',
        ...CSAF_PROVIDER_PATHS,
      ].sort(),
    );
    for (const preflight of preflights) {
      expect(preflight.properties).toMatchObject({
        AuthorizationType: 'NONE',
        Integration: {
          Type: 'MOCK',
          ContentHandling: 'CONVERT_TO_TEXT',
          IntegrationResponses: [
            expect.objectContaining({
              StatusCode: '204',
              ContentHandling: 'CONVERT_TO_TEXT',
              ResponseParameters: expect.objectContaining({
                'method.response.header.Access-Control-Allow-Origin': "'*'",
              }),
            }),
          ],
        },
      });
    }
  });
});

describe('outputs', () => {
  it('exports the API URL, table, bucket names and signing secret id', () => {
    assertOutput(template, 'ApiUrl', { Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) });
    assertOutput(template, 'TableName', { Value: { Ref: logicalIdOf(stack, stack.table) } });
    assertOutput(template, 'SbomBucketName', { Value: { Ref: logicalIdOf(stack, stack.sbomBucket) } });
    assertOutput(template, 'DisclosureBucketName', { Value: { Ref: logicalIdOf(stack, stack.disclosureBucket) } });
    assertOutput(template, 'SigningSecretId', { Value: { Ref: logicalIdOf(stack, stack.signingSecret) } });
  });
});
