/**
 * dynalite's LevelDB keys of items and index entries (db/index.js `createKey`, `getIndexActions`, dynalite
 * 4.0.0), the same strings at a lower cost per item, for tables whose key attributes are all strings.
 *
 * A key starts with six hex digits of an MD5 of the partition key value, which spreads items over the key
 * space; an index entry's key also ends with one of the item's primary key. dynalite builds each MD5 with
 * `crypto.createHash(...).update(...).digest()` (a hash object and four calls, about 3 µs), five times for a
 * new item with two indexes and nine for one that replaces another. `crypto.hash` computes the same digest in
 * one call. Tables with a number or binary key attribute keep dynalite's own functions (their key values
 * are encoded first), as does any value that is not a string (dynalite's error then is the answer).
 * test/unit/embedded-dynalite-keys.test.ts compares both on random items.
 */
import { createRequire } from 'node:module';
import crypto from 'node:crypto';

const require = createRequire(import.meta.url);

type AttributeMap = Record<string, Record<string, unknown>>;
interface KeyElement {
  AttributeName: string;
  KeyType?: string;
}
interface Index {
  IndexName: string;
  KeySchema: KeyElement[];
  Projection: { ProjectionType?: string; NonKeyAttributes?: string[] };
}
interface Table {
  KeySchema: KeyElement[];
  AttributeDefinitions: { AttributeName: string; AttributeType: string }[];
}
interface IndexActions {
  puts: { index: string; key: string; item: AttributeMap }[];
  deletes: { index: string; key: string }[];
}

interface DbKeys {
  createKey: (item: AttributeMap, table: Table, keySchema?: KeyElement[]) => string;
  getIndexActions: (
    indexes: Index[],
    existing: AttributeMap | undefined | null,
    item: AttributeMap | undefined | null,
    table: Table,
  ) => IndexActions;
}

const db = require('dynalite/db') as DbKeys;
const dynaliteCreateKey = db.createKey;
const dynaliteGetIndexActions = db.getIndexActions;

/** `crypto.hash` (Node ≥ 21.7), else the hash object dynalite uses. */
const md5Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('md5', text, 'hex')
    : (text) => crypto.createHash('md5').update(text).digest('hex');

/**
 * Prefixes made lately: an item that replaces another mostly has its index keys (and a batch's items often
 * share an index's partition key), so a prefix is often asked for again soon. Emptied when full.
 */
const recentPrefixes = new Map<string, string>();
const RECENT_PREFIXES = 4096;

/** dynalite's `hashPrefix` of string values: the first six hex digits of MD5('Outliers' + hash [+ range]). */
function stringHashPrefix(hashValue: string, rangeValue = ''): string {
  const hashed = `Outliers${hashValue}${rangeValue}`;
  let prefix = recentPrefixes.get(hashed);
  if (prefix === undefined) {
    prefix = md5Hex(hashed).slice(0, 6);
    if (recentPrefixes.size >= RECENT_PREFIXES) recentPrefixes.clear();
    recentPrefixes.set(hashed, prefix);
  }
  return prefix;
}

/** dynalite's `toRangeStr` of a string: its UTF-8 bytes in hex. */
function stringRange(value: string): string {
  return Buffer.from(value, 'utf8').toString('hex');
}

const allStringKeys = new WeakMap<Table, boolean>();
/** True when every attribute the table defines (its key and its indexes' keys) is a string. */
function stringKeyed(table: Table): boolean {
  let known = allStringKeys.get(table);
  if (known === undefined) {
    known = table.AttributeDefinitions.every((definition) => definition.AttributeType === 'S');
    allStringKeys.set(table, known);
  }
  return known;
}

/** The string value of a key attribute, or undefined when the item holds no string there. */
function stringValue(item: AttributeMap, attribute: string): string | undefined {
  const value = item[attribute]?.S;
  return typeof value === 'string' ? value : undefined;
}

/** dynalite's `createKey`; undefined when an attribute holds no string (the caller asks dynalite). */
function stringKey(item: AttributeMap, keySchema: KeyElement[]): string | undefined {
  let key = '';
  for (let position = 0; position < keySchema.length; position += 1) {
    const value = stringValue(item, keySchema[position]!.AttributeName);
    if (value === undefined) return undefined;
    if (position === 0) key = `${stringHashPrefix(value)}/`;
    key += `${stringRange(value)}/`;
  }
  return key;
}

export function createKey(item: AttributeMap, table: Table, keySchema?: KeyElement[]): string {
  if (stringKeyed(table)) {
    const key = stringKey(item, keySchema ?? table.KeySchema);
    if (key !== undefined) return key;
  }
  return keySchema === undefined ? dynaliteCreateKey(item, table) : dynaliteCreateKey(item, table, keySchema);
}

/** dynalite's `createIndexKey`: the index key, then the hash prefix of the item's primary key. */
function indexKey(item: AttributeMap, table: Table, keySchema: KeyElement[]): string | undefined {
  const key = stringKey(item, keySchema);
  const [hash, range] = table.KeySchema;
  const hashValue = hash === undefined ? undefined : stringValue(item, hash.AttributeName);
  const rangeValue = range === undefined ? '' : stringValue(item, range.AttributeName);
  if (key === undefined || hashValue === undefined || rangeValue === undefined || table.KeySchema.length > 2)
    return undefined;
  return key + stringHashPrefix(hashValue, rangeValue);
}

function hasAll(item: AttributeMap, attributes: string[]): boolean {
  for (const attribute of attributes) if (item[attribute] == null) return false;
  return true;
}

export function getIndexActions(
  indexes: Index[],
  existing: AttributeMap | undefined | null,
  item: AttributeMap | undefined | null,
  table: Table,
): IndexActions {
  if (!stringKeyed(table)) return dynaliteGetIndexActions(indexes, existing, item, table);
  const actions: IndexActions = { puts: [], deletes: [] };
  const tableKeys = table.KeySchema.map((key) => key.AttributeName);
  for (const index of indexes) {
    const indexKeys = index.KeySchema.map((key) => key.AttributeName);
    let key: string | null = null;
    if (item && hasAll(item, indexKeys)) {
      let pieces = item;
      if (index.Projection.ProjectionType != 'ALL') {
        pieces = Object.create(null) as AttributeMap;
        for (const attribute of [...indexKeys, ...tableKeys, ...(index.Projection.NonKeyAttributes ?? [])])
          pieces[attribute] = item[attribute]!;
      }
      const made = indexKey(pieces, table, index.KeySchema);
      if (made === undefined) return dynaliteGetIndexActions(indexes, existing, item, table);
      key = made;
      actions.puts.push({ index: index.IndexName, key, item: pieces });
    }
    if (existing && hasAll(existing, indexKeys)) {
      const existingKey = indexKey(existing, table, index.KeySchema);
      if (existingKey === undefined) return dynaliteGetIndexActions(indexes, existing, item, table);
      if (existingKey != key) actions.deletes.push({ index: index.IndexName, key: existingKey });
    }
  }
  return actions;
}

/** Makes every caller of dynalite's db module's `createKey` and `getIndexActions` (ours and its actions) use these. */
export function installStringKeys(): void {
  db.createKey = createKey;
  db.getIndexActions = getIndexActions;
}
