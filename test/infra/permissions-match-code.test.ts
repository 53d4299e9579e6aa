/**
 * Permissions that match the code (issue 8, defects 1 and 9): every AWS call
 * a function's code made during the integration tests (the committed manifest
 * test/infra/observed-aws-calls.json, rewritten by
 * `UPDATE_AWS_CALLS=1 npm run test:integration`) must be allowed by that
 * function's synthesized policy, and every grant must be used by some call or
 * be a documented exception (UNOBSERVED_GRANTS in lib/permissions.ts).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import type { AwsCallRecord } from '../../shared/aws-call-log';
import { functionCatalog } from '../../lib/function-catalog';
import { UNOBSERVED_GRANTS, type UnobservedGrant } from '../../lib/permissions';
import type { VexdeskStack } from '../../lib/vexdesk-stack';
import { REGENERATE_AWS_CALLS, normaliseRecords, readAwsCallManifest } from '../support/aws-call-manifest';
import { allows, conditionsHold, resolvedStatementsOfRole, wildcardMatches, type PlaceholderResource, type ResolvedStatement } from './support/iam-policy';
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
  ];
  if (stack.scanQueue) entries.push([logicalIdOf(stack, stack.scanQueue), { ref: '{scanQueueUrl}', arn: 'arn:aws:sqs:{region}:{account}:{scanQueue}' }]);
  return new Map(entries);
}

interface SynthesizedPolicies {
  template: Template;
  stack: VexdeskStack;
  statementsOf(name: string): ResolvedStatement[];
}

function synthesizePolicies(settings: { tracing?: boolean }): SynthesizedPolicies {
  const { stack, template } = synthStack({ props: { settings } });
  const placeholders = placeholdersOf(stack);
  return {
    template,
    stack,
    statementsOf: (name) => {
      const role = stack.requireFunction(name).role;
      if (!role) throw new Error(`${name} has no role`);
      return resolvedStatementsOfRole(template, logicalIdOf(stack, role), placeholders);
    },
  };
}

const callsOf = (name: string): AwsCallRecord[] => manifest.filter((call) => call.function === name);
const describeCall = (call: AwsCallRecord) => `${call.function}: ${call.action} on ${call.resource}${call.leadingKey !== undefined ? ` (leading key ${call.leadingKey})` : ''} [${call.command}]`;

function exceptionFor(name: string, action: string, resource: string): UnobservedGrant | undefined {
  return UNOBSERVED_GRANTS.find(
    (grant) => (grant.functions.includes(name) || grant.functions.includes('*')) && grant.actions.includes(action) && grant.resource === resource,
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
              (call) => wildcardMatches(action, call.action, { ignoreCase: true }) && wildcardMatches(resource, call.resource) && conditionsHold(statement, call),
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
    const expected = functionCatalog().filter((spec) => spec.name !== 'openapi').map((spec) => spec.name);
    expect(expected.filter((name) => !recorded.has(name))).toEqual([]);
  });

  it(`names only functions of the catalog (else regenerate it: ${REGENERATE_AWS_CALLS})`, () => {
    expect([...new Set(manifest.map((call) => call.function))].filter((name) => !catalogNames.includes(name))).toEqual([]);
  });

  it('lists only resources of the stack, with key layouts from shared/data/keys.ts', () => {
    const foreign = manifest.filter(
      (call) => !/^arn:aws:(dynamodb:\{region\}:\{account\}:table\/\{table\}|s3:::\{(sbomBucket|disclosureBucket)\}|sqs:\{region\}:\{account\}:\{scanQueue\}$|secretsmanager:)/.test(call.resource) || call.resource.includes('{unknown-layout}'),
    );
    expect(foreign.map(describeCall)).toEqual([]);
  });
});

describe.each([
  ['default settings', {}],
  ['X-Ray tracing on', { tracing: true }],
])('each function\'s IAM policy, %s', (_label, settings) => {
  let policies: SynthesizedPolicies;

  beforeAll(() => {
    policies = synthesizePolicies(settings);
  });

  it('allows every AWS call the function\'s code made in the integration tests', () => {
    const denied = manifest.filter((call) => catalogNames.includes(call.function) && !allows(policies.statementsOf(call.function), call));
    expect(denied.map(describeCall)).toEqual([]);
  });

  it('grants nothing the code never used, beyond the documented exceptions', () => {
    const unexplained = catalogNames.flatMap((name) =>
      unusedGrants(name, policies.statementsOf(name))
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

  it('each still excuse a grant that exists and that no recorded call uses (for every function named, or some function for \'*\')', () => {
    const excused = (name: string, action: string, resource: string) =>
      [defaults, traced].some((policies) => unusedGrants(name, policies.statementsOf(name)).some((grant) => grant.action === action && grant.resource === resource));
    const stale = UNOBSERVED_GRANTS.flatMap((grant) =>
      grant.actions.flatMap((action) => {
        if (grant.functions.includes('*')) return catalogNames.some((name) => excused(name, action, grant.resource)) ? [] : [`*: ${action} on ${grant.resource}`];
        return grant.functions.filter((name) => !excused(name, action, grant.resource)).map((name) => `${name}: ${action} on ${grant.resource}`);
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

  it('lets the authorizer get only API key hash items', () => {
    const statements = policies.statementsOf('authorizer');
    expect(allows(statements, { action: 'dynamodb:GetItem', resource: table, leadingKey: 'APIKEY_HASH#' })).toBe(true);
    for (const leadingKey of ['TEAM#', 'DISCLOSURE#', 'CORPUS#']) {
      expect({ leadingKey, allowed: allows(statements, { action: 'dynamodb:GetItem', resource: table, leadingKey }) }).toEqual({ leadingKey, allowed: false });
    }
    expect(allows(statements, { action: 'dynamodb:Query', resource: table, leadingKey: 'APIKEY_HASH#' })).toBe(false);
    expect(allows(statements, { action: 'dynamodb:Scan', resource: table })).toBe(false);
  });

  it('lets the public disclosures function read only the disclosure partitions', () => {
    const statements = policies.statementsOf('disclosures');
    for (const leadingKey of ['DISCLOSURE#', 'DISCLOSED_DOC#', 'DISCLOSURE_INDEX#', 'DISCLOSURE_COUNTER']) {
      expect({ leadingKey, allowed: allows(statements, { action: 'dynamodb:Query', resource: table, leadingKey }) }).toEqual({ leadingKey, allowed: true });
    }
    for (const leadingKey of ['TEAM#', 'APIKEY_HASH#', 'CORPUS#', 'DISCLOSURE_COUNTERFEIT']) {
      for (const action of ['dynamodb:GetItem', 'dynamodb:Query']) {
        expect({ leadingKey, action, allowed: allows(statements, { action, resource: table, leadingKey }) }).toEqual({ leadingKey, action, allowed: false });
      }
    }
    expect(allows(statements, { action: 'dynamodb:Scan', resource: table })).toBe(false);
    expect(allows(statements, { action: 'dynamodb:PutItem', resource: table, leadingKey: 'DISCLOSURE#' })).toBe(false);
  });

  it('refuses a request without any leading key (ForAllValues alone would allow it)', () => {
    for (const name of ['authorizer', 'disclosures']) {
      expect({ name, allowed: allows(policies.statementsOf(name), { action: 'dynamodb:GetItem', resource: table }) }).toEqual({ name, allowed: false });
    }
  });
});
