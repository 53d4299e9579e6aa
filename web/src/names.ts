/**
 * Names for ids: events and advisory findings carry product and release ids only, so the pages that list
 * them read each distinct product or release once to show its name. Deleted ones stay unnamed.
 */
import { api } from './api/client';

export interface ReleaseName {
  version: string;
  productId: string;
}

export async function releaseNames(ids: Iterable<string>): Promise<Map<string, ReleaseName>> {
  const names = new Map<string, ReleaseName>();
  await Promise.all(
    [...new Set(ids)].map(async (releaseId) => {
      const { data } = await api.GET('/api/releases/{releaseId}', { params: { path: { releaseId } } });
      if (data) names.set(releaseId, { version: data.data.version, productId: data.data.productId });
    }),
  );
  return names;
}

export async function productNames(ids: Iterable<string>): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  await Promise.all(
    [...new Set(ids)].map(async (productId) => {
      const { data } = await api.GET('/api/products/{productId}', { params: { path: { productId } } });
      if (data) names.set(productId, data.data.name);
    }),
  );
  return names;
}
