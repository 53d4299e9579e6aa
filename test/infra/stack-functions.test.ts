/**
 * The stack's functions (lib/service-functions.ts) on the synthesized template: runtime, sizing,
 * environment, log groups and the bundles themselves. The stack is synthesized once, with real esbuild
 * bundling, so a function that no longer bundles fails here too.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import type { App } from 'aws-cdk-lib';
import { routes, type RouteDefinition } from '../../shared/service/http/routes';
import { functionCatalog, type FunctionSpec } from '../../lib/function-catalog';
import { usesTable } from '../../lib/permissions';
import type { VexdeskStack } from '../../lib/vexdesk-stack';
import {
  environmentOfFunction,
  functionLogicalId,
  functionPropertiesOf,
  logicalIdOf,
  resourcesOf,
  synthStack,
} from './support/synth';

const allRoutes = routes as readonly RouteDefinition[];

let app: App;
let stack: VexdeskStack;
let template: Template;
let catalog: FunctionSpec[];

beforeAll(() => {
  ({ app, stack, template } = synthStack({ bundle: true }));
  catalog = functionCatalog();
});

const functionProperties = (name: string): Record<string, unknown> => functionPropertiesOf(template, stack, name);
const environmentOf = (name: string): Record<string, unknown> => environmentOfFunction(template, stack, name);

/** The directory CDK staged a function's bundle in. */
function bundleDirOf(name: string): string {
  const assetPath = (resourcesOf(template)[functionLogicalId(stack, name)]?.Metadata as { 'aws:asset:path': string })[
    'aws:asset:path'
  ];
  return join(app.outdir, assetPath);
}

/** Every input file of a bundle, entry and chunks, from their source maps (paths relative to each map, so `../..`-prefixed). */
function sourcesOf(name: string): string[] {
  const dir = bundleDirOf(name);
  const maps = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.mjs.map'));
  return maps.flatMap((map) => (JSON.parse(readFileSync(join(dir, map), 'utf8')) as { sources: string[] }).sources);
}

/** The npm packages a bundle contains. */
function bundledPackages(name: string): string[] {
  const packages = sourcesOf(name)
    .map((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(packages)].sort();
}

describe('functions', () => {
  it('deploys one arm64 Node.js 24 function per endpoint group plus the authorizer', () => {
    for (const spec of catalog) {
      expect(functionProperties(spec.name)).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: spec.memoryMb,
        Timeout: spec.timeoutSeconds,
      });
    }
    expect(catalog.map((spec) => spec.name)).toEqual(
      expect.arrayContaining(['authorizer', ...new Set(allRoutes.map((route) => route.group))]),
    );
  });

  it('gives the SBOM-parsing groups more memory and the 29 s the API allows', () => {
    for (const name of ['sboms', 'scans']) {
      expect(functionProperties(name)).toMatchObject({ MemorySize: 2048, Timeout: 29 });
    }
    expect(functionProperties('products')).toMatchObject({ MemorySize: 512, Timeout: 10 });
  });

  it('gives the dispositions group the 29 s the API allows, so a 500-item batch finishes within its request', () => {
    expect(functionProperties('dispositions')).toMatchObject({ MemorySize: 1024, Timeout: 29 });
  });

  it('passes the configuration variables to every function, without --enable-source-maps (the bundles map stacks on demand)', () => {
    for (const spec of catalog) {
      expect(environmentOf(spec.name)).toMatchObject({
        TABLE_NAME: { Ref: logicalIdOf(stack, stack.table) },
        SBOM_BUCKET: { Ref: logicalIdOf(stack, stack.sbomBucket) },
        DISCLOSURE_BUCKET: { Ref: logicalIdOf(stack, stack.disclosureBucket) },
        LOG_LEVEL: 'INFO',
      });
      // Node would parse every chunk's source map at cold start (shared/service/source-mapped-stacks.ts).
      expect(environmentOf(spec.name)).not.toHaveProperty('NODE_OPTIONS');
    }
  });

  it('passes the signing secret id only to the functions that sign or verify (vex, disclosures)', () => {
    const withSecret = catalog
      .filter((spec) => 'DISCLOSURE_SIGNING_SECRET_ID' in environmentOf(spec.name))
      .map((spec) => spec.name);
    expect(withSecret.sort()).toEqual(['disclosures', 'vex']);
    expect(environmentOf('vex').DISCLOSURE_SIGNING_SECRET_ID).toEqual({ Ref: logicalIdOf(stack, stack.signingSecret) });
  });

  it("writes each function's logs to its own log group kept for 30 days", () => {
    const logGroupIds = catalog.map((spec) => {
      const loggingConfig = functionProperties(spec.name).LoggingConfig as { LogGroup: { Ref: string } };
      expect(resourcesOf(template)[loggingConfig.LogGroup.Ref]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        Properties: { RetentionInDays: 30 },
      });
      return loggingConfig.LogGroup.Ref;
    });
    expect(new Set(logGroupIds).size).toBe(catalog.length);
  });

  it('bundles each function as minified ESM with a source map and the AWS SDK inside', () => {
    for (const spec of catalog) {
      const bundleDir = bundleDirOf(spec.name);
      const bundle = readFileSync(join(bundleDir, 'index.mjs'), 'utf8');

      expect(existsSync(join(bundleDir, 'index.mjs.map'))).toBe(true);
      expect(bundle).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      expect(bundle.startsWith('import { createRequire')).toBe(true);
      // esbuild marks each module with a `// path/file.ts` comment unless it minifies.
      expect(bundle).not.toMatch(/^\/\/ (shared|functions|node_modules)\//m);
      expect(bundle).not.toMatch(/from\s*["']@aws-sdk\//);
      // The SDK is bundled (not taken from the runtime): every function with table access carries its DynamoDB client.
      const expectedSdk = usesTable(spec.access) || spec.tenant ? ['@aws-sdk/client-dynamodb'] : [];
      expect(bundledPackages(spec.name)).toEqual(expect.arrayContaining(expectedSdk));
    }
  });

  it("leaves zod-to-openapi, zod's non-English locales and the non-Lambda credential providers out of the bundles", () => {
    for (const spec of catalog) {
      const sources = sourcesOf(spec.name);
      const unexpected = sources.filter(
        (source) =>
          (spec.name !== 'openapi' && source.includes('node_modules/@asteasolutions/zod-to-openapi/')) ||
          /node_modules\/zod\/v4\/locales\/(?!en\.js|index\.js)/.test(source) ||
          /node_modules\/@aws-sdk\/(credential-provider-(ini|sso|process|web-identity|login)|nested-clients)\//.test(
            source,
          ),
      );

      expect({ name: spec.name, unexpected }).toEqual({ name: spec.name, unexpected: [] });
    }
    expect(bundledPackages('openapi')).toContain('@asteasolutions/zod-to-openapi');
  });
});
