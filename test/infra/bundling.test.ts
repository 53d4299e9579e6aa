/**
 * The bundle bench must measure what the stack deploys: both read
 * lib/bundling.ts, and this pins the two renderings of it to each other.
 */
import { describe, expect, it } from '@jest/globals';
import { Charset, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { esbuildOptions, lambdaBundling } from '../../lib/bundling';

describe('bundling settings', () => {
  it('builds the bench bundles with the options the stack gives NodejsFunction', () => {
    const bench = esbuildOptions('entry.ts', 'out/index.mjs');

    expect(lambdaBundling).toMatchObject({ format: OutputFormat.ESM, charset: Charset.UTF8, forceDockerBundling: false, bundleAwsSDK: true });
    expect(bench).toMatchObject({
      format: 'esm',
      platform: 'node',
      bundle: true,
      target: lambdaBundling.target,
      minify: lambdaBundling.minify,
      sourcemap: lambdaBundling.sourceMap,
      sourcesContent: lambdaBundling.sourcesContent,
      mainFields: lambdaBundling.mainFields,
      banner: { js: lambdaBundling.banner },
      charset: 'utf8',
      external: lambdaBundling.externalModules,
    });
  });

  it('bundles the AWS SDK and targets the Lambda runtime\'s Node version', () => {
    expect(lambdaBundling.externalModules).toEqual([]);
    expect(lambdaBundling.target).toBe('node24');
    expect(lambdaBundling.banner).toContain('createRequire');
  });
});
