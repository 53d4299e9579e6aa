import type { PageMeta } from '../schemas/common';

/** The paging envelope's meta for page `page` of `total` items. */
export function pageMeta(total: number, page: number, perPage: number): PageMeta {
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  return { page, perPage, total, totalPages, hasNextPage: page < totalPages, hasPrevPage: page > 1 };
}

/** Slices a fully-read, already-sorted list into the paging envelope's page. */
export function paginate<T>(items: T[], page: number, perPage: number): { data: T[]; meta: PageMeta } {
  const start = (page - 1) * perPage;
  return { data: items.slice(start, start + perPage), meta: pageMeta(items.length, page, perPage) };
}
