/**
 * The stack's functions (lib/service-functions.ts) on the synthesized template: runtime, sizing,
 * environment, log groups and the bundles themselves. The stack is synthesized once, each function's
 * asset staged from its bundle built for this run (./support/function-bundles.ts), the bundle every
 * other test reads, so a function that no longer bundles fails here too. That this is what a deployment
 * ships is the last suite's check: lib/function-code.ts with CDK's local bundling for real, on one
 * function (CDK runs lib/build-function.ts in a child process and stages what it writes), gives the
 * same files as the run's build; the 20 functions are not bundled twice.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { Stack, type App } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { routes, type RouteDefinition } from '../../shared/service/http/routes';
import { LAMBDA_HANDLER } from '../../lib/bundling';
import { functionCatalog, PROJECT_ROOT, type FunctionSpec } from '../../lib/function-catalog';
import { functionCode } from '../../lib/function-code';
import { usesTable } from '../../lib/permissions';
import type { VexdeskStack } from '../../lib/vexdesk-stack';
import {
  createApp,
  environmentOfFunction,
  functionLogicalId,
  functionPropertiesOf,
  logicalIdOf,
  resourcesOf,
  synthStack,
} from './support/synth';
import { ALL_BUNDLES_TIMEOUT_MS, functionBundles, type FunctionBundle } from './support/function-bundles';

const allRoutes = routes as readonly RouteDefinition[];

let app: App;
let stack: VexdeskStack;
let template: Template;
let catalog: FunctionSpec[];
let bundles: Map<string, FunctionBundle>;

beforeAll(async () => {
  bundles = await functionBundles();
  // The default stack's template, validated by default-stack.test.ts; here only its staged assets differ.
  ({ app, stack, template } = synthStack({ bundles, cloudFormationValidation: false }));
  catalog = functionCatalog();
}, ALL_BUNDLES_TIMEOUT_MS);

const functionProperties = (name: string): Record<string, unknown> => functionPropertiesOf(template, stack, name);
const environmentOf = (name: string): Record<string, unknown> => environmentOfFunction(template, stack, name);

/** The directory CDK staged a function's bundle in. */
function bundleDirOf(name: string): string {
  const assetPath = (resourcesOf(template)[functionLogicalId(stack, name)]!.Metadata as { 'aws:asset:path': string })[
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

/** Bundled through CDK below: the smallest function. */
const BUNDLED_BY_CDK = 'authorizer';

/** CDK's local bundling for real on one function (the stack above stages the run's builds instead). */
function bundleThroughCdk(name: string): string {
  // What is looked at is the staged asset, not this one-function template.
  const app = createApp({ stageAssets: true, cloudFormationValidation: false });
  const stack = new Stack(app, 'FunctionCode');
  const entry = functionCatalog().find((spec) => spec.name === name)!.entry;
  const fn = new lambda.Function(stack, 'Function', {
    code: functionCode(entry),
    handler: LAMBDA_HANDLER,
    runtime: lambda.Runtime.NODEJS_24_X,
  });
  const metadata = resourcesOf(Template.fromStack(stack))[logicalIdOf(stack, fn)]?.Metadata as Record<string, string>;
  return join(app.outdir, metadata['aws:asset:path']!);
}

function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

/** A plugin's module (`<namespace>:<path>`), named the same in every map. */
const PLUGIN_SOURCE = /^[\w-]+:/;

/** A source map with its files' sources as absolute paths: the same map whichever directory it was written to. */
function sourceMap(file: string): Record<string, unknown> {
  const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[] } & Record<string, unknown>;
  const absolute = (source: string) => (PLUGIN_SOURCE.test(source) ? source : resolve(dirname(file), source));
  return { ...map, sources: map.sources.map(absolute) };
}

describe('function code through CDK local bundling', () => {
  let built: FunctionBundle;
  let stagedDir: string;

  beforeAll(() => {
    built = bundles.get(BUNDLED_BY_CDK)!;
    stagedDir = bundleThroughCdk(BUNDLED_BY_CDK);
  });

  it("stages the entry's bundle as lib/bundling.ts builds it: the same files, code byte for byte, maps naming the same sources", () => {
    const files = filesOf(stagedDir);

    expect(files).toEqual(filesOf(built.dir));
    expect(files).toEqual(expect.arrayContaining(['index.mjs', 'index.mjs.map']));
    for (const file of files) {
      if (file.endsWith('.map')) {
        expect(sourceMap(join(stagedDir, file))).toEqual(sourceMap(join(built.dir, file)));
      } else {
        expect(readFileSync(join(stagedDir, file)).equals(readFileSync(join(built.dir, file)))).toBe(true);
      }
    }
    expect(sourceMap(join(stagedDir, 'index.mjs.map')).sources).toContain(
      join(PROJECT_ROOT, `functions/${BUNDLED_BY_CDK}/handler.ts`),
    );
  });

  it('refuses an entry that does not exist when the stack is built, not when the asset is staged', () => {
    expect(() => functionCode(join(PROJECT_ROOT, 'functions/no-such-function/handler.ts'))).toThrow(
      /Lambda entry .*functions\/no-such-function\/handler\.ts does not exist/,
    );
  });
});
