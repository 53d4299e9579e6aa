/**
 * The per-group access map (lib/permissions.ts) and its clamp by the route
 * table: a group none of whose routes mutates never receives a write grant.
 */
import { describe, expect, it } from '@jest/globals';
import { ENDPOINT_GROUPS } from '../../shared/service/http/routes';
import { functionCatalog, type FunctionSpec } from '../../lib/function-catalog';
import {
  GROUP_ACCESS,
  effectiveGroupAccess,
  groupMutates,
  readOnly,
  readOnlyGroups,
  type ResourceAccess,
} from '../../lib/permissions';
import { AUTHORIZER_ACCESS } from '../../lib/worker-access';

const READ_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'];

function writes(access: ResourceAccess): string[] {
  return [
    ...access.table.actions.filter((action) => !READ_TABLE_ACTIONS.includes(action)),
    ...access.sbomBucket.objects.filter((action) => action !== 's3:GetObject'),
    ...access.disclosureBucket.objects.filter((action) => action !== 's3:GetObject'),
    ...(access.scanQueue === 'send' ? ['sqs:SendMessage'] : []),
  ];
}

describe('endpoint group access', () => {
  it('treats the public disclosures, compliance, audit and OpenAPI groups as read-only, as their routes say', () => {
    expect(readOnlyGroups().sort()).toEqual(['audit', 'compliance', 'disclosures', 'events', 'openapi']);
  });

  it('grants no writes to a group none of whose routes mutates', () => {
    for (const group of ENDPOINT_GROUPS.filter((candidate) => !groupMutates(candidate))) {
      expect({ group, writes: writes(effectiveGroupAccess(group)) }).toEqual({ group, writes: [] });
    }
  });

  it('keeps the declared access of groups that have mutating routes', () => {
    for (const group of ENDPOINT_GROUPS.filter(groupMutates)) {
      expect(effectiveGroupAccess(group)).toEqual(GROUP_ACCESS[group]);
    }
  });

  it('downgrades each write grant to nothing and keeps the reads', () => {
    const clamped = readOnly({
      table: {
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:BatchWriteItem'],
        queryIndexes: true,
        leadingKeys: ['X#*'],
      },
      sbomBucket: { objects: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], list: true },
      disclosureBucket: { objects: ['s3:PutObject'], list: false },
      signingSecret: true,
      scanQueue: 'send',
      publisherKey: ['kms:Encrypt', 'kms:Decrypt'],
    });

    expect(clamped).toEqual({
      table: { actions: ['dynamodb:GetItem', 'dynamodb:Query'], queryIndexes: true, leadingKeys: ['X#*'] },
      sbomBucket: { objects: ['s3:GetObject'], list: true },
      disclosureBucket: { objects: [], list: false },
      signingSecret: true,
      scanQueue: 'none',
      publisherKey: ['kms:Decrypt'],
    });
  });

  it('lets only the functions that seal secrets use the KMS key: vex seals and opens, settings only seals (rotation), notifications seal channel secrets and open them to deliver', () => {
    const users = functionCatalog()
      .filter((spec) => spec.access.publisherKey.length > 0)
      .map((spec) => [spec.name, [...spec.access.publisherKey]]);

    expect(users).toEqual([
      ['vex', ['kms:Encrypt', 'kms:Decrypt']],
      ['notifications', ['kms:Encrypt', 'kms:Decrypt']],
      ['settings', ['kms:Encrypt']],
      ['notify-worker', ['kms:Decrypt']],
    ]);
    // The public function verifies with the public keys only, and reads no team item but their partition.
    expect(effectiveGroupAccess('disclosures').publisherKey).toEqual([]);
    expect(effectiveGroupAccess('disclosures').table.leadingKeys).toContain('TEAM#*#PUBLISHER_KEYS');
    expect(
      effectiveGroupAccess('disclosures').table.leadingKeys?.filter((pattern) => pattern.startsWith('TEAM#')),
    ).toEqual(['TEAM#*#PUBLISHER_KEYS']);
  });

  it('lets only the vex group write disclosure snapshots, and only by creating them', () => {
    // Through the execution role, or the tenant role for functions that act for a team.
    const disclosureActions = (spec: FunctionSpec) => [
      ...spec.access.disclosureBucket.objects,
      ...(spec.tenant?.globalObjects
        .filter((grant) => grant.bucket === 'disclosureBucket')
        .flatMap((grant) => grant.actions) ?? []),
    ];
    const writers = functionCatalog().filter((spec) =>
      disclosureActions(spec).some((action) => action !== 's3:GetObject'),
    );

    expect(
      writers.map((spec) => [spec.name, disclosureActions(spec).filter((action) => action !== 's3:GetObject')]),
    ).toEqual([['vex', ['s3:PutObject']]]);
  });

  it('lets the authorizer get credential hash items, trust policies, sessions, login entries and session timeouts, and touch sessions; nothing else', () => {
    expect(AUTHORIZER_ACCESS).toEqual({
      table: {
        actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        queryIndexes: false,
        leadingKeys: [
          'APIKEY_HASH#*',
          'OIDC_TOKEN#*',
          'TEAM#*#TRUST_POLICIES',
          'SESSION#*',
          'MEMBER_LOGIN#*',
          'TEAM#*#SESSION_TIMEOUTS',
        ],
      },
      sbomBucket: { objects: [], list: false },
      disclosureBucket: { objects: [], list: false },
      signingSecret: false,
      scanQueue: 'none',
      publisherKey: [],
    });
  });
});
