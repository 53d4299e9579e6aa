import * as z from 'zod';
import { dataEnvelope, oneLine, pagedListSchema, pageQuerySchema } from './common';

/** http(s) only: these links are rendered in reports and followed by people. */
const webUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
/** Source repositories are also cloned over git/ssh, so those schemes are accepted too. */
const repositoryUrl = z
  .url({ protocol: /^(https?|git|ssh|git\+https|git\+ssh)$/, error: 'must be a repository URL (https, git or ssh)' })
  .max(2048);

/** Spec "Product": URL-safe, lowercase letters and hyphens only. */
export const productSlug = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z-]+$/, 'must contain lowercase letters and hyphens only');

const productFields = {
  name: oneLine(z.string().trim().min(1).max(255)),
  slug: productSlug,
  description: z.string().max(5000),
  vendor: oneLine(z.string().max(255)),
  websiteUrl: webUrl,
  repositoryUrl: repositoryUrl,
};

const craInScope = z.boolean().meta({
  description:
    'Placed on the EU market under the Cyber Resilience Act: its active and deprecated releases get CRA Article 14 cases (docs/cra-reporting.md). Default false',
});

export const createProductBody = z
  .strictObject({
    name: productFields.name,
    slug: productFields.slug,
    description: productFields.description.optional(),
    vendor: productFields.vendor.optional(),
    websiteUrl: productFields.websiteUrl.optional(),
    repositoryUrl: productFields.repositoryUrl.optional(),
    cra_in_scope: craInScope.optional(),
  })
  .meta({ id: 'CreateProduct' });
export type CreateProductInput = z.infer<typeof createProductBody>;

/** Spec: "Product fields, all optional; only supplied fields change". `null` clears an optional field. */
export const updateProductBody = z
  .strictObject({
    name: productFields.name.optional(),
    slug: productFields.slug.optional(),
    description: productFields.description.nullable().optional(),
    vendor: productFields.vendor.nullable().optional(),
    websiteUrl: productFields.websiteUrl.nullable().optional(),
    repositoryUrl: productFields.repositoryUrl.nullable().optional(),
    cra_in_scope: craInScope.optional(),
  })
  .meta({ id: 'UpdateProduct' });
export type UpdateProductInput = z.infer<typeof updateProductBody>;

export const productListQuery = pageQuerySchema.extend({
  search: z.string().trim().max(255).optional(),
  /** Exact lookup (CI's find-or-create): the product holding this slug, or an empty page. */
  slug: productSlug.optional().meta({ description: 'Exact lookup: the product holding this slug, or an empty page' }),
});
export type ProductListQuery = z.infer<typeof productListQuery>;

export const productSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    vendor: z.string().nullable(),
    websiteUrl: z.string().nullable(),
    repositoryUrl: z.string().nullable(),
    cra_in_scope: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Product' });
export type ProductView = z.infer<typeof productSchema>;

export const productResponse = dataEnvelope(productSchema, 'ProductResponse');
export const productListResponse = pagedListSchema(productSchema, 'ProductList');
export const productIdParams = z.object({ productId: z.uuid() });
