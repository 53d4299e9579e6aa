/**
 * Each function's Lambda bundle, built once per infra run with `buildFunctionBundle` (what the stack's
 * CDK local bundling runs: the last suite of ../stack-functions.test.ts) and read by every test that looks at a
 * bundle or its esbuild metafile: the stack's staged assets (./synth.ts `bundles`), the bundle
 * checks, the cold start. A build of the 20 functions costs about 14 CPU-seconds.
 *
 * Built on first request, in the run's directory (./global-setup.ts), so a run of one file builds
 * only the bundles it reads. Test files run in several jest workers: a worker claims a function by
 * creating its lock directory (atomic) and builds it; a worker that finds the lock taken waits for
 * the metafile, written last, or for the error the builder left.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Metafile } from 'esbuild';
import { buildFunctionBundle } from '../../../lib/bundling';
import { functionCatalog, PROJECT_ROOT } from '../../../lib/function-catalog';
import { infraRunDir } from './global-setup';

export interface FunctionBundle {
  name: string;
  /** Absolute path of the function's entry (the catalog's `entry`). */
  entry: string;
  /** The bundle's directory: index.mjs, its chunks and their source maps, as the stack deploys them. */
  dir: string;
  metafile: Metafile;
}

/** Generous: on a loaded 2-core machine a worker may wait for the other to build all 20 functions. */
const WAIT_MS = 240_000;
/** How long a hook awaiting every bundle may take (jest's default of 60 s is too short under load). */
export const ALL_BUNDLES_TIMEOUT_MS = WAIT_MS + 30_000;
/** esbuild parallelises each build itself; two at a time keep both cores busy without holding 20 builds in memory. */
const CONCURRENT_BUILDS = 2;

const loaded = new Map<string, Promise<FunctionBundle>>();

let madeDir: string | undefined;

function bundlesDir(): string {
  if (madeDir) return madeDir;
  const runDir = infraRunDir();
  if (!runDir)
    throw new Error('Function bundles are built in the infra run directory: run this file in the infra project');
  madeDir = join(runDir, 'bundles');
  mkdirSync(madeDir, { recursive: true });
  return madeDir;
}

function pathsOf(name: string) {
  const base = join(bundlesDir(), name);
  return { dir: base, lock: `${base}.lock`, metafile: `${base}.metafile.json`, error: `${base}.error.txt` };
}

/** Another worker reads a file as soon as it exists: it appears whole (renamed into place), never half-written. */
function writeWhole(path: string, text: string): void {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, text);
  renameSync(partial, path);
}

async function build(name: string, entry: string): Promise<void> {
  const paths = pathsOf(name);
  try {
    const metafile = await buildFunctionBundle(entry, paths.dir);
    // Written last: its presence tells the other workers the bundle is complete.
    writeWhole(paths.metafile, JSON.stringify(metafile));
  } catch (error) {
    writeWhole(paths.error, error instanceof Error ? (error.stack ?? error.message) : String(error));
  }
}

async function awaitBuilt(name: string, entry: string): Promise<FunctionBundle> {
  const paths = pathsOf(name);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (existsSync(paths.metafile)) {
      const metafile = JSON.parse(readFileSync(paths.metafile, 'utf8')) as Metafile;
      return { name, entry, dir: paths.dir, metafile };
    }
    if (existsSync(paths.error))
      throw new Error(
        `esbuild could not bundle ${relative(PROJECT_ROOT, entry)}: ${readFileSync(paths.error, 'utf8')}`,
      );
    if (Date.now() > deadline) throw new Error(`Waited ${WAIT_MS / 1000} s for the ${name} bundle (${paths.lock})`);
    await sleep(100);
  }
}

/** Claim the functions no worker has claimed (a lock directory each) and build them, a few at a time. */
async function buildUnclaimed(entries: ReadonlyMap<string, string>): Promise<void> {
  const queue = [...entries.keys()].filter((name) => {
    try {
      mkdirSync(pathsOf(name).lock);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  });
  const builder = async (): Promise<void> => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) await build(name, entries.get(name)!);
  };
  await Promise.all(Array.from({ length: CONCURRENT_BUILDS }, builder));
}

/** The bundles of these catalog functions (every function when none are named), each built once per run. */
export async function functionBundles(names?: readonly string[]): Promise<Map<string, FunctionBundle>> {
  const catalog = new Map(functionCatalog().map((spec) => [spec.name, spec.entry]));
  const wanted = names ?? [...catalog.keys()];
  const unknown = wanted.filter((name) => !catalog.has(name));
  if (unknown.length > 0) throw new Error(`Not in the function catalog: ${unknown.join(', ')}`);
  // Not yet asked for in this process: claimed and built here, or awaited from the worker that claimed them.
  const fresh = new Map(wanted.filter((name) => !loaded.has(name)).map((name) => [name, catalog.get(name)!]));
  const building = buildUnclaimed(fresh);
  for (const [name, entry] of fresh)
    loaded.set(
      name,
      building.then(() => awaitBuilt(name, entry)),
    );
  const bundles = await Promise.all(wanted.map((name) => loaded.get(name)!));
  return new Map(bundles.map((bundle) => [bundle.name, bundle]));
}

/** One catalog function's bundle, built once per run. */
export async function functionBundle(name: string): Promise<FunctionBundle> {
  return (await functionBundles([name])).get(name)!;
}
