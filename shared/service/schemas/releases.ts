import * as z from 'zod';
import { dataEnvelope, isoDateOrDateTime, oneLine, pagedListSchema, pageQuerySchema } from './common';

/**
 * The released artifact's package URL (e.g. pkg:oci/…): VEX consumers such as
 * Trivy and Grype match statements by it. The shape is checked here; the full
 * parse happens in the releases service, so the purl library stays out of
 * every other function's bundle (the route table carries all schemas).
 */
const artifactPurl = oneLine(
  z
    .string()
    .trim()
    .max(2048)
    .regex(/^pkg:[a-z][a-z0-9.+-]*\/\S+$/, 'must be a package URL (pkg:type/namespace/name@version)'),
);
const releaseVersion = oneLine(z.string().trim().min(1).max(100));
const releaseName = oneLine(z.string().max(255));

export const releaseStatus = z.enum(['active', 'deprecated', 'end-of-life']);

export const createReleaseBody = z
  .strictObject({
    version: releaseVersion,
    name: releaseName.optional(),
    releaseDate: isoDateOrDateTime.optional(),
    endOfLifeDate: isoDateOrDateTime.optional(),
    notes: z.string().max(10_000).optional(),
    status: releaseStatus.default('active'),
    purl: artifactPurl.optional(),
  })
  .meta({ id: 'CreateRelease' });
export type CreateReleaseInput = z.infer<typeof createReleaseBody>;

/** The spec leaves release update fields open: the create fields, all optional; `null` clears an optional one. */
export const updateReleaseBody = z
  .strictObject({
    version: releaseVersion.optional(),
    name: releaseName.nullable().optional(),
    releaseDate: isoDateOrDateTime.nullable().optional(),
    endOfLifeDate: isoDateOrDateTime.nullable().optional(),
    notes: z.string().max(10_000).nullable().optional(),
    status: releaseStatus.optional(),
    purl: artifactPurl.nullable().optional(),
  })
  .meta({ id: 'UpdateRelease' });
export type UpdateReleaseInput = z.infer<typeof updateReleaseBody>;

export const releaseSchema = z
  .object({
    id: z.uuid(),
    productId: z.uuid(),
    version: z.string(),
    name: z.string().nullable(),
    releaseDate: z.string().nullable(),
    endOfLifeDate: z.string().nullable(),
    notes: z.string().nullable(),
    status: releaseStatus,
    watched: z.boolean().meta({
      description:
        'Whether corpus changes re-evaluate its SBOMs without a rescan: active and deprecated releases are watched, end-of-life ones are not',
    }),
    purl: z.string().nullable(),
    is_locked: z.boolean(),
    locked_by_vex_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Release' });
export type ReleaseView = z.infer<typeof releaseSchema>;

export const releaseResponse = dataEnvelope(releaseSchema, 'ReleaseResponse');
export const releaseListResponse = pagedListSchema(releaseSchema, 'ReleaseList');
/** `version`: exact lookup for CI's find-or-create (the page then holds that release or nothing). */
export const releaseListQuery = pageQuerySchema.extend({
  version: z.string().trim().min(1).max(100).optional(),
});
export type ReleaseListQuery = z.infer<typeof releaseListQuery>;
export const releaseIdParams = z.object({ releaseId: z.uuid() });
