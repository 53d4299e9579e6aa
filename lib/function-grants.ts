/**
 * A function's execution role, from its access entry (lib/permissions.ts): explicit statements, no CDK
 * grant helpers, since grantReadData and friends add actions the code never uses (Scan, DescribeTable,
 * GetRecords, DescribeSecret, GetQueueAttributes, ...). The wildcards cdk-nag reports on them are
 * acknowledged here, each scoped to one of our own resources.
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { BucketAccess, ResourceAccess } from './permissions';
import type { Storage } from './storage';
import { acknowledge, logicalIdOf } from './stack-support';

export function grantAccess(
  fn: lambda.Function,
  access: ResourceAccess,
  storage: Storage,
  scanQueue: sqs.Queue | undefined,
): void {
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
      new iam.PolicyStatement({ actions: [...actions], resources: [storage.table.tableArn], conditions }),
    );
  if (queryIndexes)
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${storage.table.tableArn}/index/*`],
        conditions,
      }),
    );
  grantBucket(fn, storage.sbomBucket, access.sbomBucket);
  grantBucket(fn, storage.disclosureBucket, access.disclosureBucket);
  if (access.signingSecret)
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [storage.signingSecret.secretArn],
      }),
    );
  if (access.publisherKey.length > 0)
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: [...access.publisherKey], resources: [storage.publisherKey.keyArn] }),
    );
  // 'consume' is granted by the SQS event source itself (lib/background-jobs.ts).
  if (access.scanQueue === 'send' && scanQueue)
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [scanQueue.queueArn] }));
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

/**
 * The wildcards cdk-nag (IAM5) reports on our grants are all scoped to one
 * of our own resources: the table's indexes and the objects of one bucket.
 */
export function acknowledgeScopedWildcards(
  fn: lambda.Function,
  access: ResourceAccess,
  storage: Storage,
  tracing: boolean,
): void {
  const stack = Stack.of(fn);
  if (access.table.queryIndexes) {
    acknowledge(
      fn,
      `AwsSolutions-IAM5[Resource::<${logicalIdOf(stack, storage.table)}.Arn>/index/*]`,
      "The audit export queries the table's own GSIs (access patterns in shared/service/data); the wildcard covers only this table's indexes.",
    );
  }
  const buckets: Array<[s3.Bucket, BucketAccess]> = [
    [storage.sbomBucket, access.sbomBucket],
    [storage.disclosureBucket, access.disclosureBucket],
  ];
  for (const [bucket, granted] of buckets) {
    if (granted.objects.length === 0) continue;
    acknowledge(
      fn,
      `AwsSolutions-IAM5[Resource::<${logicalIdOf(stack, bucket)}.Arn>/*]`,
      'Object keys are generated per team and entity at run time; the grant covers only the objects of this one bucket, with object-level actions listed one by one.',
    );
  }
  if (tracing) {
    acknowledge(
      fn,
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray PutTraceSegments/PutTelemetryRecords do not support resource-level permissions.',
    );
  }
}
