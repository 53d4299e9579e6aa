import * as z from 'zod';
import { skippedEntriesSchema } from '../sbom/model';
import { oneLine, pageMetaSchema, pagedListSchema, pageQuerySchema } from './common';
import {
  decisionStateSchema,
  dispositionStatus,
  importedFromSchema,
  justificationValue,
  responseValue,
} from './dispositions';

/** The original file name, served back on download and named in the audit log. */
const sbomFileName = oneLine(z.string().min(1).max(255));

export const uploadSbomBody = z
  .strictObject({
    releaseId: z.uuid(),
    /** The SBOM file as text: CycloneDX JSON or XML, SPDX JSON or tag-value (docs/sbom-formats.md). */
    content: z.string().min(1),
    fileName: sbomFileName.optional(),
  })
  .meta({ id: 'UploadSbom' });
export type UploadSbomInput = z.infer<typeof uploadSbomBody>;

/**
 * The upload's other body (docs/sbom-formats.md "Raw bodies"): the SBOM file itself,
 * with the release and file name in the query. `releaseId` in the query is what selects it.
 */
export const sbomUploadQuery = z.strictObject({
  releaseId: z
    .uuid()
    .optional()
    .meta({ description: 'With a raw SBOM body (required then); the envelope names its release in the body instead' }),
  fileName: sbomFileName
    .optional()
    .meta({ description: 'With a raw SBOM body: the original file name, served back on download' }),
});

/** How the OpenAPI document shows an `application/json` body: the envelope, or the SBOM JSON document itself. */
export const uploadSbomJsonBody = z.union([
  uploadSbomBody,
  z
    .record(z.string(), z.unknown())
    .meta({ description: 'A CycloneDX or SPDX JSON document itself (with `?releaseId=`)' }),
]);

/** Pre-signed upload flow for files too large for a Lambda request. */
export const createSbomUploadBody = z
  .strictObject({
    releaseId: z.uuid(),
    fileName: sbomFileName.optional(),
    size: z.number().int().min(1).meta({
      description: 'The exact byte size of the file: the upload URL is signed for it and takes no other length',
    }),
  })
  .meta({ id: 'CreateSbomUpload' });

export const sbomUploadIdParams = z.object({ uploadId: z.uuid() });

/** A pre-signed upload: PUT the file to `uploadUrl` before `expiresAt`, then POST `completePath`. */
export const sbomUploadSessionSchema = z
  .object({
    uploadId: z.uuid(),
    uploadUrl: z.string().meta({ description: 'Pre-signed S3 URL the client PUTs the file to' }),
    method: z.literal('PUT'),
    expiresAt: z.string(),
    maxBytes: z.number().int(),
    completePath: z.string().meta({ description: 'POST here once the file is uploaded' }),
  })
  .meta({ id: 'SbomUploadSession' });
export const sbomUploadSessionResponse = z
  .object({ data: sbomUploadSessionSchema })
  .meta({ id: 'SbomUploadSessionResponse' });

/**
 * The SBOM's scan (docs/scanning.md "Scan state and recovery", "One scan per SBOM"): the same
 * states the vulnerability list's 409 scan_pending / scan_failed name. `scanned_at` and the counts
 * belong to the last completed scan and survive a later rescan or failure.
 */
export const sbomScanSchema = z
  .object({
    status: z.enum(['queued', 'running', 'completed', 'failed']),
    scanned_at: z.string().nullable(),
    finding_count: z.number().int(),
    matched_component_count: z.number().int(),
    unmatched_component_count: z.number().int(),
    error: z.string().optional().meta({ description: 'Why the scan failed (status failed only)' }),
    last_evaluated_at: z.string().nullable().meta({
      description:
        'When the findings were last brought up to date with the corpus (a scan, or a re-evaluation after a corpus change)',
    }),
    corpus_version: z.string().nullable().meta({ description: 'The corpus change the findings reflect' }),
  })
  .meta({ id: 'SbomScan' });

export const sbomSchema = z
  .object({
    id: z.uuid(),
    releaseId: z.uuid(),
    format: z.enum(['CycloneDX', 'SPDX']),
    spec_version: z.string(),
    component_count: z.number().int(),
    /** Entries of the file not in the inventory, by reason: subject, duplicate… (docs/sbom-formats.md). */
    skipped: z.array(skippedEntriesSchema),
    /** Content-Type of the original file on download (application/vnd.cyclonedx+xml, text/spdx…). */
    media_type: z.string(),
    file_hash: z.string(),
    file_name: z.string().nullable(),
    file_size: z.number().int(),
    created_at: z.string(),
    scan: sbomScanSchema,
  })
  .meta({ id: 'Sbom' });

export const sbomIdParams = z.object({ id: z.uuid() });
export const sbomResponse = z.object({ data: sbomSchema }).meta({ id: 'SbomResponse' });

export const sbomListQuery = pageQuerySchema;
export const sbomListResponse = pagedListSchema(sbomSchema, 'SbomList');

export const cveScanBody = z.strictObject({ sbomId: z.uuid() }).meta({ id: 'CveScanRequest' });

/** The scan's outcome (202): the findings themselves are on the vulnerabilities endpoint. */
export const cveScanResponse = z
  .object({
    data: z.object({
      sbomId: z.string(),
      status: sbomScanSchema.shape.status,
      scannedAt: z.string().nullable(),
      findingCount: z.number().int(),
      matchedComponentCount: z.number().int(),
      unmatchedComponentCount: z.number().int(),
      error: z.string().optional().meta({ description: 'Why the scan failed (status failed only)' }),
      lastEvaluatedAt: z.string().optional().meta({
        description:
          'When the findings were last brought up to date with the corpus (this scan, or a re-evaluation since)',
      }),
      corpusVersion: z.string().nullable().optional().meta({ description: 'The corpus change the findings reflect' }),
    }),
  })
  .meta({ id: 'CveScanResult' });

export const severityFilter = z.enum(['critical', 'high', 'medium', 'low', 'none']);
export const vulnerabilityStatusFilter = z.enum([...dispositionStatus.options, 'undisposed']);

export const decisionFilter = z.enum(['carried', 'review_required', 'expired']);
export const VULNERABILITY_SORT_FIELDS = ['severity', 'epss', 'cvss', 'component', 'cve', 'first_detected'] as const;
export type VulnerabilitySortField = (typeof VULNERABILITY_SORT_FIELDS)[number];

/** `a,b,c` of one enum's values (case-insensitive, duplicates dropped): several values of a filter match any of them. */
export function commaList<T extends string>(values: z.ZodEnum<{ [K in T]: K }>, example: string) {
  const allowed = values.options as readonly string[];
  return z
    .string()
    .max(200)
    .transform((raw, context) => {
      const items = raw.split(',').map((item) => item.trim().toLowerCase());
      const unknown = items.filter((item) => !allowed.includes(item));
      if (unknown.length > 0) {
        context.addIssue({
          code: 'custom',
          message: `must be one or more of ${allowed.join(', ')}, comma-separated (e.g. ${example}); "${unknown[0] ?? ''}" is not one`,
        });
        return z.NEVER;
      }
      return [...new Set(items)] as T[];
    })
    .meta({ description: `Comma-separated, any of: ${allowed.join(', ')}`, example });
}

export const booleanFlag = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((value) => value === 'true');

/**
 * Query of both vulnerability lists (docs/api.md "Vulnerability lists"): paging, filters that
 * all must match, and `sort=<field>` ascending or `sort=-<field>` descending, ties in the
 * default order (KEV first, then severity, then EPSS, highest first).
 */
/** Whether a finding is still matched by the corpus (`open`) or no longer (`resolved`: withdrawn or not affected any more). */
export const findingStateFilter = z.enum(['open', 'resolved', 'all']);

export const vulnerabilityListQuery = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  perPage: z.coerce.number().int().min(1).max(500).default(100),
  severity: commaList(severityFilter, 'critical,high').optional(),
  status: commaList(vulnerabilityStatusFilter, 'affected,undisposed').optional(),
  decision: commaList(decisionFilter, 'carried,review_required').optional(),
  kev: booleanFlag.optional(),
  fixable: booleanFlag.optional(),
  epssMin: z.coerce.number().min(0).max(1).optional(),
  state: findingStateFilter.default('open').meta({
    description: 'open (default): findings the corpus still matches; resolved: no longer matched; all: both',
  }),
  search: z.string().trim().min(1).max(255).optional().meta({
    description: 'Case-insensitive substring of the component name or purl, the CVE, advisory id or an alias',
  }),
  sort: z
    .enum([...VULNERABILITY_SORT_FIELDS, ...VULNERABILITY_SORT_FIELDS.map((field) => `-${field}` as const)])
    .optional(),
});
export type VulnerabilityListQuery = z.output<typeof vulnerabilityListQuery>;

/** A finding's decision as the vulnerability lists show it; `decision_state` says whether it counts (expired and review_required do not). */
export const findingDecisionSchema = z
  .object({
    id: z.string(),
    status: dispositionStatus,
    response: responseValue.nullable(),
    justification: justificationValue.nullable(),
    decision_state: decisionStateSchema,
    expires_at: z.string().nullable(),
    review_required: z.boolean(),
    carried_from: z
      .object({ release_id: z.string(), release_version: z.string(), disposition_id: z.string() })
      .nullable(),
    imported_from: importedFromSchema.nullable(),
  })
  .meta({ id: 'FindingDecision' });

const severityValue = z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'NONE']);

/** An item of GET /api/sboms/{id}/vulnerabilities (shared/service/scans/vulnerabilities.ts toVulnerabilityView). */
export const sbomVulnerabilitySchema = z
  .object({
    id: z.string(),
    cve_id: z.string(),
    advisory_id: z.string(),
    aliases: z.array(z.string()),
    summary: z.string(),
    component_name: z.string(),
    component_version: z.string().nullable(),
    component_purl: z.string().nullable(),
    component_ref: z.string(),
    severity: severityValue,
    severity_source: z.enum(['cvss_v4', 'cvss_v3', 'cvss_v2', 'advisory']).nullable(),
    severity_source_id: z.string().nullable(),
    cvss_v3_score: z.number().nullable(),
    cvss_v3_vector: z.string().nullable(),
    cvss_v2_score: z.number().nullable(),
    cvss_v2_vector: z.string().nullable(),
    cvss_v4_score: z.number().nullable(),
    cvss_v4_vector: z.string().nullable(),
    epss_score: z.number().nullable(),
    epss_percentile: z.number().nullable(),
    is_kev: z.boolean(),
    kev: z
      .object({
        dateAdded: z.string(),
        dueDate: z.string().nullable(),
        knownRansomwareCampaignUse: z.string().nullable(),
      })
      .nullable(),
    cwes: z.array(z.string()),
    affected_versions: z.array(z.string()),
    fixed_versions: z.array(z.string()),
    match_confidence: z.enum(['exact', 'high', 'low']),
    match_evidence: z.object({ kind: z.enum(['purl', 'cpe', 'name']), value: z.string() }),
    first_detected_at: z.string(),
    detected_by: z.enum(['scan', 'corpus_update']).meta({
      description: "The SBOM's scan, or a re-evaluation after the vulnerability corpus changed",
    }),
    last_seen_at: z.string(),
    state: z.enum(['open', 'resolved']),
    resolved_at: z.string().nullable(),
    resolved_reason: z.enum(['advisory_withdrawn', 'no_longer_affected']).nullable(),
    no_longer_detected: z.boolean(),
    kev_added_at: z.string().nullable().meta({
      description: "When Vexdesk first saw the advisory KEV-listed for this finding (CISA's own date is kev.dateAdded)",
    }),
    informational: z.string().nullable(),
    disposition: findingDecisionSchema.optional(),
  })
  .meta({ id: 'SbomVulnerability' });
export type SbomVulnerability = z.infer<typeof sbomVulnerabilitySchema>;

/** An item of GET /api/releases/{releaseId}/vulnerabilities: one row per package and advisory over the release's SBOMs. */
export const releaseVulnerabilitySchema = sbomVulnerabilitySchema
  .extend({ sbom_ids: z.array(z.string()), finding_ids: z.array(z.string()) })
  .meta({ id: 'ReleaseVulnerability' });
export type ReleaseVulnerability = z.infer<typeof releaseVulnerabilitySchema>;

/**
 * `summary` of both vulnerability lists: counts over every row the filters match, not only the
 * page, by the decision that counts (expired and review-required decisions are undecided).
 */
export const findingSummarySchema = z
  .object({
    total: z.number().int(),
    affected: z.number().int(),
    notAffected: z.number().int(),
    fixed: z.number().int(),
    underInvestigation: z.number().int(),
    withoutDisposition: z.number().int(),
  })
  .meta({ id: 'FindingSummary' });
export type FindingSummary = z.infer<typeof findingSummarySchema>;

/** GET /api/sboms/{id}/vulnerabilities: a page of findings, counts over every match, and the SBOM's scan. */
export const sbomVulnerabilityListResponse = z
  .object({
    data: z.array(sbomVulnerabilitySchema),
    summary: findingSummarySchema,
    meta: pageMetaSchema,
    scan: sbomScanSchema,
  })
  .meta({ id: 'SbomVulnerabilityList' });

/** GET /api/releases/{releaseId}/vulnerabilities: as the SBOM list, with each SBOM of the release and its scan. */
export const releaseVulnerabilityListResponse = z
  .object({
    data: z.array(releaseVulnerabilitySchema),
    summary: findingSummarySchema,
    meta: pageMetaSchema,
    sboms: z.array(
      z.object({ id: z.string(), file_name: z.string().nullable(), created_at: z.string(), scan: sbomScanSchema }),
    ),
  })
  .meta({ id: 'ReleaseVulnerabilityList' });
