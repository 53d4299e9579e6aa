/**
 * The role a tenant function assumes per team (shared/service/aws-clients.ts), with the team id as
 * session tag `teamId`: every statement is confined to `${aws:PrincipalTag/teamId}`'s partitions and
 * prefixes, except the global partitions and prefixes the function is listed for (lib/tenant-access.ts).
 * Only the function's own execution role may assume it, and only with that tag.
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { keys } from '../shared/service/data/keys';
import { TEAM_TAG_VARIABLE, type TenantAccess } from './tenant-access';
import type { Storage } from './storage';
import { acknowledge, logicalIdOf } from './stack-support';

/** Creates the tenant role of function `name` (construct id prefix `id`) and lets the function assume it. */
export function createTenantRole(
  scope: Stack,
  id: string,
  name: string,
  fn: lambda.Function,
  access: TenantAccess,
  storage: Storage,
): iam.Role {
  const executionRole = fn.role;
  if (!executionRole) throw new Error(`${name} has no execution role`);
  const role = new iam.Role(scope, `${id}TenantRole`, {
    description: `Vexdesk ${name}: data access of one team, assumed per request team with the session tag teamId`,
    assumedBy: new iam.SessionTagsPrincipal(executionRole).withConditions({
      // The tag must be present and the only one: without it every ${aws:PrincipalTag/teamId} condition fails closed anyway.
      Null: { 'aws:RequestTag/teamId': 'false' },
      'ForAllValues:StringEquals': { 'aws:TagKeys': ['teamId'] },
    }),
    maxSessionDuration: Duration.hours(1),
  });
  const { table, sbomBucket } = storage;
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
        resources: [table.tableArn],
        conditions: teamPartitions,
      }),
    );
  if (queryIndexes)
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${table.tableArn}/index/*`],
        conditions: teamPartitions,
      }),
    );
  if (access.teamFiles.objects.length > 0) {
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: [...access.teamFiles.objects],
        resources: [sbomBucket.arnForObjects(`${team.filesPrefix}*`)],
      }),
    );
  }
  if (access.teamFiles.list) {
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [sbomBucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${team.filesPrefix}*`] } },
      }),
    );
  }
  if (access.uploads.length > 0) {
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: [...access.uploads],
        resources: [sbomBucket.arnForObjects(`${team.uploadsPrefix}*`)],
      }),
    );
  }
  for (const grant of access.globalPartitions) {
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: [...grant.actions],
        resources: [table.tableArn],
        conditions: leading(grant.leadingKeys),
      }),
    );
  }
  for (const grant of access.globalObjects) {
    const bucket = storage[grant.bucket];
    role.addToPolicy(
      new iam.PolicyStatement({ actions: [...grant.actions], resources: [bucket.arnForObjects(`${grant.prefix}*`)] }),
    );
  }
  // Same account: the trust policy names the execution role; the identity policy says so too, explicitly.
  fn.addToRolePolicy(
    new iam.PolicyStatement({ actions: ['sts:AssumeRole', 'sts:TagSession'], resources: [role.roleArn] }),
  );
  fn.addEnvironment('TENANT_ROLE_ARN', role.roleArn);
  acknowledgeTenantWildcards(scope, role, access, storage);
  return role;
}

function acknowledgeTenantWildcards(scope: Stack, role: iam.Role, access: TenantAccess, storage: Storage): void {
  if (access.table.queryIndexes) {
    acknowledge(
      role,
      `AwsSolutions-IAM5[Resource::<${logicalIdOf(scope, storage.table)}.Arn>/index/*]`,
      "The audit export queries the table's own GSIs, only on the team's partitions (dynamodb:LeadingKeys).",
    );
  }
  const team = keys.teamScope(TEAM_TAG_VARIABLE);
  const objectPatterns: Array<[s3.Bucket, string]> = [
    ...(access.teamFiles.objects.length > 0
      ? [[storage.sbomBucket, `${team.filesPrefix}*`] as [s3.Bucket, string]]
      : []),
    ...(access.uploads.length > 0 ? [[storage.sbomBucket, `${team.uploadsPrefix}*`] as [s3.Bucket, string]] : []),
    ...access.globalObjects.map((grant): [s3.Bucket, string] => [storage[grant.bucket], `${grant.prefix}*`]),
  ];
  for (const [bucket, pattern] of objectPatterns) {
    acknowledge(
      role,
      // cdk-nag names a policy variable `<aws:PrincipalTag/teamId>`.
      `AwsSolutions-IAM5[Resource::<${logicalIdOf(scope, bucket)}.Arn>/${pattern.replace(/\$\{([^}]+)\}/g, '<$1>')}]`,
      "Object keys are generated per team and entity at run time; the grant covers one key prefix of one bucket (the team's own, through the teamId session tag, or a listed global one).",
    );
  }
}
