/**
 * The product list index's writes (docs/architecture/lists-and-caches.md "Product list at scale"): each product's entry,
 * and the team's count item, whose `changes` is the list version. Each goes into the transaction of the product write
 * it follows.
 */
import { keys } from '../data/keys';
import { tx, type Item, type TransactItem } from '../data/table-client';
import type { Product } from './product-store';

/** The list index entry of a product: its key orders the list, the two small attributes serve `search` (spec: "matches name or slug"). */
export function productListEntryItem(product: Pick<Product, 'teamId' | 'id' | 'createdAt' | 'name' | 'slug'>): Item {
  return {
    ...keys.productListEntry(product.teamId, product.createdAt, product.id),
    entity: 'ProductListEntry',
    nameSearch: product.name.toLowerCase(),
    slug: product.slug,
  };
}

/** Keeps the index entry's search attributes in step with a rename or a slug change (same transaction as the product). */
export function productListEntryUpdate(
  product: Pick<Product, 'teamId' | 'id' | 'createdAt'>,
  change: { name?: string; slug?: string },
): TransactItem | undefined {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  if (change.name !== undefined) {
    names['#nameSearch'] = 'nameSearch';
    values[':nameSearch'] = change.name.toLowerCase();
    sets.push('#nameSearch = :nameSearch');
  }
  if (change.slug !== undefined) {
    names['#slug'] = 'slug';
    values[':slug'] = change.slug;
    sets.push('#slug = :slug');
  }
  if (sets.length === 0) return undefined;
  return tx.update(
    keys.productListEntry(product.teamId, product.createdAt, product.id),
    `SET ${sets.join(', ')}`,
    names,
    values,
  );
}

/**
 * The per-team count moves with every create (+1) and delete (-1) in the product's own
 * transaction. `changes` is the team's list version: every create, update and delete adds 1 in
 * its own transaction, so a backfill can tell that a write happened under it and a cached page
 * (product-list-cache.ts) can tell whether it still holds.
 */
export function productCountChange(teamId: string, delta: 1 | -1): TransactItem {
  return tx.update(
    keys.productCount(teamId),
    'SET #entity = :entity ADD #count :delta, #changes :one',
    { '#entity': 'entity', '#count': 'productCount', '#changes': 'changes' },
    { ':entity': 'ProductCount', ':delta': delta, ':one': 1 },
  );
}

/** The list version bump of a product update (a create or delete bumps it with the count). */
export function productListVersionBump(teamId: string): TransactItem {
  return tx.update(
    keys.productCount(teamId),
    'SET #entity = :entity ADD #changes :one',
    { '#entity': 'entity', '#changes': 'changes' },
    { ':entity': 'ProductCount', ':one': 1 },
  );
}
