/** Product items: conversion and access patterns (keys come from shared/service/data/keys). */
import type { ProductView } from '../schemas/products';
import { keys } from '../data/keys';
import {
  batchGet,
  batchWrite,
  getItem,
  queryAll,
  queryPages,
  transactWrite,
  TransactionFailedError,
  tx,
  type Item,
} from '../data/table-client';
import { NotFoundError } from '../errors';
import type { SearchEntries } from './product-list-cache';
import { productListEntryItem } from './product-list-entries';

export interface Product {
  id: string;
  teamId: string;
  name: string;
  slug: string;
  description: string | null;
  vendor: string | null;
  websiteUrl: string | null;
  repositoryUrl: string | null;
  /** On the EU market under the CRA (docs/cra-reporting.md); stored only when true. */
  craInScope: boolean;
  /** When the product was last put in scope (absent for products put in scope before it was recorded). */
  craInScopeSince?: string | null;
  createdAt: string;
  updatedAt: string;
  revision: number;
  /** Set when a cascading delete has started; the product is gone for readers from then on. */
  deletingAt: string | null;
}

export const PRODUCT_FIELDS = [
  'name',
  'slug',
  'description',
  'vendor',
  'websiteUrl',
  'repositoryUrl',
  'craInScope',
] as const;

export function toProduct(item: Item): Product {
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    name: String(item.name),
    slug: String(item.slug),
    description: (item.description as string | undefined) ?? null,
    vendor: (item.vendor as string | undefined) ?? null,
    websiteUrl: (item.websiteUrl as string | undefined) ?? null,
    repositoryUrl: (item.repositoryUrl as string | undefined) ?? null,
    craInScope: item.craInScope === true,
    craInScopeSince: (item.craInScopeSince as string | undefined) ?? null,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    revision: Number(item.revision ?? 0),
    deletingAt: (item.deletingAt as string | undefined) ?? null,
  };
}

export function productItem(product: Product): Item {
  const { deletingAt: _deletingAt, ...fields } = product;
  // false is stored as NULL, as an unset optional field, so a write's unchanged-condition reads both alike.
  return {
    ...keys.product(product.teamId, product.id),
    entity: 'Product',
    ...fields,
    craInScope: fields.craInScope || null,
    craInScopeSince: (fields.craInScope && fields.craInScopeSince) || null,
  };
}

export function toProductView(product: Product): ProductView {
  return {
    id: product.id,
    name: product.name,
    slug: product.slug,
    description: product.description,
    vendor: product.vendor,
    websiteUrl: product.websiteUrl,
    repositoryUrl: product.repositoryUrl,
    cra_in_scope: product.craInScope,
    created_at: product.createdAt,
    updated_at: product.updatedAt,
  };
}

export interface ProductCount {
  count: number;
  /** False for a team whose products predate the index (until the backfill has run). */
  indexed: boolean;
  changes: number | undefined;
}

/** The list version of a count item (no write yet: 0). */
export const listVersion = (count: ProductCount): number => count.changes ?? 0;

function toCount(item: Item | undefined): ProductCount {
  return {
    count: Number(item?.productCount ?? 0),
    indexed: item?.indexed === true,
    changes: item?.changes === undefined ? undefined : Number(item.changes),
  };
}

async function readCount(teamId: string): Promise<ProductCount> {
  return toCount(await getItem(keys.productCount(teamId)));
}

const isCountItem = (teamId: string, item: Item) => item.sk === keys.productCount(teamId).sk;

/**
 * Index writes one list request may spend on a backfill: a large team's first reads stay well
 * inside the function's timeout, and a team of 10,000 products is indexed after five reads.
 */
const BACKFILL_WRITES_PER_CALL = 2_000;

type BackfillStep = { done: true; count: ProductCount } | { done: false; live: Product[] };

/**
 * One step of building the count and the index from the product items, idempotently: entries
 * are put or removed (at most BACKFILL_WRITES_PER_CALL) toward the live products; when none is
 * left to write, the count is set, only if no create or delete happened meanwhile (`changes`
 * unchanged). Until then the caller answers from the live products this step read.
 */
async function backfillStep(teamId: string): Promise<BackfillStep> {
  const seen = await readCount(teamId);
  if (seen.indexed) return { done: true, count: seen };
  // Entries first, products second: a product created in between then has a product but maybe no
  // entry (put again, harmless), never an entry but no product here (its entry would be deleted while
  // a concurrent step, reading after the create, marks the index built without it).
  const stored = (
    await queryAll({ ...keys.productListPartition(teamId), projection: ['pk', 'sk', 'nameSearch', 'slug'] })
  ).filter((item) => !isCountItem(teamId, item));
  const live = await productStore.listAll(teamId);
  const wanted = new Map(
    live.map((product) => {
      const item = productListEntryItem(product);
      return [String(item.sk), item];
    }),
  );
  const storedBySk = new Map(stored.map((item) => [String(item.sk), item]));
  const puts = [...wanted.values()].filter((item) => {
    const existing = storedBySk.get(String(item.sk));
    return !existing || existing.nameSearch !== item.nameSearch || existing.slug !== item.slug;
  });
  const deletes = stored
    .filter((item) => !wanted.has(String(item.sk)))
    .map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
  if (puts.length + deletes.length > BACKFILL_WRITES_PER_CALL) {
    await batchWrite(
      puts.slice(0, BACKFILL_WRITES_PER_CALL),
      deletes.slice(0, Math.max(0, BACKFILL_WRITES_PER_CALL - puts.length)),
    );
    return { done: false, live };
  }
  await batchWrite(puts, deletes);
  try {
    await transactWrite([
      tx.update(
        keys.productCount(teamId),
        'SET #entity = :entity, #count = :count, #indexed = :true',
        { '#entity': 'entity', '#count': 'productCount', '#indexed': 'indexed', '#changes': 'changes' },
        {
          ':entity': 'ProductCount',
          ':count': live.length,
          ':true': true,
          ...(seen.changes === undefined ? {} : { ':seen': seen.changes }),
        },
        seen.changes === undefined ? 'attribute_not_exists(#changes)' : '#changes = :seen',
      ),
    ]);
    return { done: true, count: { count: live.length, indexed: true, changes: seen.changes } };
  } catch (error) {
    if (!(error instanceof TransactionFailedError)) throw error;
    // A create or delete ran under this step: the next read reconciles again.
    return { done: false, live };
  }
}

/** A page from fully read products, in the index's order: only while a team's index is being built. */
function pageOfLive(
  live: Product[],
  needle: string | undefined,
  offset: number,
  limit: number,
): { total: number; ids: string[] } {
  const matching = live
    .filter((product) => !needle || product.name.toLowerCase().includes(needle) || product.slug.includes(needle))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  return { total: matching.length, ids: matching.slice(offset, offset + limit).map((product) => product.id) };
}

/** Matches of `needle` (lowercase) in the cached search attributes, in list order: the total and one page's ids. */
export function searchPage(
  entries: SearchEntries,
  needle: string,
  offset: number,
  limit: number,
): { total: number; ids: string[] } {
  const ids: string[] = [];
  let total = 0;
  for (let index = 0; index < entries.ids.length; index += 1) {
    if (!entries.names[index]?.includes(needle) && !entries.slugs[index]?.includes(needle)) continue;
    if (total >= offset && total < offset + limit) ids.push(entries.ids[index] ?? '');
    total += 1;
  }
  return { total, ids };
}

export const productStore = {
  /** The live product holding `slug` (one GetItem on the slug claim, one on the product), if any. */
  async findBySlug(teamId: string, slug: string): Promise<Product | undefined> {
    const claim = await getItem(keys.productSlugClaim(teamId, slug));
    if (typeof claim?.productId !== 'string') return undefined;
    const product = await productStore.find(teamId, claim.productId);
    // A claim outlives its product's first delete step until the cascade ends: hidden like the product.
    return product && !product.deletingAt && product.slug === slug ? product : undefined;
  },

  /** Includes products being deleted; callers decide. */
  async find(teamId: string, productId: string): Promise<Product | undefined> {
    const item = await getItem(keys.product(teamId, productId));
    return item ? toProduct(item) : undefined;
  },

  /** A product readers may see: not missing and not being deleted (404 otherwise). */
  async getLive(teamId: string, productId: string): Promise<Product> {
    const product = await productStore.find(teamId, productId);
    if (!product || product.deletingAt) throw new NotFoundError('Product');
    return product;
  },

  /** Id and name of every live product (the dashboard): only those attributes are read, not the full items. */
  async listNames(teamId: string): Promise<{ id: string; name: string }[]> {
    const { pk, skPrefix } = keys.productPrefix(teamId);
    const items = await queryAll({ pk, skPrefix, projection: ['id', 'name', 'deletingAt'] });
    return items.filter((item) => !item.deletingAt).map((item) => ({ id: String(item.id), name: String(item.name) }));
  },

  /** Every live product, full items: only the index backfill needs this (lists use the index). */
  async listAll(teamId: string): Promise<Product[]> {
    const { pk, skPrefix } = keys.productPrefix(teamId);
    return (await queryAll({ pk, skPrefix })).map(toProduct).filter((product) => !product.deletingAt);
  },

  /**
   * The count and the ids of entries [offset, offset + limit) of the index, newest first, in one
   * descending Query of index keys (the count item sorts first). For a team whose index is not
   * built yet, a backfill step runs first (and answers from its read while it is unfinished).
   */
  async page(teamId: string, offset: number, limit: number): Promise<{ total: number; ids: string[] }> {
    let head: Item | undefined;
    const sortKeys: string[] = [];
    for await (const page of queryPages({
      ...keys.productListPartition(teamId),
      projection: ['sk', 'productCount', 'indexed', 'changes'],
      descending: true,
      pageSize: offset + limit + 1,
    })) {
      for (const item of page) {
        if (isCountItem(teamId, item)) head = item;
        else sortKeys.push(String(item.sk));
      }
      if (sortKeys.length >= offset + limit) break;
    }
    if (!toCount(head).indexed) {
      const step = await backfillStep(teamId);
      return step.done ? productStore.page(teamId, offset, limit) : pageOfLive(step.live, undefined, offset, limit);
    }
    return { total: toCount(head).count, ids: sortKeys.slice(offset, offset + limit).map(keys.productIdOfListEntry) };
  },

  /** The count item, read strongly consistent: the total, whether the index is built, and the list version. */
  count: (teamId: string): Promise<ProductCount> => readCount(teamId),

  /** The search attributes of every index entry, newest first (callers cache them per list version). */
  async searchEntries(teamId: string): Promise<SearchEntries> {
    const entries: SearchEntries = { ids: [], names: [], slugs: [] };
    for await (const page of queryPages({
      ...keys.productListPartition(teamId),
      projection: ['sk', 'nameSearch', 'slug'],
      descending: true,
    })) {
      for (const item of page) {
        if (isCountItem(teamId, item)) continue;
        entries.ids.push(keys.productIdOfListEntry(String(item.sk)));
        entries.names.push(typeof item.nameSearch === 'string' ? item.nameSearch : '');
        entries.slugs.push(typeof item.slug === 'string' ? item.slug : '');
      }
    }
    return entries;
  },

  /**
   * Matches of `needle` (lowercase) in name or slug, newest first, from index entries only: while
   * a team's index is being built (its list is not cached then), and once built, from a filtered Query.
   */
  async search(
    teamId: string,
    needle: string,
    offset: number,
    limit: number,
  ): Promise<{ total: number; ids: string[] }> {
    const step = await backfillStep(teamId);
    if (!step.done) return pageOfLive(step.live, needle, offset, limit);
    const matches = await queryAll({
      ...keys.productListPartition(teamId),
      projection: ['sk'],
      descending: true,
      filter: {
        expression: 'contains(#nameSearch, :needle) OR contains(#slug, :needle)',
        names: { '#nameSearch': 'nameSearch', '#slug': 'slug' },
        values: { ':needle': needle },
      },
    });
    return {
      total: matches.length,
      ids: matches.slice(offset, offset + limit).map((item) => keys.productIdOfListEntry(String(item.sk))),
    };
  },

  /** Live products by id, in the order given (one batch read per 100). */
  async getMany(teamId: string, productIds: string[]): Promise<Product[]> {
    const byId = new Map(
      (await batchGet(productIds.map((id) => keys.product(teamId, id)))).map((item) => [
        String(item.id),
        toProduct(item),
      ]),
    );
    return productIds.flatMap((id) => {
      const product = byId.get(id);
      return product && !product.deletingAt ? [product] : [];
    });
  },
};
