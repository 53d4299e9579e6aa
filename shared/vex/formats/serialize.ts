/** Canonical JSON: keys in code-point order at every level, arrays as given, `undefined` dropped. */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Deep copy with sorted keys; insertion order then equals serialisation order. */
export function canonicalize<T>(value: T): T {
  return sortKeys(value) as T;
}

function sortKeys(value: unknown): Json {
  if (Array.isArray(value)) return value.map((v) => sortKeys(v));
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const out: { [key: string]: Json } = {};
    // Plain code-point order (not localeCompare), identical on every runtime.
    for (const key of Object.keys(obj).sort()) {
      const v = obj[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('non-finite number in VEX document');
  return value as Json;
}

/** The bytes that are hashed, signed and served: canonical keys, 2-space indent, trailing newline. */
export function serializeVex(doc: object): string {
  return `${JSON.stringify(sortKeys(doc), null, 2)}\n`;
}
