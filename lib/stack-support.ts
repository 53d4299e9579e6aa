/**
 * What the stack's parts (lib/storage.ts, lib/service-functions.ts, lib/rest-api.ts, …) share: cdk-nag
 * acknowledgements and construct ids.
 *
 * The parts are plain classes and functions that add their resources to the stack itself, not Constructs:
 * a Construct would put its id into every child's path and logical ID, and CloudFormation would replace
 * the deployed table, buckets and keys. lib/console-hosting.ts is a Construct because it was one from the start.
 */
import { Validations, type Stack } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** Record why a cdk-nag rule does not apply here; the infra tests require a reason on each. */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** `scan-worker` → `ScanWorker`: construct ids from catalog names and gateway response types. */
export function pascalCase(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
}

/** The logical id of a construct's CloudFormation resource, as cdk-nag names it in a finding. */
export function logicalIdOf(stack: Stack, construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}
