import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { productListCache, type ListPage } from '../../shared/products/product-list-cache';
import { searchPage } from '../../shared/products/product-store';

const page = (total: number): ListPage => ({ total, products: [] });

describe('productListCache', () => {
  it('loads a page once per team, version and query, and again for a new version', async () => {
    const teamId = randomUUID();
    let loads = 0;
    const load = async () => {
      loads += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return page(loads);
    };
    const query = { page: 1, perPage: 100, needle: undefined };
    // Concurrent misses share one load.
    const first = await Promise.all(Array.from({ length: 5 }, () => productListCache.page(teamId, 7, query, load)));
    expect(loads).toBe(1);
    expect(first.every((result) => result.total === 1)).toBe(true);
    expect((await productListCache.page(teamId, 7, query, load)).total).toBe(1);
    // A write moved the version: the old entry is never served again.
    expect((await productListCache.page(teamId, 8, query, load)).total).toBe(2);
    // Another query, another team: their own entries.
    expect((await productListCache.page(teamId, 8, { ...query, needle: 'x' }, load)).total).toBe(3);
    expect((await productListCache.page(randomUUID(), 8, query, load)).total).toBe(4);
  });

  it('does not keep a failed load', async () => {
    const teamId = randomUUID();
    const query = { page: 1, perPage: 25, needle: undefined };
    await expect(productListCache.page(teamId, 1, query, () => Promise.reject(new Error('read failed')))).rejects.toThrow('read failed');
    expect((await productListCache.page(teamId, 1, query, () => Promise.resolve(page(3)))).total).toBe(3);
  });
});

describe('searchPage', () => {
  const entries = { ids: ['e', 'd', 'c', 'b', 'a'], names: ['lamp', 'desk lamp', 'chair', 'lamp shade', 'table'], slugs: ['e', 'd', 'c-lamp', 'b', 'a'] };

  it('counts every match in list order and returns one page of ids', () => {
    expect(searchPage(entries, 'lamp', 0, 2)).toEqual({ total: 4, ids: ['e', 'd'] });
    expect(searchPage(entries, 'lamp', 2, 2)).toEqual({ total: 4, ids: ['c', 'b'] });
    expect(searchPage(entries, 'lamp', 4, 2)).toEqual({ total: 4, ids: [] });
    expect(searchPage(entries, 'sofa', 0, 10)).toEqual({ total: 0, ids: [] });
  });
});
