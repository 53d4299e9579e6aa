/**
 * V8's code cache for the modules a jest worker compiles again in every test file.
 *
 * Jest gives each test file a module registry of its own, so a worker compiles the AWS SDK, zod, the service's
 * modules and the test support anew for every file it runs, in `vm.compileFunction` (CommonJS packages) and
 * `SourceTextModule` (the project's files and ES-module packages): 18.7 s over an integration and security run's
 * workers, 9.1 s with this cache.
 * The first compile of a module's source in a worker keeps V8's code cache of it, and later compiles of the same
 * file with the same source hand it to V8 (`cachedData`), which then skips parsing what the cache holds. V8 checks
 * the cache against the source and its own flags and compiles normally when it does not fit
 * (`cachedDataRejected`). Each file still gets its own functions and module instances in its own context: only
 * the compiled code, which is context-independent, is shared (docs/testing.md "What makes the suite cheaper to run").
 */
import vm from 'node:vm';

interface CachedCompile {
  source: string;
  data: Buffer;
}

/** By file name (or module identifier); an entry is used only for the very source it was made from. */
const compiled = new Map<string, CachedCompile>();

function cachedDataFor(name: string | undefined, source: string): Buffer | undefined {
  if (name === undefined) return undefined;
  const entry = compiled.get(name);
  return entry?.source === source ? entry.data : undefined;
}

function remember(name: string | undefined, source: string, data: Buffer | undefined): void {
  if (name !== undefined && data !== undefined) compiled.set(name, { source, data });
}

type CompileFunctionOptions = NonNullable<Parameters<typeof vm.compileFunction>[2]>;
type CompiledFunction = ReturnType<typeof vm.compileFunction> & { cachedData?: Buffer; cachedDataProduced?: boolean };

let installed = false;

/** Wraps `vm.compileFunction` and `vm.SourceTextModule` of this process, once. */
export function installCompileCache(): void {
  if (installed) return;
  installed = true;

  const compileFunction = vm.compileFunction;
  vm.compileFunction = function compileFunctionWithCache(
    source: string,
    params?: readonly string[],
    options: CompileFunctionOptions = {},
  ): CompiledFunction {
    const cachedData = cachedDataFor(options.filename, source);
    if (cachedData) return compileFunction(source, params, { ...options, cachedData });
    const compiledFunction: CompiledFunction = compileFunction(source, params, { ...options, produceCachedData: true });
    if (compiledFunction.cachedDataProduced) remember(options.filename, source, compiledFunction.cachedData);
    return compiledFunction;
  };

  // Present only with --experimental-vm-modules, which the jest scripts pass.
  const SourceTextModule = vm.SourceTextModule as typeof vm.SourceTextModule | undefined;
  if (!SourceTextModule) return;
  // Node has both since v13.7; @types/node declares neither.
  type ModuleOptions = NonNullable<ConstructorParameters<typeof vm.SourceTextModule>[1]> & { cachedData?: Buffer };
  type ModuleWithCache = vm.SourceTextModule & { createCachedData(): Buffer };
  vm.SourceTextModule = class SourceTextModuleWithCache extends SourceTextModule {
    constructor(source: string, options?: ModuleOptions) {
      const cachedData = cachedDataFor(options?.identifier, source);
      super(source, cachedData ? { ...options, cachedData } : options);
      // Made before the module is linked or evaluated, as V8 requires.
      if (!cachedData) remember(options?.identifier, source, (this as unknown as ModuleWithCache).createCachedData());
    }
  };
}
