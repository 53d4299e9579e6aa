/**
 * Tenant roles: a function acting for a team reaches team data only through credentials scoped to the
 * caller's team (lib/tenant-roles.ts). Every recorded call of team data is replayed for another team and
 * must be refused; look-alike keys and prefixes are refused too; each execution role may assume only its
 * own tenant role, which trusts only it, with the teamId tag.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import { readAwsCallManifest } from '../../support/aws-call-manifest';
import { allows } from '../support/iam-policy';
import {
  TEAM_DATA_SERVICES,
  describeCall,
  synthesizePolicies,
  type SynthesizedPolicies,
} from '../support/synthesized-policies';
import { logicalIdOf } from '../support/synth';

const manifest = readAwsCallManifest();

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
      'cra',
      'dispositions',
      'events',
      'notifications',
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
