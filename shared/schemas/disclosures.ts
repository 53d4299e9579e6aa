import * as z from 'zod';
import { vexFormat } from './vex';

export const disclosureListQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  format: vexFormat.optional(),
});

export const disclosureSlugParams = z.object({ slug: z.string().min(1).max(200).regex(/^[a-z0-9-]+$/) });
export const disclosureReadQuery = z.object({ format: z.enum(['json', 'raw']).default('json') });
