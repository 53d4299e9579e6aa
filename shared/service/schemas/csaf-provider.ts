import * as z from 'zod';
import { oneLine } from './common';

/** CSAF 2.0 `/document/publisher` (csaf_json_schema.json), as provider-metadata.json and the documents carry it. */
export const csafPublisherSchema = z.strictObject({
  category: z.enum(['coordinator', 'discoverer', 'other', 'translator', 'user', 'vendor']),
  name: oneLine(z.string().trim().min(1).max(255)),
  namespace: z
    .url({ protocol: /^https?$/ })
    .max(1000)
    .meta({ description: "The publisher's own URL (CSAF `namespace`), e.g. https://psirt.example.com" }),
  contact_details: z.string().trim().min(1).max(1000).optional(),
  issuing_authority: z.string().trim().min(1).max(1000).optional(),
});
export type CsafPublisher = z.infer<typeof csafPublisherSchema>;

/** Lowercase letters, digits and inner hyphens: one path segment of the public provider URLs. */
export const csafDirectorySchema = z
  .string()
  .min(2)
  .max(63)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lowercase letters, digits and single inner hyphens');

/** Team setting `csafProvider` (docs/csaf-provider.md); null turns the team's provider off. */
export const csafProviderSettingBody = z
  .strictObject({ directory: csafDirectorySchema, publisher: csafPublisherSchema })
  .nullable()
  .meta({
    description:
      "The team's CSAF trusted provider: public directory name (unique across the deployment) and CSAF publisher; null removes it",
  });

export const csafDirectoryParams = z.object({ directory: csafDirectorySchema });
export const csafYearParams = z.object({ directory: csafDirectorySchema, year: z.string().regex(/^\d{4}$/) });
export const csafFileParams = z.object({
  directory: csafDirectorySchema,
  year: z.string().regex(/^\d{4}$/),
  file: z
    .string()
    .min(6)
    .max(300)
    .regex(/^[+\-a-z0-9_]+\.json(?:\.sha256|\.sha512|\.asc)?$/),
});
export const csafKeyParams = z.object({
  directory: csafDirectorySchema,
  file: z.string().regex(/^[0-9A-F]{40,64}\.asc$/),
});
