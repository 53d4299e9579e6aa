/**
 * The component inventory extracted from an uploaded SBOM. The schemas are the
 * source of the types so the scan job can validate what it reads back from storage.
 */
import * as z from 'zod';

export const sbomFormatSchema = z.enum(['CycloneDX', 'SPDX']);
export type SbomFormat = z.infer<typeof sbomFormatSchema>;

/** How the document is written: CycloneDX JSON or XML, SPDX JSON or tag-value. Decides the download Content-Type. */
export const sbomEncodingSchema = z.enum(['json', 'xml', 'tag-value']);
export type SbomEncoding = z.infer<typeof sbomEncodingSchema>;

/**
 * Why an entry of the document is not in the inventory (docs/sbom-formats.md, "Nothing dropped
 * silently"). Every component / package of the file is either in the inventory or counted here.
 */
export const SKIP_REASONS = [
  'document_subject',
  'duplicate',
  'no_identity',
  'not_an_object',
  'nesting_too_deep',
] as const;
export const skipReasonSchema = z.enum(SKIP_REASONS);
export type SkipReason = z.infer<typeof skipReasonSchema>;

export const skippedEntriesSchema = z.object({
  reason: skipReasonSchema,
  count: z.number().int().positive(),
  /** The first few refs (bom-ref, SPDXID or document path), so the user can find them in the file. */
  examples: z.array(z.string()),
});
export type SkippedEntries = z.infer<typeof skippedEntriesSchema>;

export const sbomComponentSchema = z.object({
  /** bom-ref (CycloneDX) or SPDXID (SPDX); a path-based synthetic ref when the document has none. */
  ref: z.string(),
  name: z.string(),
  version: z.string().optional(),
  /** Only purls that parse; malformed ones (syft writes `pkg:/`) are dropped. */
  purl: z.string().optional(),
  cpes: z.array(z.string()),
  licenses: z.array(z.string()),
  /** CycloneDX `group` (Maven groupId, npm scope). */
  group: z.string().optional(),
  /** CycloneDX component type or SPDX primaryPackagePurpose, lower case. */
  type: z.string().optional(),
});
export type SbomComponent = z.infer<typeof sbomComponentSchema>;

export const sbomToolSchema = z.object({ name: z.string(), version: z.string().optional() });
export type SbomTool = z.infer<typeof sbomToolSchema>;

export const parsedSbomSchema = z.object({
  format: sbomFormatSchema,
  encoding: sbomEncodingSchema,
  specVersion: z.string(),
  /** Producer tool names joined with ", " (best effort), null when the document names none. */
  toolName: z.string().nullable(),
  tools: z.array(sbomToolSchema),
  /** CycloneDX metadata.component / the package an SPDX document DESCRIBES. */
  subject: z.object({ name: z.string(), version: z.string().optional() }).nullable(),
  /** CycloneDX `serialNumber` + `version`: what a BOM-Link to this BOM names (VEX `affects[].ref`). */
  bomIdentity: z
    .object({ serialNumber: z.string(), version: z.number().int().min(1) })
    .nullable()
    .optional(),
  components: z.array(sbomComponentSchema),
  skipped: z.array(skippedEntriesSchema),
});
export type ParsedSbom = z.infer<typeof parsedSbomSchema>;
