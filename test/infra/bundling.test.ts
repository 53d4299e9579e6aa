/**
 * lib/bundling.ts is the one source of the Lambda bundles: the stack builds
 * each function with it (lib/function-code.ts) and the bundle bench measures
 * the same options. These tests pin the settings and check that the plugins
 * do what they claim, on small bundles built and run here. What the functions'
 * own bundles hold is in ./function-bundles.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { build, type Metafile } from 'esbuild';
import {
  BUNDLE_FILE_NAME,
  bundleSettings,
  CHUNK_NAMES,
  esbuildOptions,
  lambdaCredentialsPlugin,
  purlCollatorPlugin,
  zodLocalesPlugin,
} from '../../lib/bundling';
import { PackageURL } from 'packageurl-js';
import { PROJECT_ROOT } from '../../lib/function-catalog';
import { evaluateBundle as evaluate } from './support/evaluate-bundle';

let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'vexdesk-bundling-test-'));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** Bundle `source` (resolved from the project root) with the Lambda options; returns the file and esbuild's metafile. */
async function bundleSource(name: string, source: string): Promise<{ file: string; metafile: Metafile }> {
  const file = join(workDir, name, BUNDLE_FILE_NAME);
  const result = await build({
    ...esbuildOptions('unused.ts', join(workDir, name)),
    entryPoints: undefined,
    // esbuild splits only builds with entry points; these sources import nothing lazily.
    splitting: false,
    stdin: { contents: source, resolveDir: PROJECT_ROOT, loader: 'ts' },
    metafile: true,
  });
  if (!result.metafile) throw new Error('no metafile');
  return { file, metafile: result.metafile };
}

/** How many locales zod's own locales index exports. */
function zodLocaleExports(): number {
  return readFileSync(join(PROJECT_ROOT, 'node_modules/zod/v4/locales/index.js'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('export { default as ')).length;
}

function inputsOf(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs);
}

describe('bundle settings', () => {
  it('builds minified ESM for Node 24 with an external source map, the require banner and every package inside', () => {
    const options = esbuildOptions('functions/products/handler.ts', 'out');

    expect(options).toMatchObject({
      entryPoints: ['functions/products/handler.ts'],
      outdir: 'out',
      entryNames: 'index',
      outExtension: { '.js': '.mjs' },
      splitting: true,
      chunkNames: CHUNK_NAMES,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      minify: true,
      sourcemap: true,
      sourcesContent: false,
      mainFields: ['module', 'main'],
      charset: 'utf8',
      // AWS SDK bundled: nothing is left for the runtime to provide.
      external: [],
    });
    expect(options.banner?.js).toContain('createRequire');
    expect(options.plugins?.map((plugin) => plugin.name)).toEqual([
      'vexdesk-zod-locales',
      'vexdesk-lambda-credentials',
      'vexdesk-purl-collator',
    ]);
    expect(bundleSettings.zodLocales).toEqual(['en']);
  });
});

describe('zod locales plugin', () => {
  const source = "import { z } from 'zod';\nexport { z };";
  let withPlugin: { file: string; metafile: Metafile };
  let withoutPlugin: Metafile;

  beforeAll(async () => {
    withPlugin = await bundleSource('zod', source);
    const plain = await build({
      ...esbuildOptions('unused.ts', join(workDir, 'zod-plain')),
      entryPoints: undefined,
      splitting: false,
      stdin: { contents: source, resolveDir: PROJECT_ROOT, loader: 'ts' },
      plugins: [],
      metafile: true,
      write: false,
    });
    if (!plain.metafile) throw new Error('no metafile');
    withoutPlugin = plain.metafile;
  });

  it('leaves only the English locale file in the bundle', () => {
    const locales = (metafile: Metafile): string[] =>
      inputsOf(metafile).filter((path) => /zod\/v4\/locales\/(?!index\.js)/.test(path));

    expect(locales(withPlugin.metafile)).toEqual(['node_modules/zod/v4/locales/en.js']);
    expect(locales(withoutPlugin).length).toBeGreaterThan(40);
  });

  it('keeps English messages, and the shape of z.locales with the dropped locales failing loudly', () => {
    const result = evaluate(
      withPlugin.file,
      `(() => {
        const { z } = m;
        let fr;
        try { z.locales.fr(); fr = 'no error'; } catch (error) { fr = error.message; }
        return {
          message: z.string().safeParse(1).error.issues[0].message,
          localeCount: Object.keys(z.locales).length,
          enHasErrorMap: typeof z.locales.en().localeError,
          fr,
        };
      })()`,
    );

    expect(result).toEqual({
      message: 'Invalid input: expected string, received number',
      localeCount: zodLocaleExports(),
      enHasErrorMap: 'function',
      fr: expect.stringContaining('zod locale "fr" is not bundled'),
    });
  });

  it('is a no-op for a build that does not use zod', async () => {
    const { metafile } = await build({
      stdin: { contents: 'export const x = 1;', loader: 'ts' },
      bundle: true,
      write: false,
      metafile: true,
      plugins: [zodLocalesPlugin()],
    });

    expect(inputsOf(metafile)).toEqual(['<stdin>']);
  });
});

describe('Lambda credentials plugin', () => {
  let bundle: { file: string; metafile: Metafile };

  beforeAll(async () => {
    bundle = await bundleSource(
      'credentials',
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\n" +
        "export const credentials = () => new DynamoDBClient({ region: 'eu-west-1' }).config.credentials();",
    );
  });

  it('bundles only the environment provider of the default chain: no SSO, ini, process, web identity or STS client', () => {
    const inputs = inputsOf(bundle.metafile);

    expect(inputs.some((path) => path.includes('node_modules/@aws-sdk/credential-provider-env/'))).toBe(true);
    // The stand-in module keeps the package's path (under the plugin's namespace); none of the package's own files is read.
    expect(
      inputs.filter((path) =>
        /^node_modules\/@aws-sdk\/(credential-provider-(node|ini|sso|process|web-identity|http|login)|nested-clients|token-providers)\//.test(
          path,
        ),
      ),
    ).toEqual([]);
    expect(inputs).toContain(
      'vexdesk-lambda-credentials:' +
        join(PROJECT_ROOT, 'node_modules/@aws-sdk/credential-provider-node/dist-es/index.js'),
    );
  });

  it('gives an SDK client the credentials Lambda puts in the environment', () => {
    const env = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' };

    expect(evaluate(bundle.file, 'm.credentials()', env)).toMatchObject({
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
    });
    expect(() => evaluate(bundle.file, 'm.credentials()')).toThrow(/Unable to find environment variable credentials/);
  });

  it('leaves non-SDK imports alone', async () => {
    const { metafile } = await build({
      stdin: { contents: 'export const x = 1;', loader: 'ts' },
      bundle: true,
      write: false,
      metafile: true,
      plugins: [lambdaCredentialsPlugin()],
    });

    expect(inputsOf(metafile)).toEqual(['<stdin>']);
  });
});

describe('packageurl-js collator plugin', () => {
  const PURLS = [
    'pkg:maven/org.apache.logging.log4j/log4j-core@2.12.1?type=jar&classifier=sources',
    'pkg:npm/%40angular/core@16.2.0',
    'pkg:pypi/Django_Rest@3.14.0#src/rest',
    'pkg:deb/debian/openssl@3.0.11-1~deb12u2?distro=debian-12&arch=amd64',
  ];
  /** What the installed library answers: canonical strings, and the component names in its order. */
  const installed = () => ({
    purls: PURLS.map((purl) => PackageURL.fromString(purl).toString()),
    components: Object.keys(PackageURL.Component),
  });

  it('builds no Intl.Collator while the bundle loads, and answers exactly as the installed library', async () => {
    const { file } = await bundleSource(
      'purl',
      "import { PackageURL } from 'packageurl-js';\n" +
        `export const answers = () => ({ purls: ${JSON.stringify(PURLS)}.map((purl) => PackageURL.fromString(purl).toString()), components: Object.keys(PackageURL.Component) });`,
    );
    // Counts the collators built while the bundle loads.
    const script = `let built = 0; const Collator = Intl.Collator; Intl.Collator = function (...args) { built += 1; return new Collator(...args); };
      const m = await import(${JSON.stringify(pathToFileURL(file).href)}); const atLoad = built;
      process.stdout.write(JSON.stringify({ atLoad, ...m.answers() }));`;
    const result = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8' }),
    ) as unknown;

    expect(result).toEqual({ atLoad: 0, ...installed() });
  });

  it('fails the build, naming the plugin, when the library no longer has the code it rewrites', async () => {
    const changed = join(workDir, 'node_modules/packageurl-js/src');
    mkdirSync(changed, { recursive: true });
    writeFileSync(join(changed, 'strings.js'), 'exports.localeCompare = (a, b) => a.localeCompare(b);\n');
    const building = build({
      entryPoints: [join(changed, 'strings.js')],
      bundle: true,
      write: false,
      logLevel: 'silent',
      plugins: [purlCollatorPlugin()],
    });

    await expect(building).rejects.toThrow(/Update purlCollatorPlugin in lib\/bundling\.ts/);
  });
});
