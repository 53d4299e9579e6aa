/**
 * Permissions that match the code (issue 8, defects 1 and 9): every AWS call
 * a function's code made during the integration tests (the committed manifest
 * test/infra/observed-aws-calls.json, rewritten by
 * `UPDATE_AWS_CALLS=1 npm run test:integration`) must be allowed by that
 * function's synthesized policy, and every grant must be used by some call or
 * be a documented exception (UNOBSERVED_GRANTS in lib/unobserved-grants.ts).
 * A tenant function's DynamoDB and S3 calls are checked against its tenant
 * role, with the session tag `teamId` standing for the team the recorded ids
 * belong to, and that role is shown to refuse another team's keys.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import type { AwsCallRecord } from '../../shared/service/aws-call-log';
import { functionCatalog } from '../../lib/function-catalog';
import { TEAM_TAG_VARIABLE } from '../../lib/tenant-access';
import { UNOBSERVED_GRANTS, type UnobservedGrant } from '../../lib/unobserved-grants';
import type { VexdeskStack } from '../../lib/vexdesk-stack';
import { REGENERATE_AWS_CALLS, normaliseRecords, readAwsCallManifest } from '../support/aws-call-manifest';
import {
  allows,
  conditionsHold,
  resolvedStatementsOfRole,
  wildcardMatches,
  withTeamTag,
  type PlaceholderResource,
  type ResolvedStatement,
} from './support/iam-policy';
import { logicalIdOf, synthStack } from './support/synth';

const manifest = readAwsCallManifest();
const catalogNames = functionCatalog().map((spec) => spec.name);

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

interface SynthesizedPolicies {
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

const TEAM_DATA_SERVICES = /^(dynamodb|s3):/;

function synthesizePolicies(settings: { tracing?: boolean }): SynthesizedPolicies {
  const { stack, template } = synthStack({ props: { settings } });
  const placeholders = placeholdersOf(stack);
  const statementsOf = (name: string) => {
    const role = stack.requireFunction(name).role;
    if (!role) throw new Error(`${name} has no role`);
    return resolvedStatementsOfRole(template, logicalIdOf(stack, role), placeholders);
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

const callsOf = (name: string): AwsCallRecord[] => manifest.filter((call) => call.function === name);
const describeCall = (call: AwsCallRecord) =>
  `${call.function}: ${call.action} on ${call.resource}${call.leadingKey !== undefined ? ` (leading key ${call.leadingKey})` : ''} [${call.command}]`;

function exceptionFor(name: string, action: string, resource: string): UnobservedGrant | undefined {
  return UNOBSERVED_GRANTS.find(
    (grant) =>
      (grant.functions.includes(name) || grant.functions.includes('*')) &&
      grant.actions.includes(action) &&
      grant.resource === resource,
  );
}

/** Each granted (action, resource) pair no recorded call of the function needed. */
function unusedGrants(name: string, statements: ResolvedStatement[]): Array<{ action: string; resource: string }> {
  const calls = callsOf(name);
  return statements.flatMap((statement) =>
    statement.actions.flatMap((action) =>
      statement.resources
        .filter(
          (resource) =>
            !calls.some(
              (call) =>
                wildcardMatches(action, call.action, { ignoreCase: true }) &&
                wildcardMatches(resource, call.resource) &&
                conditionsHold(statement, call),
            ),
        )
        .map((resource) => ({ action, resource })),
    ),
  );
}

describe('the observed-call manifest', () => {
  it('is sorted, free of duplicates and covers the functions that touch data', () => {
    expect(manifest).toEqual(normaliseRecords(manifest));
    const recorded = new Set(manifest.map((call) => call.function));
    const expected = functionCatalog()
      .filter((spec) => spec.name !== 'openapi')
      .map((spec) => spec.name);
    expect(expected.filter((name) => !recorded.has(name))).toEqual([]);
  });

  it(`names only functions of the catalog (else regenerate it: ${REGENERATE_AWS_CALLS})`, () => {
    expect([...new Set(manifest.map((call) => call.function))].filter((name) => !catalogNames.includes(name))).toEqual(
      [],
    );
  });

  it('lists only resources of the stack, with key layouts from shared/service/data/keys.ts', () => {
    const foreign = manifest.filter(
      (call) =>
        !/^arn:aws:(dynamodb:\{region\}:\{account\}:table\/\{table\}|s3:::\{(sbomBucket|disclosureBucket)\}|sqs:\{region\}:\{account\}:\{scanQueue\}$|secretsmanager:)/.test(
          call.resource,
        ) || call.resource.includes('{unknown-layout}'),
    );
    expect(foreign.map(describeCall)).toEqual([]);
  });
});

describe.each([
  ['default settings', {}],
  ['X-Ray tracing on', { tracing: true }],
])("each function's IAM policy, %s", (_label, settings) => {
  let policies: SynthesizedPolicies;

  beforeAll(() => {
    policies = synthesizePolicies(settings);
  });

  it("allows every AWS call the function's code made in the integration tests", () => {
    const denied = manifest.filter(
      (call) => catalogNames.includes(call.function) && !allows(policies.statementsFor(call), call),
    );
    expect(denied.map(describeCall)).toEqual([]);
  });

  it('grants nothing the code never used, beyond the documented exceptions', () => {
    const unexplained = catalogNames.flatMap((name) =>
      unusedGrants(name, policies.allStatementsOf(name))
        .filter(({ action, resource }) => !exceptionFor(name, action, resource))
        .map(({ action, resource }) => `${name}: ${action} on ${resource}`),
    );
    expect(unexplained).toEqual([]);
  });
});

describe('the documented exceptions (UNOBSERVED_GRANTS)', () => {
  let defaults: SynthesizedPolicies;
  let traced: SynthesizedPolicies;

  beforeAll(() => {
    defaults = synthesizePolicies({});
    traced = synthesizePolicies({ tracing: true });
  });

  it('each give a reason', () => {
    expect(UNOBSERVED_GRANTS.filter((grant) => grant.reason.trim().length < 40)).toEqual([]);
  });

  it("each still excuse a grant that exists and that no recorded call uses (for every function named, or some function for '*')", () => {
    const excused = (name: string, action: string, resource: string) =>
      [defaults, traced].some((policies) =>
        unusedGrants(name, policies.allStatementsOf(name)).some(
          (grant) => grant.action === action && grant.resource === resource,
        ),
      );
    const stale = UNOBSERVED_GRANTS.flatMap((grant) =>
      grant.actions.flatMap((action) => {
        if (grant.functions.includes('*'))
          return catalogNames.some((name) => excused(name, action, grant.resource))
            ? []
            : [`*: ${action} on ${grant.resource}`];
        return grant.functions
          .filter((name) => !excused(name, action, grant.resource))
          .map((name) => `${name}: ${action} on ${grant.resource}`);
      }),
    );
    expect(stale).toEqual([]);
  });
});

describe('partitions the public disclosures function and the authorizer may touch (dynamodb:LeadingKeys)', () => {
  let policies: SynthesizedPolicies;
  const table = 'arn:aws:dynamodb:{region}:{account}:table/{table}';

  beforeAll(() => {
    policies = synthesizePolicies({});
  });

  it('lets the authorizer get only credential hash items, trust policies and session timeouts', () => {
    const statements = policies.statementsOf('authorizer');
    for (const leadingKey of [
      'APIKEY_HASH#',
      'OIDC_TOKEN#',
      'TEAM#{id}#TRUST_POLICIES',
      'SESSION#',
      'MEMBER_LOGIN#',
      'TEAM#{id}#SESSION_TIMEOUTS',
    ]) {
      expect({
        leadingKey,
        allowed: allows(statements, { action: 'dynamodb:GetItem', resource: table, leadingKey }),
      }).toEqual({ leadingKey, allowed: true });
    }
    for (const leadingKey of ['TEAM#{id}#PRODUCT#p', 'TEAM#{id}#AUDIT#1', 'OIDC_JTI#']) {
      expect({
        leadingKey,
        allowed: allows(statements, { action: 'dynamodb:GetItem', resource: table, leadingKey }),
      }).toEqual({ leadingKey, allowed: false });
    }
    for (const leadingKey of ['TEAM#', 'DISCLOSURE#', 'CORPUS#']) {
      expect({
        leadingKey,
        allowed: allows(statements, { action: 'dynamodb:GetItem', resource: table, leadingKey }),
      }).toEqual({ leadingKey, allowed: false });
    }
    expect(allows(statements, { action: 'dynamodb:Query', resource: table, leadingKey: 'APIKEY_HASH#' })).toBe(false);
    expect(allows(statements, { action: 'dynamodb:Scan', resource: table })).toBe(false);
  });

  it("lets the public disclosures function read only the disclosure partitions and the teams' public publisher keys", () => {
    const statements = policies.statementsOf('disclosures');
    for (const leadingKey of [
      'DISCLOSURE#',
      'DISCLOSED_DOC#',
      'DISCLOSURE_INDEX#',
      'DISCLOSURE_COUNTER',
      'TEAM#{id}#PUBLISHER_KEYS',
    ]) {
      expect({
        leadingKey,
        allowed: allows(statements, { action: 'dynamodb:Query', resource: table, leadingKey }),
      }).toEqual({ leadingKey, allowed: true });
    }
    // `TEAM#{id}` holds the sealed private keys: never readable here.
    for (const leadingKey of [
      'TEAM#',
      'TEAM#{id}',
      'TEAM#{id}#PRODUCT#p',
      'TEAM#{id}#PUBLISHER_KEYS#X',
      'APIKEY_HASH#',
      'CORPUS#',
      'DISCLOSURE_COUNTERFEIT',
    ]) {
      for (const action of ['dynamodb:GetItem', 'dynamodb:Query']) {
        expect({ leadingKey, action, allowed: allows(statements, { action, resource: table, leadingKey }) }).toEqual({
          leadingKey,
          action,
          allowed: false,
        });
      }
    }
    expect(allows(statements, { action: 'dynamodb:Scan', resource: table })).toBe(false);
    expect(allows(statements, { action: 'dynamodb:PutItem', resource: table, leadingKey: 'DISCLOSURE#' })).toBe(false);
    expect(
      allows(statements, { action: 'dynamodb:PutItem', resource: table, leadingKey: 'TEAM#{id}#PUBLISHER_KEYS' }),
    ).toBe(false);
    expect(
      allows(statements, { action: 'kms:Decrypt', resource: 'arn:aws:kms:{region}:{account}:key/{publisherKey}' }),
    ).toBe(false);
  });

  it('lets the signing functions use the publisher KMS key, with the actions they need', () => {
    const key = 'arn:aws:kms:{region}:{account}:key/{publisherKey}';
    const allowed = (name: string, action: string) => allows(policies.statementsOf(name), { action, resource: key });
    expect([
      allowed('vex', 'kms:Encrypt'),
      allowed('vex', 'kms:Decrypt'),
      allowed('settings', 'kms:Encrypt'),
      allowed('settings', 'kms:Decrypt'),
    ]).toEqual([true, true, true, false]);
    for (const name of ['products', 'sboms', 'compliance', 'audit', 'authorizer'])
      expect({ name, allowed: allowed(name, 'kms:Decrypt') }).toEqual({ name, allowed: false });
  });

  it('refuses a request without any leading key (ForAllValues alone would allow it)', () => {
    for (const name of ['authorizer', 'disclosures']) {
      expect({
        name,
        allowed: allows(policies.statementsOf(name), { action: 'dynamodb:GetItem', resource: table }),
      }).toEqual({ name, allowed: false });
    }
  });
});

describe("tenant roles: team data only through credentials scoped to the caller's team", () => {
  let policies: SynthesizedPolicies;
  const table = 'arn:aws:dynamodb:{region}:{account}:table/{table}';
  const sbomObjects = 'arn:aws:s3:::{sbomBucket}';
  const tenantFunctions = () => [...policies.stack.tenantRoles.keys()];

  beforeAll(() => {
    policies = synthesizePolicies({});
  });

  it('gives every function whose routes all act for a team its own tenant role, and the public ones none', () => {
    // auth: its one route is public but acts for the team its body names (route flag teamFromBody, docs/oidc.md).
    expect(tenantFunctions().sort()).toEqual([
      'audit',
      'auth',
      'compliance',
      'dispositions',
      'products',
      'releases',
      'sboms',
      'scans',
      'settings',
      'vex',
    ]);
  });

  it('leaves the execution roles of tenant functions no table or bucket access: every team read or write goes through the tenant role', () => {
    const direct = tenantFunctions().flatMap((name) =>
      policies
        .statementsOf(name)
        .flatMap((statement) =>
          statement.actions.filter((action) => TEAM_DATA_SERVICES.test(action)).map((action) => `${name}: ${action}`),
        ),
    );
    expect(direct).toEqual([]);
  });

  it('refuses, in a session of team A, every key and object of team B that the same call on team A may reach', () => {
    const A = 'team-a';
    const B = 'team-b';
    const leaks = tenantFunctions().flatMap((name) => {
      const statements = policies.tenantStatementsOf(name, A);
      const ownCalls = manifest.filter(
        (call) =>
          call.function === name &&
          TEAM_DATA_SERVICES.test(call.action) &&
          (call.leadingKey === 'TEAM#' ||
            call.resource.includes('/teams/') ||
            call.resource.includes('/uploads/') ||
            call.prefix !== undefined),
      );
      return ownCalls.flatMap((call) => {
        const asTeam = (team: string) => ({
          ...call,
          // Full keys (no trailing `#`), as IAM sees them: the team partition and a product collection.
          leadingKey: call.leadingKey === undefined ? undefined : `TEAM#${team}#PRODUCT#p`,
          resource: call.resource.replace(/\/(teams|uploads)\/\{id\}\//, `/$1/${team}/`),
          prefix: call.prefix?.replace(/^teams\/\{id\}\//, `teams/${team}/`),
        });
        const own = allows(statements, asTeam(A));
        const other = allows(statements, asTeam(B));
        return own && !other
          ? []
          : [
              `${describeCall(call)}: own team ${own ? 'allowed' : 'DENIED'}, other team ${other ? 'ALLOWED' : 'denied'}`,
            ];
      });
    });
    expect(leaks).toEqual([]);
  });

  it("refuses keys that only look like the team's (a longer id, the bare prefix), other partitions and listing every team", () => {
    const statements = policies.tenantStatementsOf('products', 'team-a');
    for (const leadingKey of ['TEAM#team-a', 'TEAM#team-a#PRODUCT#p', 'TEAM#team-a#AUDIT']) {
      expect({
        leadingKey,
        allowed: allows(statements, { action: 'dynamodb:Query', resource: table, leadingKey }),
      }).toEqual({ leadingKey, allowed: true });
    }
    for (const leadingKey of [
      'TEAM#team-ab',
      'TEAM#team-b',
      'TEAM#',
      'APIKEY_HASH#x',
      'CORPUS#PKG#npm',
      'DISCLOSURE#x',
    ]) {
      expect({
        leadingKey,
        allowed: allows(statements, { action: 'dynamodb:Query', resource: table, leadingKey }),
      }).toEqual({ leadingKey, allowed: false });
    }
    expect(allows(statements, { action: 'dynamodb:Query', resource: table })).toBe(false);
    expect(allows(statements, { action: 'dynamodb:Scan', resource: table, leadingKey: 'TEAM#team-a' })).toBe(false);
    expect(
      allows(statements, { action: 's3:ListBucket', resource: sbomObjects, prefix: 'teams/team-a/products/p/' }),
    ).toBe(true);
    for (const prefix of ['teams/', 'teams/team-b/', 'teams/team-ab/']) {
      expect({
        prefix,
        allowed: allows(statements, { action: 's3:ListBucket', resource: sbomObjects, prefix }),
      }).toEqual({ prefix, allowed: false });
    }
    expect(allows(statements, { action: 's3:ListBucket', resource: sbomObjects })).toBe(false);
    expect(
      allows(statements, { action: 's3:DeleteObject', resource: `${sbomObjects}/teams/team-ab/products/p/x` }),
    ).toBe(false);
  });

  it('lets the execution role assume only its own tenant role, and the tenant role trust only that execution role with the teamId tag', () => {
    const { stack, template } = policies;
    for (const [name, role] of stack.tenantRoles) {
      const tenantRoleId = logicalIdOf(stack, role);
      const executionRole = stack.requireFunction(name).role;
      if (!executionRole) throw new Error(`${name} has no role`);
      const assumable = resourcesOfAction(template, logicalIdOf(stack, executionRole), 'sts:AssumeRole');
      expect({ name, assumable }).toEqual({ name, assumable: [tenantRoleId] });
      const trust = (
        template.toJSON() as {
          Resources: Record<string, { Properties: { AssumeRolePolicyDocument: { Statement: unknown[] } } }>;
        }
      ).Resources[tenantRoleId]?.Properties.AssumeRolePolicyDocument.Statement;
      expect({ name, trust }).toEqual({
        name,
        trust: [
          {
            Action: ['sts:AssumeRole', 'sts:TagSession'],
            Effect: 'Allow',
            Principal: { AWS: { 'Fn::GetAtt': [logicalIdOf(stack, executionRole), 'Arn'] } },
            Condition: {
              Null: { 'aws:RequestTag/teamId': 'false' },
              'ForAllValues:StringEquals': { 'aws:TagKeys': ['teamId'] },
            },
          },
        ],
      });
    }
  });
});

/** The logical ids of the resources a role's statements grant `action` on (GetAtt targets). */
function resourcesOfAction(template: Template, roleLogicalId: string, action: string): string[] {
  const resources = (
    template.toJSON() as {
      Resources: Record<
        string,
        {
          Type: string;
          Properties: {
            Roles?: Array<{ Ref?: string }>;
            PolicyDocument?: { Statement: Array<{ Action: string | string[]; Resource: unknown }> };
          };
        }
      >;
    }
  ).Resources;
  return Object.values(resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::IAM::Policy' && resource.Properties.Roles?.some((role) => role.Ref === roleLogicalId),
    )
    .flatMap((resource) => resource.Properties.PolicyDocument?.Statement ?? [])
    .filter((statement) => [statement.Action].flat().includes(action))
    .flatMap((statement) =>
      [statement.Resource]
        .flat()
        .map((target) => (target as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0] ?? JSON.stringify(target)),
    );
}
