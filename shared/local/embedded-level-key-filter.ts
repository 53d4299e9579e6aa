/**
 * Which keys a LevelDB store may hold, as a Bloom filter in memory, so that a read of a key the store
 * never held is answered without LevelDB (docs/corpus-at-scale.md "Scans against a large store").
 *
 * Most reads the engine makes for a scan are of such keys: a BatchWriteItem reads every item it
 * replaces, and a scan's writes (findings, watch index entries) are nearly all new items. dynalite
 * spreads items over the key space by a hash of their key, so each such read lands on a random table
 * file; once the store has more table files than LevelDB's table cache keeps (64: the server's memory
 * bound, embedded-dynalite.ts), most of them reopen a table to check its filter block, about 30 µs
 * instead of 1–2 µs. That cost grew with the corpus, not with the SBOM.
 *
 * The filter only ever gains keys: every put (single, array batch, chained batch) adds its key before
 * LevelDB sees it, and deletes leave it, so "absent" is never wrong, only "maybe" is (a false positive
 * costs the LevelDB read it would have made anyway). It is built in the background when the store
 * opens, from an iterator over every key; keys written meanwhile are added by the writes themselves.
 * Until the build ends, every read goes to LevelDB.
 */

/** 32 Mi bits (4 MiB): under 0.5 % false positives at 3 million keys (items and index entries of the full corpus). */
const BITS = 1 << 25;
const HASHES = 7;
/**
 * Keys taken from the build's iterator per step, and the bytes of keys it may read ahead for one (classic-level's
 * default, 16 KB, stops a step at ~160 keys). Each step is a hop to libuv's thread pool whose answer waits behind
 * whatever the engine thread is doing: 2.4 million keys in steps of 160 took minutes beside a scan.
 */
const BUILD_STEP = 10_000;
const BUILD_STEP_BYTES = 2 * 1024 * 1024;

export type LevelKey = string | Uint8Array;

export class KeyFilter {
  private readonly words = new Uint32Array(BITS / 32);
  /** False until every key the store held at open is in the filter. */
  ready = false;

  add(key: LevelKey): void {
    hashKey(key);
    const first = hashed.first;
    const step = hashed.step;
    for (let index = 0; index < HASHES; index += 1) {
      const position = (first + Math.imul(index, step)) & (BITS - 1);
      this.words[position >>> 5]! |= 1 << (position & 31);
    }
  }

  /** False only for a key never added. */
  mightHold(key: LevelKey): boolean {
    hashKey(key);
    const first = hashed.first;
    const step = hashed.step;
    for (let index = 0; index < HASHES; index += 1) {
      const position = (first + Math.imul(index, step)) & (BITS - 1);
      if ((this.words[position >>> 5]! & (1 << (position & 31))) === 0) return false;
    }
    return true;
  }
}

/** The two hashes of the last key hashed (no array per key: a filter call hashes several keys per write). */
const hashed = { first: 0, step: 0 };

/**
 * Two 32-bit hashes of the bytes LevelDB stores for a key (FNV-1a and a multiplicative one, each finished by
 * murmur3's fmix; the second odd). A string key is its UTF-8 encoding, so a key written as a string and read
 * as bytes hashes the same: dynalite's keys are ASCII, whose characters are their bytes, and are hashed
 * without an encoding step; a string with another character is encoded first.
 */
function hashKey(key: LevelKey): void {
  if (typeof key !== 'string') {
    hashBytes(key);
    return;
  }
  let first = 0x811c9dc5;
  let second = 0x9747b28c;
  for (let index = 0; index < key.length; index += 1) {
    const byte = key.charCodeAt(index);
    if (byte > 0x7f) {
      hashBytes(Buffer.from(key, 'utf8'));
      return;
    }
    first = Math.imul(first ^ byte, 0x01000193);
    second = Math.imul(second ^ byte, 0x5bd1e995);
    second ^= second >>> 15;
  }
  settle(first, second);
}

function hashBytes(bytes: Uint8Array): void {
  let first = 0x811c9dc5;
  let second = 0x9747b28c;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index]!;
    first = Math.imul(first ^ byte, 0x01000193);
    second = Math.imul(second ^ byte, 0x5bd1e995);
    second ^= second >>> 15;
  }
  settle(first, second);
}

/** The two hashes' final mix, into `hashed` (the second made odd: a step through the bit array). */
function settle(first: number, second: number): void {
  hashed.first = fmix(first) >>> 0;
  hashed.step = (fmix(second) | 1) >>> 0;
}

function fmix(value: number): number {
  let hash = value;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash;
}

interface BatchOperation {
  type: string;
  key: LevelKey;
}

interface KeyIterator {
  nextv(size: number): Promise<LevelKey[]>;
  close(): Promise<void>;
}

/** classic-level's `Level.prototype`: the methods the filter wraps. */
export interface FilteredLevelPrototype {
  _open: (options: Record<string, unknown>) => Promise<void>;
  _get: (key: LevelKey, options: unknown) => Promise<unknown>;
  _put: (key: LevelKey, value: unknown, options: unknown) => Promise<void>;
  _batch: (operations: BatchOperation[], options: unknown) => Promise<void>;
  _chainedBatch: () => { _put: (key: LevelKey, value: unknown) => void };
}

interface FilteredLevel extends FilteredLevelPrototype {
  keys(options: { keyEncoding: string; highWaterMarkBytes: number }): KeyIterator;
  once(event: 'open', listener: () => void): void;
}

const filters = new WeakMap<object, KeyFilter>();

/** The filter of an open store (tests wait for `ready`). */
export function keyFilterOf(db: object): KeyFilter | undefined {
  return filters.get(db);
}

async function build(db: FilteredLevel, filter: KeyFilter): Promise<void> {
  let iterator: KeyIterator | undefined;
  try {
    // As strings (a Buffer per key costs about as much again): dynalite's keys are ASCII. A key that is not
    // UTF-8 would decode with U+FFFD and hash apart from its bytes; such a store is never filtered.
    iterator = db.keys({ keyEncoding: 'utf8', highWaterMarkBytes: BUILD_STEP_BYTES });
    for (let keys = await iterator.nextv(BUILD_STEP); keys.length > 0; keys = await iterator.nextv(BUILD_STEP))
      for (const key of keys) {
        if (typeof key === 'string' && key.includes('\uFFFD')) return;
        filter.add(key);
      }
    filter.ready = filters.get(db) === filter;
  } catch {
    // The store closed while building: this filter is never consulted.
  } finally {
    await iterator?.close().catch(() => undefined);
  }
}

/** Wraps classic-level's methods: writes add their keys, reads of keys never written answer "not found" at once. */
export function filterLevelReads(prototype: FilteredLevelPrototype): void {
  const { _open: open, _get: get, _put: put, _batch: batch, _chainedBatch: chainedBatch } = prototype;
  prototype._open = function (this: FilteredLevel, options) {
    // Made before the store opens, so every write from then on is in it; the iterator sees the rest.
    const filter = new KeyFilter();
    filters.set(this, filter);
    this.once('open', () => void build(this, filter));
    return open.call(this, options);
  };
  prototype._get = function (this: FilteredLevel, key, options) {
    const filter = filters.get(this);
    if (filter?.ready && !filter.mightHold(key)) return Promise.resolve(undefined);
    return get.call(this, key, options);
  };
  prototype._put = function (this: FilteredLevel, key, value, options) {
    filters.get(this)?.add(key);
    return put.call(this, key, value, options);
  };
  prototype._batch = function (this: FilteredLevel, operations, options) {
    const filter = filters.get(this);
    if (filter) for (const operation of operations) if (operation.type === 'put') filter.add(operation.key);
    return batch.call(this, operations, options);
  };
  prototype._chainedBatch = function (this: FilteredLevel) {
    const chained = chainedBatch.call(this);
    const filter = filters.get(this);
    const chainedPut = chained._put;
    chained._put = function (key, value) {
      filter?.add(key);
      chainedPut.call(this, key, value);
    };
    return chained;
  };
}
