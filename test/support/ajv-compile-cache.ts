/**
 * Setup file of the jest projects that validate documents: remembers what ajv compiles, across test files and runs.
 *
 * Jest gives every test file its own module registry, so every file that validates a VEX document
 * compiled the official schemas again, and @secvisogram/csaf-validator-lib compiles some sixty
 * schemas when it loads, each of its JTD instances the JTD meta-schema too: about ten CPU seconds
 * per file. Here every compilation (compile, getSchema, the meta-schema check) first looks in
 * node_modules/.cache/ajv-standalone for the standalone code (ajv/dist/standalone) that ajv
 * generated for the same schema on an instance in the same state; on a miss it compiles as always
 * and stores that code for the next file and the next run.
 *
 * The key covers everything the generated code depends on: ajv's version and class, the options,
 * the formats and keywords, every schema the instance knows (refs resolve through them) and the
 * schema itself. A hit returns ajv's own generated code, so validation and its errors are the same;
 * formats that are functions are taken from the live instance, not from the cache.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { AnySchema, AnyValidateFunction } from 'ajv/dist/core';
import type AjvCore from 'ajv/dist/core';
import type * as Codegen from 'ajv/dist/compile/codegen';
import type * as Standalone from 'ajv/dist/standalone';

const requireFromRoot = createRequire(import.meta.url);
const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/ajv-standalone/', import.meta.url));
/** The identifier the generated code reads function formats through (ajv's `code.formats` option). */
const FORMATS_PARAM = 'liveAjvFormats';

/** The part of a compiled schema's environment (ajv/dist/compile SchemaEnv) that decides its code. */
interface SchemaEnv {
  schema: AnySchema;
  root: SchemaEnv;
  baseId: string;
  schemaPath?: string;
  meta?: boolean;
}
interface AjvInternals {
  opts: AjvCore['opts'];
  _metaOpts: AjvCore['opts'];
  formats: Record<string, unknown>;
  schemas: Record<string, { schema: AnySchema } | undefined>;
  refs: Record<string, { schema: AnySchema } | string | undefined>;
  RULES: { all: Record<string, unknown> };
  _compileSchemaEnv(sch: SchemaEnv): AnyValidateFunction;
}

const ajvCore = requireFromRoot('ajv/dist/core') as { default: { prototype: AjvInternals } };
const codegen = requireFromRoot('ajv/dist/compile/codegen') as typeof Codegen;
const standaloneCode = (requireFromRoot('ajv/dist/standalone') as typeof Standalone).default;
const EQUAL_MODULE = 'ajv/dist/runtime/equal';
const deepEqual = (requireFromRoot(EQUAL_MODULE) as { default: (a: unknown, b: unknown) => boolean }).default;
const ajvVersion = (requireFromRoot('ajv/package.json') as { version: string }).version;

/**
 * JSON with functions and regular expressions as their source, so code changes change the key.
 * An object met again (fast-uri, the URI resolver in the options, is its own `default`) is written once.
 */
function serialize(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'function' || v instanceof RegExp) return `${(v as { toString(): string }).toString()}`;
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return '[seen]';
      seen.add(v);
    }
    return v;
  });
}

const digests = new WeakMap<object, string>();
/** Schemas and definitions are never changed once given to ajv, so each is hashed once per file. */
function digest(value: unknown): string {
  if (typeof value !== 'object' || value === null) return serialize(value);
  let known = digests.get(value);
  if (known === undefined) {
    known = createHash('sha256').update(serialize(value)).digest('hex');
    digests.set(value, known);
  }
  return known;
}

function cacheKey(ajv: AjvInternals, sch: SchemaEnv): string {
  const sorted = (record: Record<string, unknown>, describe: (v: unknown) => string): string[][] =>
    Object.keys(record)
      .sort()
      .map((name) => [name, describe(record[name])]);
  const schemaDigest = (entry: unknown): string =>
    typeof entry === 'object' && entry !== null ? digest((entry as { schema: AnySchema }).schema) : serialize(entry);
  const state = [
    ajvVersion,
    ajv.constructor.name,
    // Meta-schemas compile with the meta-schema options.
    sch.meta === true ? ['meta', digest(ajv._metaOpts)] : digest(ajv.opts),
    sorted(ajv.formats, digest),
    sorted(ajv.RULES.all, digest),
    sorted(ajv.schemas, schemaDigest),
    // refs[''] is the last schema compiled without an $id (ajv files each one there); it would give the
    // meta-schema a new key for every such schema, though a meta-schema never refers to it.
    sorted(ajv.refs, schemaDigest).filter(([id]) => id !== ''),
    // A fragment (getSchema('id#/...')) compiles within its root schema.
    [digest(sch.root.schema), sch.baseId, sch.schemaPath ?? null],
    digest(sch.schema),
  ];
  return createHash('sha256').update(JSON.stringify(state)).digest('hex');
}

/**
 * The JSON text of a plain JSON value with its keys sorted, or null for anything else (undefined,
 * functions, class instances, keys that fast-deep-equal treats specially). Deep-equal values
 * (fast-deep-equal: same keys in any order, NaN equal to NaN, -0 to 0) have the same text.
 */
function canonical(value: unknown): string | null {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'object') return null;
  const parts: string[] = [];
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return null;
    for (let i = 0; i < value.length; i++) {
      const part = canonical(value[i]);
      if (part === null) return null;
      parts.push(part);
    }
    return `[${parts.join(',')}]`;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return null;
  for (const key of Object.keys(value).sort()) {
    if (SPECIAL_KEYS.has(key)) return null;
    const part = canonical((value as Record<string, unknown>)[key]);
    if (part === null) return null;
    parts.push(`${JSON.stringify(key)}:${part}`);
  }
  return `{${parts.join(',')}}`;
}
/** Keys that fast-deep-equal reads as methods (a document may carry them as data). */
const SPECIAL_KEYS = new Set(['constructor', 'valueOf', 'toString', '__proto__']);

let fingerprints = new WeakMap<object, string | null>();
let forgetQueued = false;
function fingerprint(value: object): string | null {
  let known = fingerprints.get(value);
  if (known === undefined) {
    const text = canonical(value);
    known = text === null ? null : createHash('sha256').update(text).digest('base64');
    fingerprints.set(value, known);
    // A validation runs synchronously; data may change between validations, so fingerprints last one task.
    if (!forgetQueued) {
      forgetQueued = true;
      queueMicrotask(() => {
        fingerprints = new WeakMap();
        forgetQueued = false;
      });
    }
  }
  return known;
}

/**
 * ajv's deep equality (fast-deep-equal), first comparing fingerprints of plain JSON objects: `uniqueItems` over
 * 2,000 objects makes two million comparisons, and unequal fingerprints prove inequality. Equal fingerprints, and
 * anything not plain JSON, go to fast-deep-equal itself, so every answer (and every exception) is the same.
 */
function fingerprintedEqual(a: unknown, b: unknown): boolean {
  if (a !== b && typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const fa = fingerprint(a);
    if (fa !== null) {
      const fb = fingerprint(b);
      if (fb !== null && fa !== fb) return false;
    }
  }
  return deepEqual(a, b);
}

function load(ajv: AjvInternals, file: string): AnyValidateFunction | undefined {
  let code: string;
  try {
    code = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // Options that change the data while validating would outdate a fingerprint within one validation.
  const { useDefaults, removeAdditional, coerceTypes } = ajv.opts;
  const fingerprinted = !useDefaults && !removeAdditional && !coerceTypes;
  const requireForCode = (id: string): unknown =>
    id === EQUAL_MODULE && fingerprinted ? { default: fingerprintedEqual } : requireFromRoot(id);
  const module = { exports: {} as AnyValidateFunction };
  // The generated CommonJS module, in this test file's realm; its require() loads ajv's runtime helpers.
  // oxlint-disable-next-line typescript/no-implied-eval -- ajv's own generated code, as ajv itself evaluates it
  new Function('module', 'exports', 'require', FORMATS_PARAM, code)(
    module,
    module.exports,
    requireForCode,
    ajv.formats,
  );
  return module.exports;
}

function store(file: string, code: string): void {
  mkdirSync(CACHE_DIR, { recursive: true });
  // Two workers may compile the same schema at once; rename keeps every reader to a whole file.
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, file);
}

let bypass = false;
const stats = { loaded: 0, compiled: 0 };

/** How many schemas this test file's ajv instances loaded from the cache and compiled (and stored). */
export function compileCacheStats(): { loaded: number; compiled: number } {
  return { ...stats };
}

/** Runs `run` with ajv's own compiler only, neither reading nor filling the cache: the reference for the cache. */
export function withoutCompileCache<T>(run: () => T): T {
  bypass = true;
  try {
    return run();
  } finally {
    bypass = false;
  }
}

function install(): void {
  const proto = ajvCore.default.prototype as AjvInternals & { compileCached?: true };
  if (proto.compileCached === true) return;
  const compileSchemaEnv = proto._compileSchemaEnv;
  // ajv keeps a compiled function on its schema environment; one loaded from the cache is kept here instead, so
  // that a schema compiled later that refers to this one still compiles with its source (and can be cached).
  const loaded = new WeakMap<SchemaEnv, AnyValidateFunction>();
  proto.compileCached = true;
  // Every compile, getSchema and meta-schema check that needs code comes through here (ajv/dist/core.js).
  proto._compileSchemaEnv = function compileOrLoad(this: AjvInternals, sch: SchemaEnv): AnyValidateFunction {
    if (bypass) return compileSchemaEnv.call(this, sch);
    const known = loaded.get(sch);
    if (known !== undefined) return known;
    // Generated code must keep its source (for standalone export) and read function formats from this instance
    // (also where ajv-formats would have it require its own module).
    // `_metaOpts` shares this `code` object.
    this.opts.code.source = true;
    this.opts.code.formats = codegen._`${new codegen.Name(FORMATS_PARAM)}`;
    const file = `${CACHE_DIR}${cacheKey(this, sch)}.cjs`;
    const cached = load(this, file);
    if (cached !== undefined) {
      loaded.set(sch, cached);
      stats.loaded += 1;
      return cached;
    }
    const validate = compileSchemaEnv.call(this, sch);
    let code: string | undefined;
    try {
      code = standaloneCode(this as unknown as AjvCore, validate);
    } catch {
      // A schema referring to one loaded from the cache has no complete source; it compiles each time.
    }
    if (code !== undefined) store(file, code);
    stats.compiled += 1;
    return validate;
  };
}

install();
