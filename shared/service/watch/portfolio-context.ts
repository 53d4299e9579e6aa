/**
 * The products and releases portfolio rows name, read in batches (one BatchGetItem per 100 keys),
 * so a list across the team costs a few reads however many rows it has.
 */
import { keys } from '../data/keys';
import { batchGet } from '../data/table-client';
import { productStore, type Product } from '../products/product-store';
import { toRelease, type Release } from '../releases/release-store';

export interface PortfolioContext {
  product(productId: string): Product | undefined;
  release(releaseId: string): Release | undefined;
}

/** The live products and existing releases among `pairs`; rows of anything missing are dropped by their readers. */
export async function portfolioContext(
  teamId: string,
  pairs: Iterable<{ productId: string; releaseId: string }>,
): Promise<PortfolioContext> {
  const releaseKeys = new Map<string, { productId: string; releaseId: string }>();
  for (const { productId, releaseId } of pairs) releaseKeys.set(`${productId}/${releaseId}`, { productId, releaseId });
  const productIds = [...new Set([...releaseKeys.values()].map((pair) => pair.productId))];
  const [products, releaseItems] = await Promise.all([
    productStore.getMany(teamId, productIds),
    batchGet([...releaseKeys.values()].map(({ productId, releaseId }) => keys.release(teamId, productId, releaseId))),
  ]);
  const productsById = new Map(products.map((product) => [product.id, product]));
  const releasesById = new Map(releaseItems.map((item) => toRelease(item)).map((release) => [release.id, release]));
  return {
    product: (productId) => productsById.get(productId),
    release: (releaseId) => releasesById.get(releaseId),
  };
}
