/** Canonical JSON: keys in UTF-16 code-unit order at every level, arrays as given, `undefined` dropped. */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function keysSorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}

function sortKeys(value: unknown): Json {
  if (Array.isArray(value)) return value.map((v) => sortKeys(v));
  if (isPlainObject(value)) {
    const out: { [key: string]: Json } = {};
    // Plain code-unit order (not localeCompare), identical on every runtime.
    for (const key of Object.keys(value).sort()) {
      const v = value[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('non-finite number in VEX document');
  return value as Json;
}

/** Copies made by canonicalize (the generators' output): serializeVex need not check them again. */
const canonicalCopies = new WeakSet<object>();

/** Deep copy with sorted keys; insertion order then equals serialisation order. */
export function canonicalize<T>(value: T): T {
  const copy = sortKeys(value);
  if (copy !== null && typeof copy === 'object') canonicalCopies.add(copy);
  return copy as T;
}

/** True when every object's keys are already in order and every number is finite (checked without copying). */
function isCanonical(value: unknown): boolean {
  if (Array.isArray(value)) {
    for (const v of value) if (!isCanonical(v)) return false;
    return true;
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (!keysSorted(keys)) return false;
    for (const k of keys) if (!isCanonical(value[k])) return false;
    return true;
  }
  return typeof value !== 'number' || Number.isFinite(value);
}

/**
 * The bytes that are hashed, signed and served: canonical keys, 2-space indent, trailing
 * newline. Documents straight from the generators are already canonical and are not copied.
 */
export function serializeVex(doc: object): string {
  const canonical = canonicalCopies.has(doc) || isCanonical(doc) ? doc : sortKeys(doc);
  return `${JSON.stringify(canonical, null, 2)}\n`;
}
