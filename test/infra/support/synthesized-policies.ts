/**
 * The stack's IAM policies with their resources replaced by the placeholders of the observed-call
 * manifest (test/infra/observed-aws-calls.json), so the permission tests can evaluate recorded calls
 * against them. A tenant function's DynamoDB and S3 calls are checked against its tenant role, with the
 * session tag `teamId` standing for the team the recorded ids belong to.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { AwsCallRecord } from '../../../shared/service/aws-call-log';
import { TEAM_TAG_VARIABLE } from '../../../lib/tenant-access';
import type { VexdeskSettings } from '../../../lib/settings';
import type { VexdeskStack } from '../../../lib/vexdesk-stack';
import { resolvedStatementsOfRole, withTeamTag, type PlaceholderResource, type ResolvedStatement } from './iam-policy';
import { logicalIdOf, sharedStack } from './synth';

function placeholdersOf(stack: VexdeskStack): Map<string, PlaceholderResource> {
  const secret = 'arn:aws:secretsmanager:{region}:{account}:secret:{signingSecret}';
  const entries: Array<[string, PlaceholderResource]> = [
    [logicalIdOf(stack, stack.table), { ref: '{table}', arn: 'arn:aws:dynamodb:{region}:{account}:table/{table}' }],
    [logicalIdOf(stack, stack.sbomBucket), { ref: '{sbomBucket}', arn: 'arn:aws:s3:::{sbomBucket}' }],
    [logicalIdOf(stack, stack.disclosureBucket), { ref: '{disclosureBucket}', arn: 'arn:aws:s3:::{disclosureBucket}' }],
    [logicalIdOf(stack, stack.signingSecret), { ref: secret, arn: secret }],
    [
      logicalIdOf(stack, stack.publisherKey),
      { ref: '{publisherKey}', arn: 'arn:aws:kms:{region}:{account}:key/{publisherKey}' },
    ],
  ];
  if (stack.scanQueue)
    entries.push([
      logicalIdOf(stack, stack.scanQueue),
      { ref: '{scanQueueUrl}', arn: 'arn:aws:sqs:{region}:{account}:{scanQueue}' },
    ]);
  for (const role of stack.tenantRoles.values())
    entries.push([logicalIdOf(stack, role), { ref: '{tenantRole}', arn: 'arn:aws:iam::{account}:role/{tenantRole}' }]);
  return new Map(entries);
}

export interface SynthesizedPolicies {
  template: Template;
  stack: VexdeskStack;
  /** The execution role's statements. */
  statementsOf(name: string): ResolvedStatement[];
  /** The tenant role's statements for a session of `team` (default `{id}`, the manifest's id placeholder), or none. */
  tenantStatementsOf(name: string, team?: string): ResolvedStatement[];
  /** The statements a recorded call is checked against: the tenant role's for DynamoDB and S3 calls of a tenant function. */
  statementsFor(call: AwsCallRecord): ResolvedStatement[];
  /** Every statement the function acts under (both roles). */
  allStatementsOf(name: string): ResolvedStatement[];
}

/** An SES identity for the stack variant that sends e-mail through SES; its statements read it as a placeholder. */
export const PLACEHOLDER_NOTIFY_EMAIL = {
  identityArn: 'arn:aws:ses:eu-west-1:123456789012:identity/notify.example',
  from: 'alerts@notify.example',
};
const SES_IDENTITY_PLACEHOLDER = 'arn:aws:ses:{region}:{account}:identity/{sesIdentity}';

/** A literal from context (the SES identity) turned into the manifest's placeholder form. */
function withContextPlaceholders(statements: ResolvedStatement[]): ResolvedStatement[] {
  return statements.map((statement) => ({
    ...statement,
    resources: statement.resources.map((resource) =>
      resource === PLACEHOLDER_NOTIFY_EMAIL.identityArn ? SES_IDENTITY_PLACEHOLDER : resource,
    ),
  }));
}

/** The services whose calls a tenant function makes with its tenant role. */
export const TEAM_DATA_SERVICES = /^(dynamodb|s3):/;

export function synthesizePolicies(settings: Partial<VexdeskSettings>): SynthesizedPolicies {
  const { stack, template } = sharedStack(settings);
  const placeholders = placeholdersOf(stack);
  const statementsOf = (name: string) => {
    const role = stack.requireFunction(name).role;
    if (!role) throw new Error(`${name} has no role`);
    return withContextPlaceholders(resolvedStatementsOfRole(template, logicalIdOf(stack, role), placeholders));
  };
  const tenantStatementsOf = (name: string, team = '{id}') => {
    const role = stack.tenantRoles.get(name);
    return role
      ? withTeamTag(resolvedStatementsOfRole(template, logicalIdOf(stack, role), placeholders), TEAM_TAG_VARIABLE, team)
      : [];
  };
  return {
    template,
    stack,
    statementsOf,
    tenantStatementsOf,
    statementsFor: (call) =>
      stack.tenantRoles.has(call.function) && TEAM_DATA_SERVICES.test(call.action)
        ? tenantStatementsOf(call.function)
        : statementsOf(call.function),
    allStatementsOf: (name) => [...statementsOf(name), ...tenantStatementsOf(name)],
  };
}

/** A recorded call, as the permission tests report it. */
export const describeCall = (call: AwsCallRecord): string =>
  `${call.function}: ${call.action} on ${call.resource}${call.leadingKey !== undefined ? ` (leading key ${call.leadingKey})` : ''} [${call.command}]`;
