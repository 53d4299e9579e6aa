/**
 * Input of the compliance attestation report: plain data gathered by the caller
 * (the report handler reads it from the table and S3; tests and the bench build it
 * directly). The renderer does no I/O, so everything it shows must be in here.
 *
 * Fields are lenient where stored data may predate a rule (no max lengths: the write
 * paths already enforce the spec's limits) and strict where the report computes with
 * them (dates, scores, enums).
 */
import * as z from 'zod';
import { isoDateOrDateTime } from '../schemas/common';
import { slaPolicySchema } from '../schemas/compliance';
import { dispositionStatus, justificationValue, responseValue } from '../schemas/dispositions';
import { releaseStatus } from '../schemas/releases';
import { vexFormat, workflowStatus } from '../schemas/vex';

const isoDateTime = z.iso.datetime({ offset: true });
const optionalText = z.string().nullable().default(null);

export const severityValue = z.enum(['critical', 'high', 'medium', 'low', 'none']);
export type Severity = z.infer<typeof severityValue>;

/** The spec returns severities upper-case and filters lower-case; accept both. */
const severityInput = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(severityValue);

const score = (max: number) => z.number().min(0).max(max).nullable().default(null);

export const reportTeamSchema = z.object({
  id: z.string().optional(),
  name: z.string(),
});

export const reportProductSchema = z.object({
  id: z.string().optional(),
  name: z.string(),
  slug: z.string(),
  vendor: optionalText,
  description: optionalText,
  websiteUrl: optionalText,
  repositoryUrl: optionalText,
});

export const reportReleaseSchema = z.object({
  id: z.string().optional(),
  version: z.string(),
  name: optionalText,
  releaseDate: isoDateOrDateTime.nullable().default(null),
  endOfLifeDate: isoDateOrDateTime.nullable().default(null),
  status: releaseStatus.default('active'),
  isLocked: z.boolean().default(false),
});

export const reportSbomSchema = z.object({
  /** Used to point at the download endpoint when the inventory is truncated. */
  id: z.string(),
  /** `CycloneDX` or `SPDX` as detected on upload. */
  format: z.string(),
  specVersion: optionalText,
  toolName: optionalText,
  /** SHA-256 of the stored file (hex, optionally `sha256:`-prefixed). */
  fileHash: z.string(),
  uploadedAt: isoDateTime,
  fileName: optionalText,
  componentCount: z.number().int().min(0),
  /** When the CVE scan last completed for this SBOM; null when no scan is recorded. */
  scannedAt: isoDateTime.nullable().default(null),
});

export const reportComponentSchema = z.object({
  name: z.string(),
  version: optionalText,
  purl: optionalText,
  licenses: z.array(z.string()).default([]),
});

export const reportDispositionSchema = z.object({
  status: dispositionStatus,
  justification: justificationValue.nullable().default(null),
  response: responseValue.nullable().default(null),
  detail: optionalText,
  updatedAt: isoDateTime,
  /**
   * When the disposition reached its current status. Optional: when absent the SLA
   * uses `updatedAt`, which is conservative (a later edit of the detail text can only
   * make a finding look later, never earlier).
   */
  decidedAt: isoDateTime.nullable().default(null),
});

export const reportFindingSchema = z.object({
  id: z.string().optional(),
  cveId: z.string(),
  componentName: z.string(),
  componentVersion: optionalText,
  severity: severityInput,
  cvssV2Score: score(10),
  cvssV3Score: score(10),
  cvssV4Score: score(10),
  epssScore: score(1),
  epssPercentile: score(1),
  isKev: z.boolean().default(false),
  /** CISA KEV `dueDate`, when known: it can shorten the SLA window (see sla.ts). */
  kevDueDate: isoDateOrDateTime.nullable().default(null),
  firstDetectedAt: isoDateTime,
  disposition: reportDispositionSchema.nullable().default(null),
});

export const reportApprovalSchema = z.object({
  /** `submit`, `approve`, `reject`, `publish` (and `unlock`): kept open so new actions still render. */
  action: z.string(),
  actorName: optionalText,
  comment: optionalText,
  createdAt: isoDateTime,
});

export const reportDisclosureSchema = z.object({
  publicSlug: z.string(),
  /** Absolute, or relative to `baseUrl` (the spec's `links` are relative paths). */
  url: z.string(),
  verifyUrl: z.string(),
  contentHash: z.string(),
  publishedAt: isoDateTime,
  signed: z.boolean(),
});

export const reportVexDocumentSchema = z.object({
  id: z.string(),
  format: vexFormat,
  workflowStatus: workflowStatus,
  version: z.number().int().min(0),
  author: optionalText,
  approvals: z.array(reportApprovalSchema).default([]),
  disclosure: reportDisclosureSchema.nullable().default(null),
});

const craStage = z.enum(['early_warning', 'notification', 'final_report']);

/** A CRA Article 14 case listing this release (docs/cra-reporting.md): its deadlines and what was submitted when. */
export const reportCraCaseSchema = z.object({
  id: z.string(),
  vulnerabilityId: z.string(),
  aliases: z.array(z.string()).default([]),
  /** `open`, `early_warning_sent`, …, `closed`, `dismissed`: kept open so new statuses still render. */
  status: z.string(),
  awareAt: isoDateTime,
  affectedVersions: z.array(z.string()).default([]),
  deadlines: z.object({
    early_warning: isoDateTime,
    notification: isoDateTime,
    /** Null until a corrective or mitigating measure is available. */
    final_report: isoDateTime.nullable(),
  }),
  submissions: z.array(z.object({ stage: craStage, submittedAt: isoDateTime, reference: z.string() })).default([]),
  usersInformedAt: isoDateTime.nullable().default(null),
  dismissalReason: optionalText,
});

export const complianceReportInputSchema = z.object({
  team: reportTeamSchema,
  product: reportProductSchema,
  release: reportReleaseSchema,
  sboms: z.array(reportSbomSchema).default([]),
  components: z.array(reportComponentSchema).default([]),
  findings: z.array(reportFindingSchema).default([]),
  vexDocuments: z.array(reportVexDocumentSchema).default([]),
  /** The CRA Article 14 cases whose affected releases include this one, timed at `generatedAt`. */
  craCases: z.array(reportCraCaseSchema).default([]),
  /** Team overrides (the settings store a partial policy); missing keys take the defaults. */
  slaPolicy: slaPolicySchema.partial().nullable().default(null),
  /** Also the "now" of the SLA evaluation, so a report re-rendered from the same input is identical. */
  generatedAt: isoDateTime,
  /** Public base URL of the API, used for disclosure links and the SBOM download hint. */
  baseUrl: z.url({ protocol: /^https?$/ }),
});

/** What callers pass (defaults not yet applied, severities in any case). */
export type ComplianceReportInput = z.input<typeof complianceReportInputSchema>;
/** What the renderer works with after validation. */
export type ComplianceReportData = z.output<typeof complianceReportInputSchema>;
export type ReportFinding = z.output<typeof reportFindingSchema>;
export type ReportDisposition = z.output<typeof reportDispositionSchema>;
export type ReportSbom = z.output<typeof reportSbomSchema>;
export type ReportComponent = z.output<typeof reportComponentSchema>;
export type ReportVexDocument = z.output<typeof reportVexDocumentSchema>;
export type ReportCraCase = z.output<typeof reportCraCaseSchema>;

export const renderOptionsSchema = z.object({
  /**
   * Rows of the component inventory. Above it the table is cut and the report says so,
   * with the SBOM download links: a Lambda response is capped at 6 MB, and an SBOM may
   * list far more components than fit.
   */
  maxComponentRows: z.number().int().min(0).default(20_000),
  /** Characters of a disposition's free-text detail shown per finding (then cut, visibly). */
  maxDetailChars: z.number().int().min(0).default(300),
});
export type RenderOptions = z.input<typeof renderOptionsSchema>;
export type ResolvedRenderOptions = z.output<typeof renderOptionsSchema>;
