/**
 * Builds the stack the way `cdk synth` does: same feature flags (read from
 * cdk.json, so tests and deployments cannot disagree), same construct ids.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { expect } from '@jest/globals';
import type { CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { PROJECT_ROOT } from '../../../lib/function-catalog';
import type { VexdeskSettings } from '../../../lib/settings';
import { VexdeskStack, type VexdeskStackProps } from '../../../lib/vexdesk-stack';
import type { FunctionBundle } from './function-bundles';
import { infraRunDir } from './global-setup';

interface CdkJson {
  context: Record<string, unknown>;
}

export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as CdkJson;
  return cdkJson.context;
}

export interface SynthOptions {
  /**
   * Stage real assets: each function's code is its bundle from this run's builds (./function-bundles.ts),
   * the console a stand-in. Otherwise every asset is stubbed (no bundling, nothing copied).
   */
  bundles?: ReadonlyMap<string, FunctionBundle>;
  /** Extra context, as `-c key=value` would pass it. */
  context?: Record<string, unknown>;
  props?: VexdeskStackProps;
  /**
   * CDK's built-in CloudFormation validation of the template (default on, as `cdk synth` runs it). Off only for a
   * template another test validates already: the validation engine costs about 3 CPU-s per test file that starts it.
   */
  cloudFormationValidation?: boolean;
}

/** `stageAssets`: stage (and bundle) every asset, recording each one's directory on its resource. */
export function createApp(
  options: { stageAssets?: boolean; context?: Record<string, unknown>; cloudFormationValidation?: boolean } = {},
): App {
  const runDir = infraRunDir();
  return new App({
    builtinCloudFormationValidation: options.cloudFormationValidation ?? true,
    // In the run's directory, removed when the run ends (CDK's default, a temp directory of its own, stays behind).
    ...(runDir && { outdir: mkdtempSync(join(runDir, 'cdk.out-')) }),
    context: {
      ...cdkJsonContext(),
      // Bundling: record each asset's directory on its resource (as the CLI does), so tests can open the bundle.
      // No bundling: an empty list skips asset bundling for every stack.
      ...(options.stageAssets ? { 'aws:cdk:enable-asset-metadata': true } : { 'aws:cdk:bundling-stacks': [] }),
      ...options.context,
    },
  });
}

/** A stand-in for the built console (web/dist), so tests that stage the assets do not also build the console. */
export const CONSOLE_FIXTURE = `${PROJECT_ROOT}/test/fixtures/console`;

/** Each function's code: the directory of its bundle built for this run, staged as CDK stages any asset directory. */
function prebuiltFunctionCode(bundles: ReadonlyMap<string, FunctionBundle>): (entry: string) => lambda.Code {
  return (entry) => {
    const bundle = [...bundles.values()].find((built) => built.entry === entry);
    if (!bundle) throw new Error(`No bundle was built for ${entry}`);
    return lambda.Code.fromAsset(bundle.dir);
  };
}

export function synthStack(options: SynthOptions = {}): { app: App; stack: VexdeskStack; template: Template } {
  const { bundles } = options;
  const app = createApp({
    stageAssets: bundles !== undefined,
    context: options.context,
    cloudFormationValidation: options.cloudFormationValidation,
  });
  const props = bundles
    ? {
        ...options.props,
        functionCode: prebuiltFunctionCode(bundles),
        settings: { consoleAssets: CONSOLE_FIXTURE, ...options.props?.settings },
      }
    : options.props;
  const stack = new VexdeskStack(app, 'Vexdesk', props);
  return { app, stack, template: Template.fromStack(stack) };
}

type Synthesized = ReturnType<typeof synthStack>;
const sharedStacks = new Map<string, Synthesized>();

/**
 * The stack with these settings (defaults when none), synthesized once for every test of the file
 * that only reads it: test/infra/default-stack.test.ts gathers the suites that read the default stack.
 */
export function sharedStack(settings: Partial<VexdeskSettings> = {}): Synthesized {
  const key = JSON.stringify(settings);
  let synthesized = sharedStacks.get(key);
  if (!synthesized) {
    synthesized = synthStack({ props: { settings } });
    sharedStacks.set(key, synthesized);
  }
  return synthesized;
}

/** The logical id CloudFormation will see for a construct (or its default child). */
export function logicalIdOf(stack: Stack, construct: IConstruct): string {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return stack.getLogicalId(element);
}

/** The logical id of a catalog function (`products`, `authorizer`, …). */
export function functionLogicalId(stack: VexdeskStack, name: string): string {
  return logicalIdOf(stack, stack.requireFunction(name));
}

/** The logical id of a catalog function's execution role. */
export function executionRoleLogicalId(stack: VexdeskStack, name: string): string {
  const role = stack.requireFunction(name).role;
  if (!role) throw new Error(`${name} has no role`);
  return logicalIdOf(stack, role);
}

/** A catalog function's properties in the template. */
export function functionPropertiesOf(template: Template, stack: VexdeskStack, name: string): Record<string, unknown> {
  const properties = resourcesOf(template)[functionLogicalId(stack, name)]?.Properties;
  if (!properties) throw new Error(`No template resource for function ${name}`);
  return properties;
}

/** A catalog function's environment variables in the template. */
export function environmentOfFunction(template: Template, stack: VexdeskStack, name: string): Record<string, unknown> {
  return (functionPropertiesOf(template, stack, name).Environment as { Variables: Record<string, unknown> }).Variables;
}

export type Resources = Record<
  string,
  { Type: string; Properties?: Record<string, unknown> } & Record<string, unknown>
>;

export function resourcesOf(template: Template): Resources {
  return (template.toJSON() as { Resources: Resources }).Resources;
}

/** Replace every `{ Ref: parameter }` of a nested template by what the parent stack passes for it. */
function withParameters(value: unknown, parameters: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((item) => withParameters(item, parameters));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 1 && entries[0]![0] === 'Ref' && typeof entries[0]![1] === 'string') {
    const passed = parameters[entries[0]![1]];
    if (passed !== undefined) return passed;
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, withParameters(item, parameters)]));
}

/**
 * The REST API's resources and methods, which live in the nested routes stack (lib/api-routes.ts), with its
 * parameters resolved to the parent's values: a method's authorizer reads `{ Ref: <authorizer> }` and its
 * integration `Fn::GetAtt <function> Arn`, as if it were in the top-level template.
 */
export function apiRouteResources(stack: VexdeskStack): Resources {
  const routes = stack.routes;
  const nestedResource = resourcesOf(Template.fromStack(stack))[logicalIdOf(stack, routes.nestedStackResource!)];
  const parameters = (nestedResource?.Properties?.Parameters ?? {}) as Record<string, unknown>;
  return withParameters(resourcesOf(Template.fromStack(routes)), parameters) as Resources;
}

/**
 * Rebuild each API Gateway resource's path (`/api/products/{productId}`) from
 * the parent links in the template, so methods can be matched to routes.
 */
export function apiResourcePaths(resources: Resources): Map<string, string> {
  const paths = new Map<string, string>();
  const pathOf = (logicalId: string): string => {
    const known = paths.get(logicalId);
    if (known !== undefined) return known;
    const properties = resources[logicalId]?.Properties as { ParentId: unknown; PathPart: string };
    const parent = properties.ParentId as { Ref?: string };
    // The API's root resource (a GetAtt RootResourceId) has the empty path.
    const parentPath = parent.Ref ? pathOf(parent.Ref) : '';
    const path = `${parentPath}/${properties.PathPart}`;
    paths.set(logicalId, path);
    return path;
  };
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type === 'AWS::ApiGateway::Resource') pathOf(logicalId);
  }
  return paths;
}

export interface ApiMethod {
  logicalId: string;
  httpMethod: string;
  path: string;
  properties: Record<string, unknown>;
}

/** Every method of the REST API, with its path (see apiRouteResources). */
export function apiMethods(stack: VexdeskStack): ApiMethod[] {
  const resources = apiRouteResources(stack);
  const paths = apiResourcePaths(resources);
  return Object.entries(resources)
    .filter(([, resource]) => resource.Type === 'AWS::ApiGateway::Method')
    .map(([logicalId, resource]) => {
      const properties = resource.Properties ?? {};
      const resourceId = properties.ResourceId as { Ref?: string };
      // A method on the root resource has a GetAtt RootResourceId instead of a Ref.
      const path = resourceId.Ref ? (paths.get(resourceId.Ref) ?? '?') : '/';
      return { logicalId, httpMethod: String(properties.HttpMethod), path, properties };
    });
}

export interface GrantedStatement {
  actions: string[];
  /** The statement's Resource, serialised: tests look for a logical id inside it. */
  resource: string;
}

/** Every statement of the inline policies attached to a role. */
export function statementsOfRole(template: Template, roleLogicalId: string): GrantedStatement[] {
  const statements: GrantedStatement[] = [];
  for (const resource of Object.values(resourcesOf(template))) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    const properties = resource.Properties as {
      Roles: Array<{ Ref?: string }>;
      PolicyDocument: { Statement: Array<{ Action: string | string[]; Resource: unknown }> };
    };
    if (!properties.Roles.some((role) => role.Ref === roleLogicalId)) continue;
    for (const statement of properties.PolicyDocument.Statement) {
      statements.push({ actions: [statement.Action].flat(), resource: JSON.stringify(statement.Resource) });
    }
  }
  return statements;
}

/** The sorted, de-duplicated actions a role may perform, optionally only on resources mentioning `logicalId`. */
export function actionsOfRole(template: Template, roleLogicalId: string, onResource?: string): string[] {
  const actions = statementsOfRole(template, roleLogicalId)
    .filter((statement) => onResource === undefined || statement.resource.includes(`"${onResource}"`))
    .flatMap((statement) => statement.actions);
  return [...new Set(actions)].sort();
}

/*
 * Template assertions under `assert*` names, which the jest/expect-expect lint
 * rule counts as assertions (it does not know `template.has*`).
 */
export function assertResourceProperties(template: Template, type: string, properties: unknown): void {
  template.hasResourceProperties(type, properties);
}

export function assertResource(template: Template, type: string, resource: unknown): void {
  template.hasResource(type, resource);
}

export function assertAllResourcesProperties(template: Template, type: string, properties: unknown): void {
  template.allResourcesProperties(type, properties);
}

/** Every function of the catalog (not CDK's own helpers, like BucketDeployment's handler) has these properties. */
export function assertCatalogFunctionsProperties(
  template: Template,
  stack: VexdeskStack,
  properties: Record<string, unknown>,
): void {
  const resources = resourcesOf(template);
  for (const fn of stack.functions.values())
    expect(resources[logicalIdOf(stack, fn)]?.Properties).toMatchObject(properties);
}

export function assertOutput(template: Template, logicalId: string, output: unknown): void {
  template.hasOutput(logicalId, output);
}
