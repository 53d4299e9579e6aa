/**
 * Portfolio questions (docs/portfolio.md): where a package ships, where an advisory is found, and the
 * team's dashboard.
 */
import * as z from 'zod';
import { oneLine, pageMetaSchema, pagedListSchema, pageQuerySchema } from './common';
import { booleanFlag, commaList, sbomVulnerabilitySchema, severityFilter } from './sboms';

const releaseStatus = z.enum(['active', 'deprecated', 'end-of-life']);

/** GET /api/components: `purl` (version optional) or `ecosystem` with `name`; the service checks that exactly one form is given. */
export const componentListQuery = pageQuerySchema.extend({
  purl: oneLine(z.string().trim().min(5).max(2048)).optional().meta({
    description: 'Package URL; with a version, only SBOMs holding that version',
    example: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
  }),
  ecosystem: oneLine(z.string().trim().min(1).max(32))
    .optional()
    .meta({ description: 'OSV ecosystem (npm, PyPI, Maven, Go, …), with `name`', example: 'npm' }),
  name: oneLine(z.string().trim().min(1).max(512))
    .optional()
    .meta({
      description: 'Package name in that ecosystem (Maven `group:artifact`, npm `@scope/name`)',
      example: 'lodash',
    }),
});
export type ComponentListQuery = z.output<typeof componentListQuery>;

export const componentUsageSchema = z
  .object({
    product: z.object({ id: z.string(), name: z.string() }),
    release: z.object({ id: z.string(), version: z.string(), status: releaseStatus }),
    sbom_id: z.string(),
    versions: z.array(z.string()).meta({ description: 'Distinct versions of the package in the SBOM, sorted' }),
    purls: z.array(z.string()).meta({ description: 'Distinct purls of those components (at most 20)' }),
    component_names: z.array(z.string()),
    matched_by: z.enum(['package', 'name']).meta({
      description: '`package`: components whose purl names the package; `name`: components without a purl, by name',
    }),
  })
  .meta({ id: 'ComponentUsage' });

export const componentListResponse = pagedListSchema(componentUsageSchema, 'ComponentUsageList');

const advisoryId = oneLine(
  z
    .string()
    .trim()
    .min(3)
    .max(128)
    .regex(
      /^[A-Za-z][A-Za-z0-9]*-[A-Za-z0-9][A-Za-z0-9._:-]*$/,
      'must be an advisory id such as CVE-2021-44228, GHSA-… or GO-…',
    ),
);

/** GET /api/vulnerabilities?advisory=: the findings of one advisory, by any of its identifiers. */
export const advisoryFindingListQuery = pageQuerySchema.extend({
  advisory: advisoryId.meta({
    description: 'CVE, GHSA, GO, PYSEC… id: any alias finds the findings',
    example: 'CVE-2021-44228',
  }),
  state: z
    .enum(['open', 'resolved', 'all'])
    .default('open')
    .meta({ description: 'open (default), resolved (no longer detected) or all' }),
  kev: booleanFlag.optional(),
  severity: commaList(severityFilter, 'critical,high').optional(),
  productId: z.uuid().optional(),
});
export type AdvisoryFindingListQuery = z.output<typeof advisoryFindingListQuery>;

export const advisoryFindingSchema = sbomVulnerabilitySchema
  .extend({ product_id: z.string(), release_id: z.string(), release_version: z.string(), sbom_id: z.string() })
  .meta({ id: 'AdvisoryFinding' });

export const advisoryFindingListResponse = z
  .object({
    data: z.array(advisoryFindingSchema),
    meta: pageMetaSchema,
    advisory_ids: z.array(z.string()).meta({ description: 'The identifiers searched: the one asked and its aliases' }),
  })
  .meta({ id: 'AdvisoryFindingList' });
