/**
 * Products: the verbs behind /api/products. Slugs are unique per team through
 * a claim item written in the same transaction as the product.
 */
import { randomUUID } from 'node:crypto';
import { DeleteObjectsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3 } from '../aws-clients';
import { config } from '../config';
import { keys } from '../data/keys';
import { batchWrite, queryPages, transactWrite, TransactionFailedError, tx, patchExpression, type Item } from '../data/table-client';
import { paginate } from '../data/paging';
import { auditPut, diffChanges } from '../audit/audit-log';
import { ConflictError, NotFoundError } from '../errors';
import type { Actor } from '../identity/actor';
import type { CreateProductInput, ProductListQuery, UpdateProductInput } from '../schemas/products';
import { PRODUCT_FIELDS, productItem, productStore, type Product } from './product-store';

function slugTaken(slug: string): ConflictError {
  return new ConflictError(`A product with slug "${slug}" already exists in this team`, 'slug_taken');
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
      createdAt: now,
      updatedAt: now,
      revision: 1,
      deletingAt: null,
    };
    try {
      await transactWrite([
        tx.create(productItem(product)),
        tx.create({ ...keys.productSlugClaim(teamId, product.slug), entity: 'ProductSlugClaim', productId: product.id }),
        auditPut(teamId, actor, { action: 'create', entityType: 'product', entityId: product.id, entityName: product.name, changes: auditableFields(product) }, now),
      ]);
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(1)) throw slugTaken(product.slug);
      throw error;
    }
    return product;
  },

  get: (teamId: string, productId: string): Promise<Product> => productStore.getLive(teamId, productId),

  async list(teamId: string, query: ProductListQuery) {
    const needle = query.search?.toLowerCase();
    const matching = (await productStore.listAll(teamId))
      .filter((product) => !needle || product.name.toLowerCase().includes(needle) || product.slug.includes(needle))
      // Newest first; the id breaks ties so pages are stable.
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
    return paginate(matching, query.page, query.perPage);
  },

  /** Only supplied fields change; `null` clears an optional field. Optimistic concurrency on `revision`. */
  async update(teamId: string, actor: Actor, productId: string, input: UpdateProductInput): Promise<Product> {
    const current = await Products.get(teamId, productId);
    const patch: Partial<Record<(typeof PRODUCT_FIELDS)[number], string | null>> = {};
    for (const field of PRODUCT_FIELDS) {
      const value = input[field];
      if (value !== undefined) patch[field] = value;
    }
    const next: Product = { ...current, ...patch, updatedAt: new Date().toISOString(), revision: current.revision + 1 } as Product;
    const changes = diffChanges(auditableFields(current), auditableFields(next));
    if (Object.keys(changes).length === 0) return current;

    const update = patchExpression({ ...patch, updatedAt: next.updatedAt, revision: next.revision });
    const items = [
      tx.update(keys.product(teamId, productId), update.expression, { ...update.names, '#revision': 'revision', '#deletingAt': 'deletingAt' },
        { ...update.values, ':expectedRevision': current.revision }, 'attribute_exists(pk) AND #revision = :expectedRevision AND attribute_not_exists(#deletingAt)'),
      auditPut(teamId, actor, { action: 'update', entityType: 'product', entityId: productId, entityName: next.name, changes }),
    ];
    const slugChanged = next.slug !== current.slug;
    if (slugChanged) {
      items.push(
        tx.create({ ...keys.productSlugClaim(teamId, next.slug), entity: 'ProductSlugClaim', productId }),
        tx.delete(keys.productSlugClaim(teamId, current.slug)),
      );
    }
    try {
      await transactWrite(items);
    } catch (error) {
      if (error instanceof TransactionFailedError) {
        if (slugChanged && error.failedAt(2)) throw slugTaken(next.slug);
        if (error.failedAt(0)) throw new ConflictError('The product was changed by another request; read it again and retry', 'concurrent_modification');
      }
      throw error;
    }
    return next;
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
      const at = new Date().toISOString();
      try {
        await transactWrite([
          tx.update(keys.product(teamId, productId), 'SET #deletingAt = :at', { '#deletingAt': 'deletingAt' }, { ':at': at }, 'attribute_exists(pk) AND attribute_not_exists(#deletingAt)'),
          auditPut(teamId, actor, { action: 'delete', entityType: 'product', entityId: productId, entityName: product.name, changes: auditableFields(product) }, at),
        ]);
      } catch (error) {
        if (!(error instanceof TransactionFailedError)) throw error;
        // Another DELETE got there first; carry on and finish the cascade with it.
      }
    }
    await deleteProductObjects(teamId, productId);
    for await (const page of queryPages<Item>({ ...keys.productCollection(teamId, productId), projection: ['pk', 'sk', 'id'] })) {
      const itemKeys = page.map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
      const pointerKeys = page.filter((item) => typeof item.id === 'string').map((item) => keys.idPointer(teamId, String(item.id)));
      // Pointers first: once they are gone, no id under the product resolves.
      await batchWrite([], pointerKeys);
      await batchWrite([], itemKeys);
    }
    await transactWrite([tx.delete(keys.product(teamId, productId)), tx.delete(keys.productSlugClaim(teamId, product.slug))]);
  },
};

/** Removes every S3 object under the product's prefix (SBOM files); disclosure snapshots are in another bucket. */
async function deleteProductObjects(teamId: string, productId: string): Promise<void> {
  const bucket = config().sbomBucket;
  const prefix = keys.productObjectsPrefix(teamId, productId);
  let continuationToken: string | undefined;
  do {
    const listing = await s3().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: continuationToken }));
    const objects = (listing.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
    if (objects.length > 0) await s3().send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
    continuationToken = listing.IsTruncated ? listing.NextContinuationToken : undefined;
  } while (continuationToken);
}
