/**
 * The one place the Lambda bundles are configured. The stack builds every
 * function with `buildFunctionBundle` (through lib/function-code.ts), and the
 * bundle bench (test/bench/bundles.ts) builds the same `esbuildOptions`, so the
 * sizes and load times it reports are the deployed ones.
 *
 * esbuild's JS API rather than NodejsFunction: NodejsFunction runs the esbuild
 * CLI, which takes no plugins, and two of the savings below need plugins (a CLI
 * `--alias` only rewrites package names, while zod imports its locales by
 * relative path). No aws-cdk-lib import here: the bundling child process
 * (lib/build-function.ts) loads this file and nothing heavier.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';

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
  format: 'esm',
  minify: true,
  /**
   * External source map, read only when a stack trace is formatted (shared/service/source-mapped-stacks.ts):
   * the functions run without --enable-source-maps, which parses every chunk's map at cold start.
   */
  sourceMap: true,
  /** The map points at the repo's files; embedding their text would only grow the asset. */
  sourcesContent: false,
  /** Prefer packages' ESM builds (the AWS SDK ships both): better tree shaking, smaller bundles. */
  mainFields: ['module', 'main'],
  banner: REQUIRE_BANNER,
  /** Keep non-ASCII text as UTF-8 instead of \uXXXX escapes. Node reads sources as UTF-8. */
  charset: 'utf8',
  /**
   * Bundle the AWS SDK instead of using the runtime's copy: the version we test
   * is the version we run, and a tree-shaken SDK loads faster than the full one.
   */
  externalModules: [] as string[],
  /** zod error-message locales kept in the bundle (the API answers in English). */
  zodLocales: ['en'] as readonly string[],
} as const;

/** File name of the bundle's entry; the Lambda handler string is `index.handler`. */
export const BUNDLE_FILE_NAME = 'index.mjs';
/**
 * Code splitting: a module reached only through `await import()` goes to its
 * own file under chunks/ and is read, compiled and run only when that code
 * path first runs, so rarely used heavy code (VEX generators, the report
 * template engine, STS) costs nothing at cold start. Modules shared by the
 * entry and a lazy chunk land in chunks the entry imports statically.
 */
export const CHUNK_NAMES = 'chunks/[name]-[hash]';
export const LAMBDA_HANDLER = 'index.handler';

const ZOD_LOCALES_INDEX = /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/;
const ZOD_LOCALE_EXPORT = /^export \{ default as (\w+) \} from "\.\/([\w-]+)\.js";$/;

/**
 * zod re-exports every error-message locale (`z.locales`, `z.core.locales`)
 * through a namespace object, which esbuild cannot tree-shake: about 190 KB of
 * non-English messages in every bundle. This keeps the listed locales and
 * replaces the others with functions that throw, so the namespace keeps its
 * shape and a call to a dropped locale fails loudly instead of quietly.
 * zod's default configuration imports `en.js` directly and is unaffected.
 */
export function zodLocalesPlugin(keep: readonly string[] = bundleSettings.zodLocales): Plugin {
  return {
    name: 'vexdesk-zod-locales',
    setup(builder) {
      builder.onLoad({ filter: ZOD_LOCALES_INDEX }, async ({ path }) => {
        const lines = (await readFile(path, 'utf8')).split('\n').filter((line) => line.trim() !== '');
        const contents = lines.map((line) => {
          const match = ZOD_LOCALE_EXPORT.exec(line.trim());
          if (!match)
            throw new Error(
              `Unexpected line in ${path}: "${line}". Update zodLocalesPlugin in lib/bundling.ts for this zod version.`,
            );
          const name = match[1] ?? '';
          return keep.includes(name) ? line : `export const ${name} = notBundled(${JSON.stringify(name)});`;
        });
        const notBundled = `const notBundled = (name) => () => { throw new Error(\`zod locale "\${name}" is not bundled (lib/bundling.ts keeps ${keep.join(', ')})\`); };`;
        return { contents: [notBundled, ...contents].join('\n'), loader: 'js' };
      });
    },
  };
}

const PACKAGEURL_SOURCES = /[\\/]node_modules[\\/]packageurl-js[\\/]src[\\/](strings|purl-component)\.js$/;
/** Each rewritten file's exact text and its replacement; the build fails when a file no longer has it. */
const PACKAGEURL_REWRITES: Record<string, { from: string; to: string }> = {
  strings: {
    from: 'const { compare: localeCompare } = new Intl.Collator()',
    to: 'let collator; const localeCompare = (a, b) => (collator ??= new Intl.Collator()).compare(a, b)',
  },
  'purl-component': {
    from: 'function componentComparator(compA, compB) {\n    return localeCompare(componentSortOrder(compA), componentSortOrder(compB))\n}',
    to: [
      'function componentComparator(compA, compB) {',
      '    const orderA = componentSortOrder(compA), orderB = componentSortOrder(compB)',
      "    return typeof orderA === 'number' && typeof orderB === 'number' ? orderA - orderB : localeCompare(orderA, orderB)",
      '}',
    ].join('\n'),
  },
};

/**
 * packageurl-js builds an `Intl.Collator` when it loads (~5 ms of ICU set-up, in the cold start of
 * every function that reads package URLs) for one sort at load: the order of its own component
 * names, whose sort keys are the numbers 0-7, compared as the strings "0"-"7". This builds the
 * collator on first use and compares two numeric keys as numbers, the same order the collator
 * gives single digits; every other comparison still goes through the collator. Tests compare the
 * bundled library with the installed one.
 */
export function purlCollatorPlugin(): Plugin {
  return {
    name: 'vexdesk-purl-collator',
    setup(builder) {
      builder.onLoad({ filter: PACKAGEURL_SOURCES }, async ({ path }) => {
        const file = PACKAGEURL_SOURCES.exec(path)?.[1] ?? '';
        const rewrite = PACKAGEURL_REWRITES[file];
        const source = await readFile(path, 'utf8');
        if (!rewrite || !source.includes(rewrite.from))
          throw new Error(
            `${path} no longer has the code purlCollatorPlugin rewrites. Update purlCollatorPlugin in lib/bundling.ts for this packageurl-js version.`,
          );
        return { contents: source.replace(rewrite.from, rewrite.to), loader: 'js' };
      });
    },
  };
}

const CREDENTIAL_PROVIDER_NODE = /^@aws-sdk\/credential-provider-node$/;
const CREDENTIALS_NAMESPACE = 'vexdesk-lambda-credentials';
const RESOLVING = Symbol('resolving the real package');

/**
 * Every SDK client's default credentials come from `@aws-sdk/credential-provider-node`:
 * a chain of environment, SSO, ini profiles, credential_process, web identity
 * and container/instance metadata, plus the STS, SSO and sign-in clients those
 * need (about 110 KB). On Lambda the first link, the environment variables the
 * runtime sets from the execution role, always answers; the rest never runs.
 * The bundles get a default provider that is exactly that link (`fromEnv` of
 * the same SDK version). Code run outside Lambda (local server, tests, CLI)
 * is not bundled and keeps the full chain.
 */
export function lambdaCredentialsPlugin(): Plugin {
  return {
    name: 'vexdesk-lambda-credentials',
    setup(builder) {
      builder.onResolve({ filter: CREDENTIAL_PROVIDER_NODE }, async (args) => {
        if (args.pluginData === RESOLVING) return undefined;
        // Resolve the real package first, so fromEnv comes from the version the SDK pins.
        const real = await builder.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: RESOLVING,
        });
        if (real.errors.length > 0) return { errors: real.errors };
        return { path: real.path, namespace: CREDENTIALS_NAMESPACE };
      });
      builder.onLoad({ filter: /.*/, namespace: CREDENTIALS_NAMESPACE }, ({ path }) => ({
        contents: [
          "import { fromEnv } from '@aws-sdk/credential-provider-env';",
          "/** Lambda: the execution role's credentials are in the environment (see lib/bundling.ts). */",
          'export const defaultProvider = (init = {}) => fromEnv(init);',
        ].join('\n'),
        loader: 'js',
        resolveDir: dirname(path),
      }));
    },
  };
}

/** esbuild's JS API options of one function bundle, written to `outdir` (the bench builds exactly these). */
export function esbuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: [entry],
    outdir,
    // index.mjs: the entry's name with the .mjs extension below.
    entryNames: 'index',
    chunkNames: CHUNK_NAMES,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    bundle: true,
    platform: 'node',
    format: bundleSettings.format,
    target: bundleSettings.target,
    minify: bundleSettings.minify,
    sourcemap: bundleSettings.sourceMap,
    sourcesContent: bundleSettings.sourcesContent,
    mainFields: [...bundleSettings.mainFields],
    banner: { js: bundleSettings.banner },
    charset: bundleSettings.charset,
    external: [...bundleSettings.externalModules],
    plugins: [zodLocalesPlugin(), lambdaCredentialsPlugin(), purlCollatorPlugin()],
    logLevel: 'warning',
  };
}

/**
 * The output files of one build split into what loading the entry reads (the
 * entry and the chunks it imports statically, transitively) and the lazy rest
 * (chunks reached only through `await import()`); source maps in neither.
 */
export function coldStartOutputs(metafile: Metafile): { initial: string[]; lazy: string[] } {
  const outputs = metafile.outputs;
  // Not the first output with an `entryPoint`: esbuild gives one to every `await import()` chunk too.
  const entry = Object.keys(outputs).find((path) => path === BUNDLE_FILE_NAME || path.endsWith(`/${BUNDLE_FILE_NAME}`));
  if (entry === undefined) throw new Error(`metafile has no ${BUNDLE_FILE_NAME} output`);
  const initial = new Set<string>();
  const pending = [entry];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (initial.has(path)) continue;
    initial.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) pending.push(imported.path);
    }
  }
  const code = Object.keys(outputs).filter((path) => !path.endsWith('.map'));
  return { initial: [...initial], lazy: code.filter((path) => !initial.has(path)) };
}

/** Runs before the handler's module in every function bundle: the configuration check of the init phase. */
export const COLD_START_CHECK = fileURLToPath(new URL('../shared/service/cold-start.ts', import.meta.url));

/** Build `<outDir>/index.mjs` and its chunks (+ `.map`s) for one function entry; the metafile lists what went in. */
export async function buildFunctionBundle(entry: string, outDir: string): Promise<Metafile> {
  const result = await build({ ...esbuildOptions(entry, outDir), inject: [COLD_START_CHECK], metafile: true });
  if (!result.metafile) throw new Error(`esbuild returned no metafile for ${entry}`);
  return result.metafile;
}
