/**
 * The partitions the public disclosures function and the authorizer may touch: their policies'
 * `dynamodb:LeadingKeys` conditions, evaluated on sample keys (test/infra/support/iam-policy.ts), and
 * the publisher KMS key only for the functions that sign or rotate.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { allows } from '../support/iam-policy';
import { synthesizePolicies, type SynthesizedPolicies } from '../support/synthesized-policies';

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
