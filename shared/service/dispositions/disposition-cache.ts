/**
 * Per-process (per Lambda) cache of a release's dispositions, keyed by (team, release, the
 * release's dispositions version). Every disposition write moves the version in its own
 * transaction (DispositionTransaction, disposition-store.ts) and every reader reads it with one
 * strongly consistent GetItem of the release item before it looks here, so a cached set is served
 * only while no disposition write has committed since it was read: correct across Lambdas without
 * any invalidation message (the product list cache works the same way).
 *
 * A set is tagged with the version read BEFORE its items were queried, so it is never older than
 * its tag (it may be newer, which only costs a miss later). Sets of old versions are never looked
 * up again and age out of the LRU. Concurrent misses on one key share one read.
 */
import { LRUCache } from 'lru-cache';
import type { Disposition } from './disposition-store';

export type CachedDispositions = readonly Disposition[];

type Loader = () => Promise<Disposition[]>;

/** Rough bytes per disposition (ids, keys, texts): enough to bound memory, not to account it. */
const DISPOSITION_BYTES = 1_000;

/**
 * Only while a deploy replaces the code: a previous version's write does not move the version,
 * so a set cached then could miss it. Sets expire after this, which bounds that window.
 */
const DEPLOY_WINDOW_TTL_MS = 60_000;

/** About 64 MB: 64,000 dispositions (32 releases of 2,000) per instance, whatever the teams do. */
const MAX_BYTES = 64 * 1024 * 1024;

const sets = new LRUCache<string, CachedDispositions, Loader>({
  maxSize: MAX_BYTES,
  ttl: DEPLOY_WINDOW_TTL_MS,
  // A release larger than the cache is answered but not kept (the next request reads it again).
  maxEntrySize: MAX_BYTES,
  sizeCalculation: (set) => Math.max(1, set.length * DISPOSITION_BYTES),
  // Frozen: every reader of the version shares the one set.
  fetchMethod: async (_key, _stale, { context }) =>
    Object.freeze((await context()).map((disposition) => Object.freeze(disposition))),
});

export const dispositionCache = {
  async get(teamId: string, releaseId: string, version: number, load: Loader): Promise<CachedDispositions> {
    const set = await sets.fetch(JSON.stringify([teamId, releaseId, version]), { context: load });
    // fetch() resolves undefined only when the load was aborted (never here): read plainly then.
    return set ?? load();
  },

  /** Tests and benches: forget every set (as a new process would). */
  clear(): void {
    sets.clear();
  },
};
