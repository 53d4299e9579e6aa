/**
 * The one place the Lambda bundles are configured. The stack hands
 * `lambdaBundling` to every NodejsFunction; the bundle bench
 * (test/bench/bundles.ts) builds the same settings through esbuild's API with
 * `esbuildOptions`, so the sizes and load times it reports are the deployed ones.
 */
import type { BuildOptions } from 'esbuild';
import { Charset, LogLevel, OutputFormat, SourceMapMode, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * ESM output keeps middy (ESM only) and top-level await working. Some bundled
 * CommonJS dependencies still call `require()` for Node built-ins, which an
 * ES module does not define; the banner gives them one.
 */
const REQUIRE_BANNER =
  "import { createRequire as __vexdeskCreateRequire } from 'node:module'; const require = __vexdeskCreateRequire(import.meta.url);";

export const bundleSettings = {
  /** Matches lambda.Runtime.NODEJS_24_X, so esbuild leaves modern syntax alone. */
  target: 'node24',
  minify: true,
  /** External source map; the functions run with NODE_OPTIONS=--enable-source-maps. */
  sourceMap: true,
  /** The map points at the repo's files; embedding their text would only grow the asset. */
  sourcesContent: false,
  /** Prefer packages' ESM builds (the AWS SDK ships both): better tree shaking, smaller bundles. */
  mainFields: ['module', 'main'],
  banner: REQUIRE_BANNER,
  /**
   * Keep non-ASCII text (zod's bundled error-message locales) as UTF-8 instead
   * of \uXXXX escapes: about 70 KB less per bundle. Node reads sources as UTF-8.
   */
  charset: 'utf8',
  /**
   * Bundle the AWS SDK instead of using the runtime's copy: the version we test
   * is the version we run, and a tree-shaken SDK loads faster than the full one.
   */
  externalModules: [] as string[],
} as const;

/** NodejsFunction bundling: local esbuild only (no Docker on build machines or CI). */
export const lambdaBundling: BundlingOptions = {
  target: bundleSettings.target,
  format: OutputFormat.ESM,
  minify: bundleSettings.minify,
  sourceMap: bundleSettings.sourceMap,
  sourceMapMode: SourceMapMode.DEFAULT,
  sourcesContent: bundleSettings.sourcesContent,
  mainFields: [...bundleSettings.mainFields],
  banner: bundleSettings.banner,
  charset: Charset.UTF8,
  externalModules: bundleSettings.externalModules,
  bundleAwsSDK: true,
  forceDockerBundling: false,
  logLevel: LogLevel.WARNING,
};

/** The same settings for esbuild's JS API (what NodejsFunction passes on its command line). */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: bundleSettings.target,
    minify: bundleSettings.minify,
    sourcemap: bundleSettings.sourceMap,
    sourcesContent: bundleSettings.sourcesContent,
    mainFields: [...bundleSettings.mainFields],
    banner: { js: bundleSettings.banner },
    charset: bundleSettings.charset,
    external: bundleSettings.externalModules,
    logLevel: 'warning',
  };
}

/** File name NodejsFunction gives an ESM bundle; the Lambda handler string is `index.handler`. */
export const BUNDLE_FILE_NAME = 'index.mjs';
