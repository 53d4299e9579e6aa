/**
 * The local server (bin/start.ts), the admin CLI (bin/admin.ts) and the engines alone (./engines-process.ts) bundled
 * with esbuild for the test run: a server start costs a quarter to a third less CPU than from source through tsx's
 * loader, which compiles every module each time, and an admin command half (docs/testing.md "What makes the suite
 * cheaper").
 *
 * The bundle lives under the project's node_modules/.cache/: Node resolves the packages left out of it from the
 * bundle's own directory. Every project file keeps its own
 * `import.meta.url` and `import.meta.dirname` (the plugin below writes them in as literals), so paths built from
 * them (the sample corpus, the engine worker's entry, `createRequire`) resolve as when run from source.
 *
 * Built once and reused while no input is newer than it. Several jest workers and test lanes may ask at once: each
 * takes a lock directory to build (as test/infra/support/function-bundles.ts does) or waits for the one building;
 * a build goes into a directory of its own, named in current.json (replaced by rename, atomic), so a server
 * started from an older build keeps its files.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../..');
const CACHE_DIR = join(ROOT, 'node_modules/.cache/vexdesk-server');
const POINTER = join(CACHE_DIR, 'current.json');
const LOCK = join(CACHE_DIR, 'building.lock');
/** The project files the bundle was built from (relative to the root), to tell when it is stale. */
const INPUTS_FILE = 'inputs.json';

/**
 * Text a plugin rewrites in one source file; the build fails if the text is gone (the source changed under it), so
 * the bundle never silently runs a path it did not mean to.
 */
interface Rewrite {
  file: string;
  from: string;
  to: string;
}

/**
 * The engine worker thread (shared/local/engine-worker.ts) is a bundle entry of its own: the server's bundle starts
 * it from the bundle's directory, and it imports the engines directly, where the source loads them through tsx's
 * `tsImport` (which compiles each engine module on every start).
 */
const BUNDLED_ENGINE_WORKER: Rewrite[] = [
  {
    file: 'shared/local/engines.ts',
    from: "new URL('./engine-worker.ts', import.meta.url)",
    to: "new URL('./engine-worker.mjs', import.meta.url)",
  },
  {
    file: 'shared/local/engine-worker.ts',
    from: "import { tsImport } from 'tsx/esm/api';\n",
    to: '',
  },
  {
    file: 'shared/local/engine-worker.ts',
    from: "tsImport('./engine-pair.ts', import.meta.url)",
    to: "import('./engine-pair')",
  },
];

/**
 * Applies the rewrites, then replaces `import.meta.url`/`dirname`/`filename` in each project file with that file's
 * own, as written.
 */
function projectSources(rewrites: Rewrite[]): Plugin {
  return {
    name: 'project-sources',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
        const file = relative(ROOT, path);
        if (file.startsWith('node_modules')) return undefined;
        const source = await readFile(path, 'utf8');
        // Rewritten text goes in last, so an `import.meta.url` in it stays the bundle's own.
        const ours = rewrites.filter((rewrite) => rewrite.file === file);
        let marked = source;
        ours.forEach(({ from }, index) => {
          if (!marked.includes(from)) throw new Error(`${file} no longer contains ${JSON.stringify(from)}`);
          marked = marked.replace(from, `\0rewrite-${index}\0`);
        });
        let contents = marked
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)))
          .replaceAll('import.meta.filename', JSON.stringify(path));
        ours.forEach(({ to }, index) => {
          contents = contents.replace(`\0rewrite-${index}\0`, to);
        });
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** The bundle in use: a directory named in current.json, replaced (never changed) by a rebuild. */
function currentDir(): string | undefined {
  try {
    const { dir } = JSON.parse(readFileSync(POINTER, 'utf8')) as { dir: string };
    return existsSync(join(CACHE_DIR, dir, INPUTS_FILE)) ? join(CACHE_DIR, dir) : undefined;
  } catch {
    return undefined;
  }
}

interface BuildInputs {
  /** When the build started: a file changed since (even during the build) makes it stale. */
  builtFrom: number;
  /** Relative to the project root. */
  inputs: string[];
}

function isFresh(dir: string): boolean {
  try {
    const { builtFrom, inputs } = JSON.parse(readFileSync(join(dir, INPUTS_FILE), 'utf8')) as BuildInputs;
    return inputs.every((input) => statSync(join(ROOT, input)).mtimeMs < builtFrom);
  } catch {
    return false; // an input deleted or moved, or a build of an older version of this module: rebuild
  }
}

async function buildBundle(): Promise<string> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const name = `${Date.now()}-${process.pid}`;
  const dir = join(CACHE_DIR, name);
  const builtFrom = Date.now();
  const result = await build({
    entryPoints: {
      start: join(ROOT, 'bin/start.ts'),
      admin: join(ROOT, 'bin/admin.ts'),
      'engines-process': join(ROOT, 'test/support/engines-process.ts'),
      'engine-worker': join(ROOT, 'shared/local/engine-worker.ts'),
    },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true, // each function group's handler in a chunk of its own, read when its first request comes
    platform: 'node',
    format: 'esm',
    target: 'node24',
    // Packages are bundled too: Node's CommonJS loader reading them one file at a time is most of what a bundle of
    // the project's files alone leaves. classic-level finds its native addon next to its own files; dynalite and
    // s3rver are required through createRequire (shared/local/embedded-*.ts), so they load from node_modules anyway.
    external: ['classic-level'],
    mainFields: ['module', 'main'],
    charset: 'utf8',
    // Read only with NODE_OPTIONS=--enable-source-maps (when a server's stack trace should name the sources).
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'error',
    plugins: [projectSources(BUNDLED_ENGINE_WORKER)],
    banner: {
      js: "import { createRequire as __vexdeskCreateRequire } from 'node:module'; const require = __vexdeskCreateRequire(import.meta.url);",
    },
  });
  checkCommonJsChunks(dir);
  // The project's own files, the lockfile for the packages (npm install rewrites it), and how the bundle is made.
  const inputs = [
    'package-lock.json',
    relative(ROOT, import.meta.filename),
    ...Object.keys(result.metafile.inputs).filter((input) => !input.startsWith('node_modules/')),
  ];
  writeFileSync(join(dir, INPUTS_FILE), JSON.stringify({ builtFrom, inputs } satisfies BuildInputs));
  const partial = `${POINTER}.${name}`;
  writeFileSync(partial, JSON.stringify({ dir: name }));
  renameSync(partial, POINTER);
  pruneOldBuilds(name);
  return dir;
}

/**
 * A CommonJS package reached only through `await import()` gets a chunk that exports `default` alone, so a named
 * export read from that import is undefined in the bundle (and in the Lambda bundles), though Node's loader gives
 * it when run from source. Such imports go through `commonJsExports` (shared/service/common-js.ts).
 */
function checkCommonJsChunks(dir: string): void {
  const files = readdirSync(dir).filter((file) => file.endsWith('.mjs'));
  const defaultOnly = files.filter((file) =>
    /^export default require_\w+\(\);$/m.test(readFileSync(join(dir, file), 'utf8')),
  );
  for (const file of files) {
    const source = readFileSync(join(dir, file), 'utf8');
    for (const chunk of defaultOnly) {
      const imports = source.split(`import("./${chunk}")`).length - 1;
      const wrapped = source.split(`commonJsExports(await import("./${chunk}"))`).length - 1;
      if (imports > wrapped)
        throw new Error(
          `${file} imports the CommonJS chunk ${chunk} without commonJsExports: its named exports are undefined`,
        );
    }
  }
}

/** Servers started from an older build may still load its chunks: only builds an hour old go. */
function pruneOldBuilds(keep: string): void {
  for (const entry of readdirSync(CACHE_DIR, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === keep || join(CACHE_DIR, entry.name) === LOCK) continue;
    const path = join(CACHE_DIR, entry.name);
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}

/** A build takes a few seconds; a lock older than this was left by a process that died building. */
const STALE_LOCK_MS = 120_000;

async function freshBundleDir(): Promise<string> {
  const deadline = Date.now() + 2 * STALE_LOCK_MS;
  for (;;) {
    const dir = currentDir();
    if (dir && isFresh(dir)) return dir;
    mkdirSync(CACHE_DIR, { recursive: true });
    try {
      mkdirSync(LOCK); // atomic: one process builds, the others wait for its current.json
    } catch {
      if (Date.now() > deadline) throw new Error(`no server bundle appeared while ${LOCK} was held`);
      const lock = statSync(LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      await sleep(200);
      continue;
    }
    try {
      return await buildBundle();
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

let ready: Promise<string> | undefined;

function bundleDir(): Promise<string> {
  ready ??= freshBundleDir();
  return ready;
}

/** The bundled server's entry file, built first if missing or older than any of its sources. */
export async function serverBundle(): Promise<string> {
  return join(await bundleDir(), 'start.mjs');
}

/**
 * The Node flags `npm start` runs the server with (package.json's `start` script: its young generation and heap
 * growth), so a test server's garbage collector works as a user's does; without them the test servers spent about a
 * tenth more CPU.
 */
export function startNodeFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.split(/\s+/);
  const flags = words.slice(words.indexOf('node') + 1, words.indexOf('--import'));
  if (flags.some((flag) => !flag.startsWith('--'))) throw new Error(`unexpected start script: ${scripts.start}`);
  return flags;
}

/** The bundled admin CLI (bin/admin.ts), from the same build. */
export async function adminBundle(): Promise<string> {
  return join(await bundleDir(), 'admin.mjs');
}

/** The engines alone (./engines-process.ts), from the same build. */
export async function enginesProcessBundle(): Promise<string> {
  return join(await bundleDir(), 'engines-process.mjs');
}
