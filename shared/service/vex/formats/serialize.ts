/** Canonical JSON: keys in UTF-16 code-unit order at every level, arrays as given, `undefined` dropped. */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function keysSorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}

/**
 * `value` itself when it is already canonical (every object's keys in order, no `undefined`
 * property), else a copy in which only what was not is rebuilt. About half the objects of a
 * generated document (CVSS ratings, version entries, notes...) are built in key order; copying
 * them too (a 2,000-finding CycloneDX document has ~25,000 objects) only made garbage.
 */
function canonicalOf(value: unknown): Json {
  if (Array.isArray(value)) {
    let out: Json[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const c = canonicalOf(v);
      if (out === undefined && c !== v) out = (value as Json[]).slice(0, i);
      if (out !== undefined) out.push(c);
    }
    return out ?? (value as Json[]);
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (!keysSorted(keys)) {
      const out: { [key: string]: Json } = {};
      // Plain code-unit order (not localeCompare), identical on every runtime.
      for (const key of keys.sort()) {
        const v = value[key];
        if (v !== undefined) out[key] = canonicalOf(v);
      }
      return out;
    }
    let out: { [key: string]: Json } | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const v = value[key];
      const c = v === undefined ? undefined : canonicalOf(v);
      if (out === undefined && c !== v) {
        out = {};
        for (let j = 0; j < i; j++) out[keys[j]!] = value[keys[j]!] as Json;
      }
      if (out !== undefined && c !== undefined) out[key] = c;
    }
    return out ?? (value as { [key: string]: Json });
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('non-finite number in VEX document');
  return value as Json;
}

/** Documents made by canonicalize (the generators' output): serializeVex need not check them again. */
const canonicalDocuments = new WeakSet<object>();

/**
 * The value with sorted keys at every level (insertion order then equals serialisation order),
 * sharing every part that already was: the result must not be modified afterwards.
 */
export function canonicalize<T>(value: T): T {
  const canonical = canonicalOf(value);
  if (canonical !== null && typeof canonical === 'object') canonicalDocuments.add(canonical);
  return canonical as T;
}

/**
 * The bytes that are hashed, signed and served: canonical keys, 2-space indent, trailing
 * newline. Documents straight from the generators are already canonical and are not checked again.
 */
export function serializeVex(doc: object): string {
  const canonical = canonicalDocuments.has(doc) ? doc : canonicalOf(doc);
  return `${JSON.stringify(canonical, null, 2)}\n`;
}
