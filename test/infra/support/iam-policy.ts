/**
 * A function's synthesized IAM policy, resolved and evaluated the way IAM
 * would for the calls in the observed-call manifest: CloudFormation intrinsics
 * become the manifest's placeholder ARNs, actions and resources match with
 * IAM wildcards, `dynamodb:LeadingKeys` conditions are evaluated against the
 * partition-key prefix each call recorded and `s3:prefix` against the listed
 * prefix. A tenant role's `${aws:PrincipalTag/teamId}` is substituted by the
 * caller (`withTeamTag`).
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { AwsCallRecord } from '../../../shared/service/aws-call-log';
import { resourcesOf } from './synth';

export interface ResolvedStatement {
  effect: string;
  actions: string[];
  resources: string[];
  conditions: Record<string, Record<string, string | string[]>>;
}

/** What each of our logical ids resolves to, as `Ref` and as `Fn::GetAtt Arn`. */
export interface PlaceholderResource {
  ref: string;
  arn: string;
}

const PSEUDO_PARAMETERS: Record<string, string> = {
  'AWS::Partition': 'aws',
  'AWS::Region': '{region}',
  'AWS::AccountId': '{account}',
  'AWS::URLSuffix': 'amazonaws.com',
};

function resolve(value: unknown, placeholders: Map<string, PlaceholderResource>): string {
  if (typeof value === 'string') return value;
  const intrinsic = value as { Ref?: string; 'Fn::GetAtt'?: [string, string]; 'Fn::Join'?: [string, unknown[]] };
  if (intrinsic.Ref !== undefined) {
    const resolved = PSEUDO_PARAMETERS[intrinsic.Ref] ?? placeholders.get(intrinsic.Ref)?.ref;
    if (resolved === undefined) throw new Error(`No placeholder for Ref ${intrinsic.Ref}`);
    return resolved;
  }
  if (intrinsic['Fn::GetAtt']) {
    const [logicalId, attribute] = intrinsic['Fn::GetAtt'];
    const resolved = attribute === 'Arn' ? placeholders.get(logicalId)?.arn : undefined;
    if (resolved === undefined) throw new Error(`No placeholder for Fn::GetAtt ${logicalId}.${attribute}`);
    return resolved;
  }
  if (intrinsic['Fn::Join']) {
    const [separator, parts] = intrinsic['Fn::Join'];
    return parts.map((part) => resolve(part, placeholders)).join(separator);
  }
  throw new Error(`Cannot resolve ${JSON.stringify(value)}`);
}

/** Every statement of the inline policies attached to a role, with resources resolved. */
export function resolvedStatementsOfRole(
  template: Template,
  roleLogicalId: string,
  placeholders: Map<string, PlaceholderResource>,
): ResolvedStatement[] {
  const statements: ResolvedStatement[] = [];
  for (const resource of Object.values(resourcesOf(template))) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    const properties = resource.Properties as {
      Roles: Array<{ Ref?: string }>;
      PolicyDocument: {
        Statement: Array<{
          Effect: string;
          Action: string | string[];
          Resource: unknown;
          Condition?: ResolvedStatement['conditions'];
        }>;
      };
    };
    if (!properties.Roles.some((role) => role.Ref === roleLogicalId)) continue;
    for (const statement of properties.PolicyDocument.Statement) {
      statements.push({
        effect: statement.Effect,
        actions: [statement.Action].flat(),
        resources: [statement.Resource].flat().map((value) => resolve(value, placeholders)),
        conditions: statement.Condition ?? {},
      });
    }
  }
  return statements;
}

/** IAM's wildcard match: `*` any run of characters, `?` one character. */
export function wildcardMatches(pattern: string, value: string, options: { ignoreCase?: boolean } = {}): boolean {
  const source = pattern
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, options.ignoreCase ? 'i' : '').test(value);
}

/** A concrete partition key with the recorded prefix (`TEAM#` → `TEAM#{id}`; a key without `#` was recorded whole). */
function sampleLeadingKey(prefix: string): string {
  return prefix.endsWith('#') ? `${prefix}{id}` : prefix;
}

type EvaluatedCall = Pick<AwsCallRecord, 'leadingKey' | 'prefix'>;

/** The request context a recorded call presents to IAM's condition evaluation. */
function contextOf(call: EvaluatedCall): Record<string, string[]> {
  return {
    ...(call.leadingKey !== undefined ? { 'dynamodb:LeadingKeys': [sampleLeadingKey(call.leadingKey)] } : {}),
    ...(call.prefix !== undefined ? { 's3:prefix': [call.prefix] } : {}),
  };
}

function conditionHolds(
  operator: string,
  key: string,
  expected: string | string[],
  context: Record<string, string[]>,
): boolean {
  const patterns = [expected].flat();
  const values = context[key];
  switch (operator) {
    case 'ForAllValues:StringLike':
      return (values ?? []).every((value) => patterns.some((pattern) => wildcardMatches(pattern, value)));
    case 'ForAllValues:StringEquals':
      return (values ?? []).every((value) => patterns.includes(value));
    case 'StringLike':
      return (
        values !== undefined && values.some((value) => patterns.some((pattern) => wildcardMatches(pattern, value)))
      );
    case 'StringEquals':
      return values !== undefined && values.some((value) => patterns.includes(value));
    case 'Null':
      return patterns.every((pattern) => (pattern === 'true') === (values === undefined));
    default:
      throw new Error(
        `Condition operator ${operator} is not evaluated by this test; teach test/infra/support/iam-policy.ts`,
      );
  }
}

export function conditionsHold(statement: ResolvedStatement, call: EvaluatedCall): boolean {
  const context = contextOf(call);
  return Object.entries(statement.conditions).every(([operator, entries]) =>
    Object.entries(entries).every(([key, expected]) => conditionHolds(operator, key, expected, context)),
  );
}

/** Whether the statements allow the call (no Deny statements are expected; one would fail loudly). */
export function allows(
  statements: ResolvedStatement[],
  call: Pick<AwsCallRecord, 'action' | 'resource' | 'leadingKey' | 'prefix'>,
): boolean {
  if (statements.some((statement) => statement.effect !== 'Allow'))
    throw new Error('Deny statements are not evaluated by this test');
  return statements.some(
    (statement) =>
      statement.actions.some((action) => wildcardMatches(action, call.action, { ignoreCase: true })) &&
      statement.resources.some((resource) => wildcardMatches(resource, call.resource)) &&
      conditionsHold(statement, call),
  );
}

/** The statements as IAM sees them for a session tagged `teamId = team`: the policy variable filled in everywhere. */
export function withTeamTag(statements: ResolvedStatement[], variable: string, team: string): ResolvedStatement[] {
  const fill = (value: string) => value.split(variable).join(team);
  return statements.map((statement) => ({
    ...statement,
    resources: statement.resources.map(fill),
    conditions: Object.fromEntries(
      Object.entries(statement.conditions).map(([operator, entries]) => [
        operator,
        Object.fromEntries(
          Object.entries(entries).map(([key, expected]) => [
            key,
            Array.isArray(expected) ? expected.map(fill) : fill(expected),
          ]),
        ),
      ]),
    ),
  }));
}
