/**
 * What each function's real bundle holds, read from its esbuild metafile: code splitting keeps rarely
 * used modules out of the cold start, and a bundle holds nothing but deployed code (functions/ and
 * shared/service/, see shared/README.md). The bundles are the run's (./support/function-bundles.ts),
 * built once with the build CDK's local bundling runs for the stack.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Metafile } from 'esbuild';
import { BUNDLE_FILE_NAME, coldStartOutputs } from '../../lib/bundling';
import { functionCatalog, PROJECT_ROOT } from '../../lib/function-catalog';
import { evaluateBundle as evaluate } from './support/evaluate-bundle';
import { ALL_BUNDLES_TIMEOUT_MS, functionBundles, type FunctionBundle } from './support/function-bundles';

let bundles: Map<string, FunctionBundle>;

beforeAll(async () => {
  bundles = await functionBundles();
}, ALL_BUNDLES_TIMEOUT_MS);

function bundleOf(name: string): FunctionBundle {
  const bundle = bundles.get(name);
  if (!bundle) throw new Error(`No bundle for ${name}`);
  return bundle;
}

function inputsOf(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs);
}

describe('code splitting', () => {
  const CHILD_ENV = {
    PUBLIC_BASE_URL: 'https://vexdesk.test',
    AWS_REGION: 'us-east-1',
    TABLE_NAME: 'test-table',
    SBOM_BUCKET: 'test-sboms',
    DISCLOSURE_BUCKET: 'test-disclosures',
    LOG_LEVEL: 'ERROR',
  };
  /** Project files and packages in the files a cold start loads, and in the lazy chunks. */
  function sourcesByLoad(metafile: Metafile): { initial: string[]; lazy: string[] } {
    const { initial, lazy } = coldStartOutputs(metafile);
    const sources = (outputs: string[]) =>
      outputs.flatMap((output) => Object.keys(metafile.outputs[output]?.inputs ?? {}));
    return { initial: sources(initial), lazy: sources(lazy) };
  }

  it('loads the VEX generators and the CVSS calculator only when a document is generated', () => {
    const { initial, lazy } = sourcesByLoad(bundleOf('vex').metafile);

    expect(
      initial.filter(
        (source) =>
          source.startsWith('shared/service/vex/formats/') || source.includes('node_modules/ae-cvss-calculator/'),
      ),
    ).toEqual([]);
    expect(lazy).toEqual(
      expect.arrayContaining([
        'shared/service/vex/formats/index.ts',
        'shared/service/vex/formats/csaf.ts',
        'shared/service/cvss/score.ts',
      ]),
    );
    expect(initial).toEqual(
      expect.arrayContaining(['functions/vex/handler.ts', 'shared/service/vex/vex-documents.ts']),
    );
  });

  it('loads the SBOM parsers with the first upload, and STS with the first tenant credentials', () => {
    const { initial, lazy } = sourcesByLoad(bundleOf('sboms').metafile);

    expect(
      initial.filter(
        (source) =>
          source.startsWith('shared/service/sbom/parse') || source.includes('node_modules/@aws-sdk/client-sts/'),
      ),
    ).toEqual([]);
    expect(lazy).toEqual(expect.arrayContaining(['shared/service/sbom/parse.ts']));
    expect(lazy.some((source) => source.includes('node_modules/@aws-sdk/client-sts/'))).toBe(true);
    // The SDK stays bundled: the DynamoDB client is part of the cold start, the S3 client a chunk of the bundle.
    expect(initial.some((source) => source.includes('node_modules/@aws-sdk/client-dynamodb/'))).toBe(true);
    expect(lazy.some((source) => source.includes('node_modules/@aws-sdk/client-s3/'))).toBe(true);
  });

  it.each(functionCatalog().map((spec) => spec.name))(
    'loads no S3, SQS, KMS, Secrets Manager or STS client in the %s function at cold start: each comes with its first call',
    (name) => {
      const { initial, lazy } = sourcesByLoad(bundleOf(name).metafile);
      const loadedOnFirstCall = (source: string) =>
        /node_modules\/@aws-sdk\/(client-(s3|sqs|kms|secrets-manager|sts)|s3-request-presigner)\//.test(source);

      expect(initial.filter(loadedOnFirstCall)).toEqual([]);
      // Those that use S3 have it as a chunk of the bundle (the SDK stays bundled).
      if (['releases', 'sboms', 'scans', 'vex', 'disclosures', 'scan-worker', 'corpus-refresh'].includes(name)) {
        expect(lazy.some((source) => source.includes('node_modules/@aws-sdk/client-s3/'))).toBe(true);
      }
    },
  );

  it('loads the S3 package in the products function only with a product delete (its one S3 use)', () => {
    const { initial, lazy } = sourcesByLoad(bundleOf('products').metafile);

    expect(initial.filter((source) => source === 'shared/service/data/object-prefix.ts')).toEqual([]);
    expect(lazy).toEqual(expect.arrayContaining(['shared/service/data/object-prefix.ts', 'shared/service/aws-s3.ts']));
  });

  it('writes chunks that load from the bundle directory in a fresh Node process, entry and lazy ones alike', () => {
    const { dir, metafile } = bundleOf('vex');
    const { initial, lazy } = coldStartOutputs(metafile);
    const files = [...initial, ...lazy].map((output) => join(PROJECT_ROOT, output));

    expect(lazy.length).toBeGreaterThan(0);
    expect(files.every((file) => file.startsWith(dir))).toBe(true);
    expect(lazy.every((output) => output.includes('/chunks/'))).toBe(true);
    const loaded = evaluate(
      join(dir, BUNDLE_FILE_NAME),
      `(async () => {
        const chunks = await Promise.all(${JSON.stringify(files.map((file) => pathToFileURL(file).href))}.map((url) => import(url)));
        return { handler: typeof m.handler, chunks: chunks.length };
      })()`,
      CHILD_ENV,
    );

    expect(loaded).toEqual({ handler: 'function', chunks: files.length });
  });
});

describe('what a Lambda bundle is built from', () => {
  it.each(functionCatalog().map((spec) => spec.name))(
    'the %s bundle holds only deployed code: nothing of the development runtime, the client, bin/, lib/, test/ or web/',
    (name) => {
      const projectFiles = inputsOf(bundleOf(name).metafile).filter((input) => !input.includes('node_modules/'));

      expect(projectFiles).toContain(`functions/${name}/handler.ts`);
      expect(projectFiles.filter((input) => !/^(functions|shared\/service)\//.test(input))).toEqual([]);
    },
  );
});
