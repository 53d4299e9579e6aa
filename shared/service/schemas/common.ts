/**
 * Building blocks shared by the request/response schemas of every resource.
 *
 * Plain zod, no zod-to-openapi extension: that library is bundled only into
 * the openapi Lambda (shared/service/openapi/document.ts). A schema that should be an
 * OpenAPI component gets its name with zod's own `.meta({ id })`, which the
 * document generator reads; nested uses then refer to the component.
 */
import * as z from 'zod';

export const uuidSchema = z.uuid();

/** Examples every date message shows, so a client sees the accepted form instead of a pattern name. */
export const DATE_EXAMPLE = '2026-01-31';
export const DATE_TIME_EXAMPLE = '2026-01-31T00:00:00Z';

export const isoDateOrDateTime = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: `must be an ISO 8601 date or date-time with offset, e.g. ${DATE_EXAMPLE} or ${DATE_TIME_EXAMPLE}`,
});

/**
 * The error map every request parse uses (shared/service/http/request.ts). zod's defaults speak in types
 * ("Invalid input: expected string, received undefined", "Invalid ISO datetime"); clients need
 * the field and the accepted form. A schema's own `error` still wins over this map.
 */
export const requestErrorMap: z.core.$ZodErrorMap = (issue) => {
  const field = (issue.path ?? []).map(String).join('.');
  if (issue.code === 'invalid_type' && issue.input === undefined)
    return field ? `${field} is required` : 'a value is required';
  if (issue.code === 'too_small' && issue.origin === 'string' && issue.minimum === 1)
    return field ? `${field} must not be empty` : 'must not be empty';
  if (issue.code === 'invalid_format' && issue.format === 'datetime')
    return `must be an ISO 8601 date-time with offset, e.g. ${DATE_TIME_EXAMPLE}`;
  if (issue.code === 'invalid_format' && issue.format === 'date')
    return `must be an ISO 8601 date (YYYY-MM-DD), e.g. ${DATE_EXAMPLE}`;
  return undefined;
};

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

/** The name of an API key or a trust policy: an identifier without spaces. */
export const credentialNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\w.-]+$/, 'letters, digits, dot, underscore and hyphen only');

/** Optional `comment` of submit/approve/publish (spec "Limits": 5000 chars). */
export const optionalCommentBody = z.strictObject({ comment: z.string().max(5000).optional() }).default({});
