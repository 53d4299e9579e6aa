/**
 * The stack synthesized with a console build, and the CloudFront template shapes the console hosting
 * tests read (lib/console-hosting.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import type { VexdeskStack } from '../../../lib/vexdesk-stack';
import { logicalIdOf, resourcesOf, synthStack, type Resources } from './synth';

/** A console build as `npm run build:web` leaves it: index.html and hashed files under assets/. Returns its directory. */
export function writeConsoleBuild(): string {
  const consoleDir = mkdtempSync(join(tmpdir(), 'vexdesk-console-'));
  writeFileSync(
    join(consoleDir, 'index.html'),
    '<!doctype html><title>Vexdesk</title><script type="module" src="/assets/index-abc123.js"></script>',
  );
  return consoleDir;
}

export interface CacheBehavior {
  PathPattern?: string;
  TargetOriginId: string;
  CachePolicyId: unknown;
  OriginRequestPolicyId?: unknown;
  ResponseHeadersPolicyId: unknown;
  AllowedMethods: string[];
  ViewerProtocolPolicy: string;
  FunctionAssociations?: Array<{ EventType: string; FunctionARN: unknown }>;
}

export interface DistributionConfig {
  DefaultCacheBehavior: CacheBehavior;
  CacheBehaviors: CacheBehavior[];
  Origins: Array<{
    Id: string;
    DomainName: unknown;
    OriginPath?: string;
    S3OriginConfig?: unknown;
    OriginAccessControlId?: unknown;
    CustomOriginConfig?: Record<string, unknown>;
  }>;
  DefaultRootObject: string;
  CustomErrorResponses?: unknown;
  Logging?: Record<string, unknown>;
  ViewerCertificate?: Record<string, unknown>;
  Aliases?: string[];
  WebACLId?: string;
}

/** The one resource of a type (and filter) in the template: fails the test when there are none or several. */
export function onlyResource(
  resources: Resources,
  type: string,
  filter: (resource: Resources[string]) => boolean = () => true,
): [string, Resources[string]] {
  const found = Object.entries(resources).filter(([, resource]) => resource.Type === type && filter(resource));
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** The distribution's configuration in a synthesized template. */
export function distributionConfigOf(stack: VexdeskStack, template: Template): DistributionConfig {
  return (
    resourcesOf(template)[logicalIdOf(stack, stack.console.distribution)]!.Properties as {
      DistributionConfig: DistributionConfig;
    }
  ).DistributionConfig;
}

/** The stack with a console build in `consoleDir`, as the console hosting tests synthesize it. */
export function synthWithConsole(consoleDir: string): {
  stack: VexdeskStack;
  template: Template;
  resources: Resources;
} {
  const { stack, template } = synthStack({ props: { settings: { consoleAssets: consoleDir } } });
  return { stack, template, resources: resourcesOf(template) };
}

let shared: (ReturnType<typeof synthWithConsole> & { consoleDir: string }) | undefined;

/** The stack with a console build, written and synthesized once for every suite of the test file that reads it. */
export function sharedConsoleStack(): ReturnType<typeof synthWithConsole> & { consoleDir: string } {
  if (!shared) {
    const consoleDir = writeConsoleBuild();
    afterAll(() => rmSync(consoleDir, { recursive: true, force: true }));
    shared = { consoleDir, ...synthWithConsole(consoleDir) };
  }
  return shared;
}
