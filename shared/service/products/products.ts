/**
 * Products: the verbs behind /api/products. Slugs are unique per team through
 * a claim item written in the same transaction as the product; the same
 * transaction keeps the team's product count and list index entry in step.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import {
  batchWrite,
  getItem,
  queryPages,
  transactWrite,
  TransactionFailedError,
  tx,
  patchExpression,
  type Item,
} from '../data/table-client';
import { pageMeta } from '../data/paging';
import { changedFields, lostRace, retryLostRaces, RETRY, unchangedCondition } from '../data/write-races';
import { auditPut, diffChanges } from '../audit/audit-log';
import { ConflictError, NotFoundError } from '../errors';
import type { Actor } from '../identity/actor';
import type { CreateProductInput, ProductListQuery, UpdateProductInput } from '../schemas/products';
import { listVersion, PRODUCT_FIELDS, productItem, productStore, searchPage, type Product } from './product-store';
import {
  productCountChange,
  productListEntryItem,
  productListEntryUpdate,
  productListVersionBump,
} from './product-list-entries';
import { productListCache, type ListPage } from './product-list-cache';

/** Names the product holding the slug (`details[0]`: `{ path: "existing_id", message: <product id> }`), for CI's find-or-create. */
async function slugTaken(teamId: string, slug: string): Promise<ConflictError> {
  const claim = await getItem(keys.productSlugClaim(teamId, slug));
  const existingId = typeof claim?.productId === 'string' ? claim.productId : undefined;
  return new ConflictError(
    `A product with slug "${slug}" already exists in this team${existingId ? ` (product ${existingId})` : ''}`,
    'slug_taken',
    existingId ? [{ path: 'existing_id', message: existingId }] : undefined,
  );
}

function auditableFields(product: Product): Record<string, unknown> {
  return Object.fromEntries(PRODUCT_FIELDS.map((field) => [field, product[field]]));
}

export const Products = {
  async create(teamId: string, actor: Actor, input: CreateProductInput): Promise<Product> {
    const now = new Date().toISOString();
    const product: Product = {
      id: randomUUID(),
      teamId,
      name: input.name,
      slug: input.slug,
      description: input.description ?? null,
      vendor: input.vendor ?? null,
      websiteUrl: input.websiteUrl ?? null,
      repositoryUrl: input.repositoryUrl ?? null,
      craInScope: input.cra_in_scope ?? false,
      craInScopeSince: input.cra_in_scope === true ? now : null,
      createdAt: now,
      updatedAt: now,
      revision: 1,
      deletingAt: null,
    };
    // The count item is shared by the team's creates: on AWS two transactions touching it at once
    // can be cancelled with TransactionConflict, which is retried here (the slug claim decides 409s).
    await retryLostRaces(
      async () => {
        try {
          await transactWrite([
            tx.create(productItem(product)),
            tx.create({
              ...keys.productSlugClaim(teamId, product.slug),
              entity: 'ProductSlugClaim',
              productId: product.id,
            }),
            auditPut(
              teamId,
              actor,
              {
                action: 'create',
                entityType: 'product',
                entityId: product.id,
                entityName: product.name,
                changes: auditableFields(product),
              },
              now,
            ),
            tx.put(productListEntryItem(product)),
            productCountChange(teamId, 1),
          ]);
        } catch (error) {
          if (error instanceof TransactionFailedError && error.failedAt(1)) throw await slugTaken(teamId, product.slug);
          if (lostRace(error, [])) return RETRY;
          throw error;
        }
        return product;
      },
      () => new ConflictError('Too many concurrent product writes in this team; retry', 'concurrent_modification'),
    );
    return product;
  },

  get: (teamId: string, productId: string): Promise<Product> => productStore.getLive(teamId, productId),

  /**
   * Newest first (creation time, then id). The total is the maintained count, a page is
   * read from the keys-only index and then fetched by key, and a search matches the index
   * entries' small search attributes: once a team's index is built, no request reads every
   * product. Pages and search attributes are cached per instance under the team's list
   * version, read strongly consistent first: any write since makes it a miss
   * (docs/architecture/lists-and-caches.md "Product list at scale"). `slug` is the exact lookup CI's
   * find-or-create needs: the slug claim, not the list.
   */
  async list(teamId: string, query: ProductListQuery) {
    const offset = (query.page - 1) * query.perPage;
    const needle = query.search?.toLowerCase();
    if (query.slug !== undefined) {
      const found = await productStore.findBySlug(teamId, query.slug);
      const matches =
        found && (!needle || found.name.toLowerCase().includes(needle) || found.slug.includes(needle)) ? [found] : [];
      return {
        data: matches.slice(offset, offset + query.perPage),
        meta: pageMeta(matches.length, query.page, query.perPage),
      };
    }
    const count = await productStore.count(teamId);
    let result: ListPage;
    if (!count.indexed) {
      // Not cached while the index is being built: the version does not cover the backfill's writes.
      const { total, ids } = needle
        ? await productStore.search(teamId, needle, offset, query.perPage)
        : await productStore.page(teamId, offset, query.perPage);
      result = { total, products: await productStore.getMany(teamId, ids) };
    } else {
      const version = listVersion(count);
      result = await productListCache.page(
        teamId,
        version,
        { page: query.page, perPage: query.perPage, needle },
        async () => {
          const { total, ids } = needle
            ? searchPage(
                await productListCache.searchEntries(teamId, version, () => productStore.searchEntries(teamId)),
                needle,
                offset,
                query.perPage,
              )
            : await productStore.page(teamId, offset, query.perPage);
          // Tagged with the version read before these reads, like the page: never older than its tag.
          return {
            total,
            products: await productListCache.products(teamId, version, ids, (missing) =>
              productStore.getMany(teamId, missing),
            ),
          };
        },
      );
    }
    return { data: result.products, meta: pageMeta(result.total, query.page, query.perPage) };
  },

  /**
   * Only supplied fields change; `null` clears an optional field. The write sets just the
   * fields that differ, conditioned on their values as read (so the audit's "from" is true):
   * requests changing other fields never conflict, and a request that lost a race on the same
   * field (or a slug change, whose claim items depend on the old slug) is planned again from a
   * fresh read. Last writer wins.
   */
  async update(teamId: string, actor: Actor, productId: string, input: UpdateProductInput): Promise<Product> {
    const concurrent = () =>
      new ConflictError('The product kept changing under this update; retry', 'concurrent_modification');
    let enteredScopeAt: string | null = null;
    const stored = await retryLostRaces(async () => {
      enteredScopeAt = null;
      const current = await Products.get(teamId, productId);
      const { cra_in_scope: craInScope, ...fields } = input;
      const { patch, previous } = changedFields(current, { ...fields, craInScope }, PRODUCT_FIELDS);
      if (Object.keys(patch).length === 0) return current;
      // Stored only when true (productItem): false is written, and was read, as absent.
      if (patch.craInScope !== undefined) previous.craInScope = previous.craInScope || null;
      const updatedAt = new Date().toISOString();
      const next: Product = { ...current, ...patch, updatedAt, revision: current.revision + 1 };
      if (patch.craInScope !== undefined) next.craInScopeSince = patch.craInScope ? updatedAt : null;
      const changes = diffChanges(auditableFields(current), auditableFields(next));

      const update = patchExpression({
        ...patch,
        ...(patch.craInScope !== undefined
          ? { craInScope: patch.craInScope || null, craInScopeSince: next.craInScopeSince }
          : {}),
        updatedAt: next.updatedAt,
      });
      const guard = unchangedCondition(previous);
      const items = [
        tx.update(
          keys.product(teamId, productId),
          `${update.expression} ADD #revision :one`,
          { ...update.names, ...guard.names, '#revision': 'revision', '#deletingAt': 'deletingAt' },
          { ...update.values, ...guard.values, ':one': 1 },
          `attribute_exists(pk) AND attribute_not_exists(#deletingAt) AND ${guard.expression}`,
        ),
        auditPut(teamId, actor, {
          action: 'update',
          entityType: 'product',
          entityId: productId,
          entityName: next.name,
          changes,
        }),
      ];
      const slugChanged = patch.slug !== undefined;
      if (slugChanged) {
        items.push(
          tx.create({ ...keys.productSlugClaim(teamId, next.slug), entity: 'ProductSlugClaim', productId }),
          tx.delete(keys.productSlugClaim(teamId, current.slug)),
        );
      }
      const entryUpdate = productListEntryUpdate(current, {
        name: patch.name ?? undefined,
        slug: patch.slug ?? undefined,
      });
      if (entryUpdate) items.push(entryUpdate);
      // Cached list pages hold this product's fields: none may outlive this write (last, so the indexes above stay).
      items.push(productListVersionBump(teamId));
      try {
        await transactWrite(items);
      } catch (error) {
        // The product first: if it changed meanwhile (say, another request already set this slug), a fresh read decides.
        if (lostRace(error, [0])) return RETRY;
        if (slugChanged && error instanceof TransactionFailedError && error.failedAt(2))
          throw await slugTaken(teamId, next.slug);
        throw error;
      }
      if (patch.craInScope === true) enteredScopeAt = updatedAt;
      // What is stored now, other requests' fields included.
      return (await productStore.find(teamId, productId)) ?? next;
    }, concurrent);
    if (enteredScopeAt !== null && stored.craInScope) {
      // On the EU market from now: its releases' exploited findings open cases (loaded only then).
      const { CraMarketEntry } = await import('../cra/market-entry');
      await CraMarketEntry.productEnteredScope(stored, enteredScopeAt);
    }
    return stored;
  },

  /**
   * Cascading delete (spec: "cascades to the product's releases, SBOMs,
   * vulnerabilities, dispositions and VEX documents"). It walks the product's
   * item collection, so entities added later are covered without changes here.
   * The product is marked first, which hides it and everything under it from
   * readers; a delete that fails midway is resumed by calling DELETE again.
   * Published disclosures live outside the collection and survive.
   */
  async delete(teamId: string, actor: Actor, productId: string): Promise<void> {
    const product = await productStore.find(teamId, productId);
    if (!product) throw new NotFoundError('Product');
    if (!product.deletingAt) {
      await retryLostRaces(
        async () => {
          const at = new Date().toISOString();
          try {
            await transactWrite([
              tx.update(
                keys.product(teamId, productId),
                'SET #deletingAt = :at',
                { '#deletingAt': 'deletingAt' },
                { ':at': at },
                'attribute_exists(pk) AND attribute_not_exists(#deletingAt)',
              ),
              auditPut(
                teamId,
                actor,
                {
                  action: 'delete',
                  entityType: 'product',
                  entityId: productId,
                  entityName: product.name,
                  changes: auditableFields(product),
                },
                at,
              ),
              // Gone from the list and the count in the same step that hides it from readers.
              tx.delete(keys.productListEntry(teamId, product.createdAt, productId)),
              productCountChange(teamId, -1),
            ]);
          } catch (error) {
            // Cancelled by a concurrent transaction: nothing was written, mark it again.
            if (lostRace(error, [])) return RETRY;
            if (!(error instanceof TransactionFailedError)) throw error;
            // Another DELETE got there first; carry on and finish the cascade with it.
          }
          return undefined;
        },
        () => new ConflictError('The product kept changing under this delete; retry', 'concurrent_modification'),
      );
    }
    await deleteProductObjects(teamId, productId);
    for await (const page of queryPages<Item>({
      ...keys.productCollection(teamId, productId),
      projection: ['pk', 'sk', 'id'],
    })) {
      const itemKeys = page.map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
      const pointerKeys = page
        .filter((item) => typeof item.id === 'string')
        .map((item) => keys.idPointer(teamId, String(item.id)));
      // Pointers first: once they are gone, no id under the product resolves.
      await batchWrite([], pointerKeys);
      await batchWrite([], itemKeys);
    }
    await transactWrite([
      tx.delete(keys.product(teamId, productId)),
      tx.delete(keys.productSlugClaim(teamId, product.slug)),
    ]);
  },
};

/** Removes every S3 object under the product's prefix (SBOM files); disclosure snapshots are in another bucket. */
async function deleteProductObjects(teamId: string, productId: string): Promise<void> {
  // Loaded here, not at cold start: the S3 package is used by nothing else of the products function.
  const { deleteSbomBucketPrefix } = await import('../data/object-prefix');
  return deleteSbomBucketPrefix(keys.productObjectsPrefix(teamId, productId));
}
