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
  name: oneLine(z.string().trim().min(1).max(512)).optional().meta({
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

const severityCounts = {
  critical: z.number().int(),
  high: z.number().int(),
  medium: z.number().int(),
  low: z.number().int(),
  none: z.number().int(),
};

/** GET /api/dashboard: the team's open findings now and the stored daily counts of the last 30 days. */
export const dashboardResponse = z
  .object({
    data: z.object({
      generated_at: z.string(),
      open: z.object({ total: z.number().int(), ...severityCounts }).meta({
        description: 'Open findings (one per release, package and advisory) of active and deprecated releases',
      }),
      open_kev: z.number().int(),
      undecided: z.number().int().meta({ description: 'Open findings without a decision that counts' }),
      sla: z
        .object({ breached: z.number().int(), at_risk: z.number().int() })
        .meta({ description: "Open findings past (or near) the team's SLA window" }),
      top_products: z
        .array(
          z.object({
            product_id: z.string(),
            name: z.string(),
            open: z.number().int(),
            critical: z.number().int(),
            kev: z.number().int(),
          }),
        )
        .meta({ description: 'At most 10 products with the most open critical or known-exploited findings' }),
      trend: z
        .array(
          z.object({
            day: z.string(),
            open: z.number().int(),
            ...severityCounts,
            kev: z.number().int(),
            undecided: z.number().int(),
          }),
        )
        .meta({ description: 'Daily snapshots of the last 30 days, oldest first; days without one are absent' }),
    }),
  })
  .meta({ id: 'Dashboard' });
