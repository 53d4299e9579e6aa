/**
 * CI's find-or-create of a product and release: exact lookups (`?slug=`, `?version=`), then a
 * create when allowed. Two jobs creating the same one at once: the loser's 409 names the
 * winner (`details[0]` `existing_id`), which is used as found.
 */
import { ok, type ApiClient } from './api-client';
import { ServiceError, UsageError } from './errors';

async function createOrAdopt(
  create: () => Promise<{ data: { id: string } }>,
  conflictCode: string,
): Promise<{ id: string; created: boolean }> {
  try {
    return { id: (await create()).data.id, created: true };
  } catch (error) {
    const existing =
      error instanceof ServiceError && error.status === 409 && error.code === conflictCode
        ? error.existingId()
        : undefined;
    if (existing) return { id: existing, created: false };
    throw error;
  }
}

export async function findOrCreateProduct(
  api: ApiClient,
  slug: string,
  create: boolean,
): Promise<{ id: string; created: boolean }> {
  const { body } = await ok(api.GET('/api/products', { params: { query: { slug, perPage: 1 } } }));
  const found = body.data[0];
  if (found) return { id: found.id, created: false };
  if (!create) throw new UsageError(`no product with slug "${slug}" in this team; pass --create to create it`);
  return createOrAdopt(
    async () => (await ok(api.POST('/api/products', { body: { name: slug, slug } }))).body,
    'slug_taken',
  );
}

export async function findOrCreateRelease(
  api: ApiClient,
  productId: string,
  version: string,
  create: boolean,
): Promise<{ id: string; created: boolean }> {
  const path = { productId };
  const { body } = await ok(
    api.GET('/api/products/{productId}/releases', { params: { path, query: { version, perPage: 1 } } }),
  );
  const found = body.data[0];
  if (found) return { id: found.id, created: false };
  if (!create) throw new UsageError(`the product has no release "${version}"; pass --create to create it`);
  return createOrAdopt(
    async () =>
      (await ok(api.POST('/api/products/{productId}/releases', { params: { path }, body: { version } }))).body,
    'version_taken',
  );
}
