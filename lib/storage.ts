/**
 * The service's state on AWS: the one DynamoDB table, the SBOM and disclosure buckets (and the bucket
 * their access logs go to), the disclosure signing secret and the KMS key sealing the publisher keys.
 * Everything here is retained when the stack is deleted: it holds every team's data or keys.
 *
 * A plain class, not a Construct: its resources are children of the stack, so their logical IDs stay
 * those of the deployed resources (lib/stack-support.ts).
 */
import { Duration, RemovalPolicy, type Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { tableDefinition } from '../shared/service/data/table-definition';
import type { VexdeskSettings } from './settings';
import { acknowledge } from './stack-support';

export class Storage {
  readonly table: dynamodb.Table;
  /** Receives the S3 access logs of the other buckets and CloudFront's standard logs. */
  readonly accessLogsBucket: s3.Bucket;
  readonly sbomBucket: s3.Bucket;
  readonly disclosureBucket: s3.Bucket;
  readonly signingSecret: secretsmanager.Secret;
  /** Seals the teams' publisher private keys (shared/service/disclosures/key-vault.ts). */
  readonly publisherKey: kms.Key;

  constructor(scope: Stack, settings: VexdeskSettings) {
    this.table = createTable(scope);
    this.accessLogsBucket = createAccessLogsBucket(scope);
    this.sbomBucket = createSbomBucket(scope, this.accessLogsBucket);
    this.disclosureBucket = createDisclosureBucket(scope, this.accessLogsBucket, settings.disclosureRetentionDays);
    this.signingSecret = createSigningSecret(scope);
    this.publisherKey = createPublisherKey(scope);
  }
}

function createTable(scope: Stack): dynamodb.Table {
  const string = dynamodb.AttributeType.STRING;
  const table = new dynamodb.Table(scope, 'Table', {
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

function createAccessLogsBucket(scope: Stack): s3.Bucket {
  return new s3.Bucket(scope, 'AccessLogsBucket', {
    // S3 server access logging can only deliver to SSE-S3 buckets.
    encryption: s3.BucketEncryption.S3_MANAGED,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    removalPolicy: RemovalPolicy.RETAIN,
    lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
  });
}

function createSbomBucket(scope: Stack, accessLogs: s3.Bucket): s3.Bucket {
  return new s3.Bucket(scope, 'SbomBucket', {
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

function createDisclosureBucket(scope: Stack, accessLogs: s3.Bucket, retentionDays: number): s3.Bucket {
  return new s3.Bucket(scope, 'DisclosureBucket', {
    // Snapshots are written once. COMPLIANCE mode means no
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

function createSigningSecret(scope: Stack): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, 'DisclosureSigningSecret', {
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
    'The signing key is rotated by an operator writing a new version with a new keyId; each signature records its keyId, so a blind scheduled rotation would only turn verifiable disclosures into signature_valid: null.',
  );
  return secret;
}

/**
 * Publisher private keys are sealed with KMS Encrypt under this key, bound to team and fingerprint
 * by the encryption context. Yearly rotation of the key material is KMS's own
 * and transparent to Decrypt; losing the key loses every team's signing key, hence RETAIN.
 */
function createPublisherKey(scope: Stack): kms.Key {
  return new kms.Key(scope, 'PublisherKeySealKey', {
    description: "Vexdesk: seals the teams' OpenPGP/Ed25519 publisher private keys",
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}
