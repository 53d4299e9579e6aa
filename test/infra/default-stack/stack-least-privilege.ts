/**
 * Least privilege on the synthesized template (lib/function-grants.ts, lib/tenant-roles.ts): each
 * function's roles hold exactly the actions of its access entry (lib/permissions.ts), read-only groups
 * and the authorizer write nothing, and the secret and the publisher key reach only the functions that
 * sign, verify or rotate. The stack is synthesized once, without bundling the functions.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { functionCatalog, type FunctionSpec } from '../../../lib/function-catalog';
import { readOnlyGroups, type BucketAccess } from '../../../lib/permissions';
import type { VexdeskStack } from '../../../lib/vexdesk-stack';
import {
  actionsOfRole,
  assertOutput,
  assertResource,
  environmentOfFunction,
  executionRoleLogicalId,
  logicalIdOf,
  sharedStack,
} from '../support/synth';

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

let stack: VexdeskStack;
let template: Template;
let catalog: FunctionSpec[];

beforeAll(() => {
  ({ stack, template } = sharedStack());
  catalog = functionCatalog();
});

const roleId = (name: string): string => executionRoleLogicalId(stack, name);
const environmentOf = (name: string): Record<string, unknown> => environmentOfFunction(template, stack, name);

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
