/**
 * Building blocks shared by the request/response schemas of every resource.
 *
 * Plain zod, no zod-to-openapi extension: that library is bundled only into
 * the openapi Lambda (shared/openapi/document.ts). A schema that should be an
 * OpenAPI component gets its name with zod's own `.meta({ id })`, which the
 * document generator reads; nested uses then refer to the component.
 */
import * as z from 'zod';


export const uuidSchema = z.uuid();

export const isoDateOrDateTime = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: 'must be an ISO 8601 date (YYYY-MM-DD) or date-time',
});

/** `page`/`perPage` of the product, release and VEX lists (spec "Limits": perPage max 100, default 25). */
export const pageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  perPage: z.coerce.number().int().min(1).max(100).default(25),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

/** Paging envelope used by every list except disclosures (whose envelope the spec fixes). */
export const pageMetaSchema = z
  .object({
    page: z.number().int(),
    perPage: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
    hasNextPage: z.boolean(),
    hasPrevPage: z.boolean(),
  })
  .meta({ id: 'PageMeta' });
export type PageMeta = z.infer<typeof pageMetaSchema>;

export function pagedListSchema<T extends z.ZodType>(item: T, name: string) {
  return z.object({ data: z.array(item), meta: pageMetaSchema }).meta({ id: name });
}

export function dataEnvelope<T extends z.ZodType>(item: T, name: string) {
  return z.object({ data: item }).meta({ id: name });
}

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string(), code: z.string().optional() })).optional(),
      requestId: z.string(),
    }),
  })
  .meta({ id: 'Error' });

/** Optional `comment` of submit/approve/publish (spec "Limits": 5000 chars). */
export const optionalCommentBody = z.strictObject({ comment: z.string().max(5000).optional() }).default({});
