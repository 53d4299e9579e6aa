/**
 * Permissions that match the code: every AWS call a function's code made during the integration tests
 * (the committed manifest test/infra/observed-aws-calls.json, rewritten by
 * `UPDATE_AWS_CALLS=1 npm run test:integration`) must be allowed by that function's synthesized policy,
 * and every grant must be used by some call or be a documented exception (UNOBSERVED_GRANTS in
 * lib/unobserved-grants.ts). A tenant function's DynamoDB and S3 calls are checked against its tenant
 * role (test/infra/support/synthesized-policies.ts); permissions-leading-keys.ts and
 * permissions-tenant-roles.ts check what the policies refuse.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { AwsCallRecord } from '../../../shared/service/aws-call-log';
import { functionCatalog } from '../../../lib/function-catalog';
import { UNOBSERVED_GRANTS, type UnobservedGrant } from '../../../lib/unobserved-grants';
import { REGENERATE_AWS_CALLS, normaliseRecords, readAwsCallManifest } from '../../support/aws-call-manifest';
import { allows, conditionsHold, wildcardMatches, type ResolvedStatement } from '../support/iam-policy';
import {
  PLACEHOLDER_NOTIFY_EMAIL,
  describeCall,
  synthesizePolicies,
  type SynthesizedPolicies,
} from '../support/synthesized-policies';

const manifest = readAwsCallManifest();
const catalogNames = functionCatalog().map((spec) => spec.name);

const callsOf = (name: string): AwsCallRecord[] => manifest.filter((call) => call.function === name);

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
  ['e-mail through SES', { notifyEmail: PLACEHOLDER_NOTIFY_EMAIL }],
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
  let variants: SynthesizedPolicies[];

  beforeAll(() => {
    variants = [{}, { tracing: true }, { notifyEmail: PLACEHOLDER_NOTIFY_EMAIL }].map(synthesizePolicies);
  });

  it('each give a reason', () => {
    expect(UNOBSERVED_GRANTS.filter((grant) => grant.reason.trim().length < 40)).toEqual([]);
  });

  it("each still excuse a grant that exists and that no recorded call uses (for every function named, or some function for '*')", () => {
    const excused = (name: string, action: string, resource: string) =>
      variants.some((policies) =>
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
