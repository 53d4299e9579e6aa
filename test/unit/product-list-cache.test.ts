import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { productListCache, type ListPage } from '../../shared/service/products/product-list-cache';
import type { Product } from '../../shared/service/products/product-store';
import { searchPage } from '../../shared/service/products/product-store';

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
    await expect(
      productListCache.page(teamId, 1, query, () => Promise.reject(new Error('read failed'))),
    ).rejects.toThrow('read failed');
    expect((await productListCache.page(teamId, 1, query, () => Promise.resolve(page(3)))).total).toBe(3);
  });
});

describe('productListCache.products', () => {
  const product = (id: string, name: string) =>
    ({ id, name, slug: id, description: null, vendor: null }) as unknown as Product;

  it('loads only the products it does not hold at this version, keeps the order given, and loads all again at a new version', async () => {
    const teamId = randomUUID();
    const loaded: string[][] = [];
    const load = (ids: string[]) => {
      loaded.push(ids);
      // 'gone' was deleted: the store answers live products only.
      return Promise.resolve(ids.filter((id) => id !== 'gone').map((id) => product(id, `${id}@${loaded.length}`)));
    };

    const first = await productListCache.products(teamId, 3, ['a', 'b', 'gone'], load);
    const second = await productListCache.products(teamId, 3, ['c', 'b', 'a'], load);
    const afterWrite = await productListCache.products(teamId, 4, ['a'], load);
    const otherTeam = await productListCache.products(randomUUID(), 3, ['a'], load);

    expect(first.map((item) => item.id)).toEqual(['a', 'b']);
    expect(second.map((item) => item.name)).toEqual(['c@2', 'b@1', 'a@1']);
    expect(afterWrite.map((item) => item.name)).toEqual(['a@3']);
    expect(otherTeam.map((item) => item.name)).toEqual(['a@4']);
    expect(loaded).toEqual([['a', 'b', 'gone'], ['c'], ['a'], ['a']]);
  });
});

describe('searchPage', () => {
  const entries = {
    ids: ['e', 'd', 'c', 'b', 'a'],
    names: ['lamp', 'desk lamp', 'chair', 'lamp shade', 'table'],
    slugs: ['e', 'd', 'c-lamp', 'b', 'a'],
  };

  it('counts every match in list order and returns one page of ids', () => {
    expect(searchPage(entries, 'lamp', 0, 2)).toEqual({ total: 4, ids: ['e', 'd'] });
    expect(searchPage(entries, 'lamp', 2, 2)).toEqual({ total: 4, ids: ['c', 'b'] });
    expect(searchPage(entries, 'lamp', 4, 2)).toEqual({ total: 4, ids: [] });
    expect(searchPage(entries, 'sofa', 0, 10)).toEqual({ total: 0, ids: [] });
  });
});
