/**
 * The per-group access map (lib/permissions.ts) and its clamp by the route
 * table: a group none of whose routes mutates never receives a write grant.
 */
import { describe, expect, it } from '@jest/globals';
import { ENDPOINT_GROUPS } from '../../shared/http/routes';
import { functionCatalog } from '../../lib/function-catalog';
import { AUTHORIZER_ACCESS, GROUP_ACCESS, effectiveGroupAccess, groupMutates, readOnly, readOnlyGroups, type ResourceAccess } from '../../lib/permissions';

const WRITE_BUCKET_LEVELS = ['put', 'readPut', 'readDelete', 'readWrite'];

function writes(access: ResourceAccess): string[] {
  return [
    ...(access.table === 'readWrite' ? ['table'] : []),
    ...(WRITE_BUCKET_LEVELS.includes(access.sbomBucket) ? ['sbomBucket'] : []),
    ...(WRITE_BUCKET_LEVELS.includes(access.disclosureBucket) ? ['disclosureBucket'] : []),
    ...(access.scanQueue === 'send' ? ['scanQueue'] : []),
  ];
}

describe('endpoint group access', () => {
  it('treats the public disclosures, compliance, audit and OpenAPI groups as read-only, as their routes say', () => {
    expect(readOnlyGroups().sort()).toEqual(['audit', 'compliance', 'disclosures', 'openapi']);
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

  it('downgrades each write grant to its read-only counterpart', () => {
    const clamped = readOnly({ table: 'readWrite', sbomBucket: 'readWrite', disclosureBucket: 'put', signingSecret: true, scanQueue: 'send' });

    expect(clamped).toEqual({ table: 'read', sbomBucket: 'read', disclosureBucket: 'none', signingSecret: true, scanQueue: 'none' });
  });

  it('lets only the vex group write disclosure snapshots, and only by creating them', () => {
    const writers = functionCatalog().filter((spec) => spec.access.disclosureBucket !== 'none' && spec.access.disclosureBucket !== 'read');

    expect(writers.map((spec) => [spec.name, spec.access.disclosureBucket])).toEqual([['vex', 'put']]);
  });

  it('lets the authorizer read the table and nothing else', () => {
    expect(AUTHORIZER_ACCESS).toEqual({ table: 'read', sbomBucket: 'none', disclosureBucket: 'none', signingSecret: false, scanQueue: 'none' });
  });
});
