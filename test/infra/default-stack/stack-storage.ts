/**
 * The stack's storage (lib/storage.ts) on the synthesized template: the table, the SBOM and disclosure
 * buckets, the signing secret, and the outputs that name them. One behaviour per test (STYLE 13:
 * properties, not counts); the stack is synthesized once, without bundling the functions.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { tableDefinition } from '../../../shared/service/data/table-definition';
import type { VexdeskStack } from '../../../lib/vexdesk-stack';
import {
  assertOutput,
  assertResource,
  assertResourceProperties,
  logicalIdOf,
  resourcesOf,
  sharedStack,
} from '../support/synth';

let stack: VexdeskStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = sharedStack());
});

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

describe('outputs', () => {
  it('exports the API URL, table, bucket names and signing secret id', () => {
    assertOutput(template, 'ApiUrl', { Value: Match.objectLike({ 'Fn::Join': Match.anyValue() }) });
    assertOutput(template, 'TableName', { Value: { Ref: logicalIdOf(stack, stack.table) } });
    assertOutput(template, 'SbomBucketName', { Value: { Ref: logicalIdOf(stack, stack.sbomBucket) } });
    assertOutput(template, 'DisclosureBucketName', { Value: { Ref: logicalIdOf(stack, stack.disclosureBucket) } });
    assertOutput(template, 'SigningSecretId', { Value: { Ref: logicalIdOf(stack, stack.signingSecret) } });
  });
});
