/**
 * Per-instance (per Lambda) caches of the product list, validated by the team's list version
 * (docs/architecture/lists-and-caches.md "Product list at scale"). Every product create, update and delete bumps
 * the version in its own transaction, and every list request reads the version with one strongly
 * consistent GetItem before it looks here, so a cached answer is served only while no write has
 * committed since it was read: correct across Lambdas without any invalidation message.
 *
 * An entry is tagged with the version read BEFORE its data was read, so its data is never older
 * than its tag (it may be newer, which only costs a miss later). Entries of old versions are never
 * looked up again and age out of the LRU. Concurrent misses on one key share one load.
 */
import { LRUCache } from 'lru-cache';
import type { Product } from './product-store';

export interface ListPage {
  total: number;
  products: Product[];
}

/** Index entries of a team in list order (newest first), for `search`: parallel arrays keep it small. */
export interface SearchEntries {
  ids: string[];
  names: string[];
  slugs: string[];
}

type Loader<V> = () => Promise<V>;

/** Rough bytes of a value: string lengths plus a fixed overhead per object (enough to bound memory). */
const PRODUCT_OVERHEAD = 200;
const ENTRY_OVERHEAD = 100;

function productSize(product: Product): number {
  return (
    PRODUCT_OVERHEAD +
    product.id.length +
    product.name.length +
    product.slug.length +
    (product.description?.length ?? 0) +
    (product.vendor?.length ?? 0) +
    (product.websiteUrl?.length ?? 0) +
    (product.repositoryUrl?.length ?? 0)
  );
}

/**
 * Only while a deploy replaces the code: a previous version's update does not move the list
 * version, so an answer cached then could miss it. Entries expire after this, which bounds that window.
 */
const DEPLOY_WINDOW_TTL_MS = 60_000;

function cacheOf<V extends object>(maxSize: number, sizeOf: (value: V) => number) {
  return new LRUCache<string, V, Loader<V>>({
    maxSize,
    ttl: DEPLOY_WINDOW_TTL_MS,
    // A value larger than the cache is answered but not kept (the next request loads it again).
    maxEntrySize: maxSize,
    sizeCalculation: (value) => Math.max(1, sizeOf(value)),
    fetchMethod: (_key, _stale, { context }) => context(),
  });
}

/**
 * About 16 MB each of rendered pages, search entries and single products per instance, whatever
 * the teams do. Products are kept one by one under the same version tag as pages, so a search
 * page (each distinct needle is its own page) is assembled from products another page or search
 * already read: between writes, a search reads no product item.
 */
const pages = cacheOf<ListPage>(16 * 1024 * 1024, (page) =>
  page.products.reduce((sum, product) => sum + productSize(product), 64),
);
const searchEntries = cacheOf<SearchEntries>(16 * 1024 * 1024, (entries) =>
  entries.ids.reduce(
    (sum, id, index) =>
      sum + ENTRY_OVERHEAD + id.length + (entries.names[index]?.length ?? 0) + (entries.slugs[index]?.length ?? 0),
    64,
  ),
);

const products = cacheOf<Product>(16 * 1024 * 1024, productSize);

async function cached<V extends object>(
  cache: LRUCache<string, V, Loader<V>>,
  key: string,
  load: Loader<V>,
): Promise<V> {
  const value = await cache.fetch(key, { context: load });
  // fetch() resolves undefined only when the load was aborted (never here): load it plainly then.
  return value ?? load();
}

export const productListCache = {
  /** A page (`needle` undefined) or a page of search matches, at `version` of the team's list. */
  page(
    teamId: string,
    version: number,
    query: { page: number; perPage: number; needle: string | undefined },
    load: Loader<ListPage>,
  ): Promise<ListPage> {
    return cached(pages, JSON.stringify([teamId, version, query.page, query.perPage, query.needle ?? null]), load);
  },

  /**
   * Products by id at `version` of the team's list, in the order given: only those not cached are
   * loaded (`load` answers the live ones among the ids it is given; a missing one is not cached).
   */
  async products(
    teamId: string,
    version: number,
    productIds: string[],
    load: (missing: string[]) => Promise<Product[]>,
  ): Promise<Product[]> {
    const key = (id: string) => JSON.stringify([teamId, version, id]);
    const found = new Map<string, Product>();
    for (const id of productIds) {
      const hit = products.get(key(id));
      if (hit) found.set(id, hit);
    }
    const missing = productIds.filter((id) => !found.has(id));
    if (missing.length > 0) {
      for (const product of await load(missing)) {
        products.set(key(product.id), product);
        found.set(product.id, product);
      }
    }
    return productIds.flatMap((id) => {
      const product = found.get(id);
      return product ? [product] : [];
    });
  },

  /** Every index entry's search attributes of the team at `version`. */
  searchEntries(teamId: string, version: number, load: Loader<SearchEntries>): Promise<SearchEntries> {
    return cached(searchEntries, JSON.stringify([teamId, version]), load);
  },
};
