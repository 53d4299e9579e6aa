import type { PageMeta } from '../schemas/common';

/** Slices a fully-read, already-sorted list into the paging envelope's page. */
export function paginate<T>(items: T[], page: number, perPage: number): { data: T[]; meta: PageMeta } {
  const total = items.length;
  const totalPages = Math.max(1, Math.ceil(total / perPage));
  const start = (page - 1) * perPage;
  return {
    data: items.slice(start, start + perPage),
    meta: { page, perPage, total, totalPages, hasNextPage: page < totalPages, hasPrevPage: page > 1 },
  };
}
