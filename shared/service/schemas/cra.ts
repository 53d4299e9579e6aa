import * as z from 'zod';
import { DATE_TIME_EXAMPLE, dataEnvelope, oneLine, pagedListSchema, pageQuerySchema } from './common';
import { CRA_STAGES, CRA_STATUSES } from '../cra/rules';

const dateTime = z.iso.datetime({
  offset: true,
  error: `must be an ISO 8601 date-time with offset, e.g. ${DATE_TIME_EXAMPLE}`,
});
const webUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
const freeText = z.string().max(10_000);

/** The free-text fields a person finishes per stage (docs/cra-reporting.md "Drafts"); the rest is drafted from the data. */
export const CRA_DRAFT_FIELDS = {
  early_warning: ['summary', 'malicious_use', 'notes'],
  notification: [
    'product_description',
    'exploit_nature',
    'vulnerability_nature',
    'corrective_measures',
    'user_measures',
    'sensitivity',
    'notes',
  ],
  final_report: ['description', 'severity_and_impact', 'malicious_actor', 'security_update', 'users_informed', 'notes'],
} as const satisfies Record<(typeof CRA_STAGES)[number], readonly string[]>;

const draftFields = <const F extends readonly string[]>(fields: F) =>
  z.strictObject(
    Object.fromEntries(fields.map((field) => [field, freeText.optional()])) as Record<
      F[number],
      z.ZodOptional<typeof freeText>
    >,
  );

export const craStageParams = z.object({ caseId: z.uuid(), stage: z.enum(CRA_STAGES) });
export const craCaseIdParams = z.object({ caseId: z.uuid() });

export const craCaseListQuery = pageQuerySchema.extend({
  status: z
    .string()
    .max(200)
    .transform((raw, context) => {
      const items = raw.split(',').map((item) => item.trim().toLowerCase());
      const unknown = items.find((item) => !(CRA_STATUSES as readonly string[]).includes(item));
      if (unknown !== undefined) {
        context.addIssue({ code: 'custom', message: `must be one or more of ${CRA_STATUSES.join(', ')}` });
        return z.NEVER;
      }
      return items as (typeof CRA_STATUSES)[number][];
    })
    .optional()
    .meta({ description: `Comma-separated, any of: ${CRA_STATUSES.join(', ')}` }),
  productId: z.uuid().optional(),
  due_before: dateTime.optional().meta({ description: 'Only cases whose next deadline falls before this time' }),
});
export type CraCaseListQuery = z.output<typeof craCaseListQuery>;

export const updateCraCaseBody = z
  .strictObject({
    aware_at: dateTime.optional().meta({ description: 'Earlier than the observed awareness only, with a reason' }),
    aware_at_reason: oneLine(z.string().trim().min(1).max(2000)).optional(),
    drafts: z
      .strictObject({
        early_warning: draftFields(CRA_DRAFT_FIELDS.early_warning).optional(),
        notification: draftFields(CRA_DRAFT_FIELDS.notification).optional(),
        final_report: draftFields(CRA_DRAFT_FIELDS.final_report).optional(),
      })
      .optional(),
  })
  .refine((body) => body.aware_at === undefined || body.aware_at_reason !== undefined, {
    message: 'aware_at needs aware_at_reason',
    path: ['aware_at_reason'],
  })
  .meta({ id: 'UpdateCraCase' });
export type UpdateCraCaseInput = z.infer<typeof updateCraCaseBody>;

export const dismissCraCaseBody = z
  .strictObject({ reason: z.string().trim().min(1).max(5000) })
  .meta({ id: 'DismissCraCase' });

export const closeCraCaseBody = z
  .strictObject({ note: z.string().trim().max(5000).optional() })
  .default({})
  .meta({ id: 'CloseCraCase' });

export const recordCraFixBody = z
  .strictObject({
    measure: z.string().trim().min(1).max(5000),
    available_at: dateTime,
    release_id: z.uuid().optional(),
  })
  .meta({ id: 'RecordCraFix' });

export const craSubmissionBody = z
  .strictObject({
    stage: z.enum(CRA_STAGES),
    submitted_at: dateTime,
    reference: oneLine(z.string().trim().min(1).max(500)),
    note: z.string().max(5000).optional(),
  })
  .meta({ id: 'CraSubmission' });

export const markExploitedBody = z
  .strictObject({
    vulnerability_id: oneLine(z.string().trim().min(1).max(200)).meta({ description: 'A CVE or an advisory id' }),
    reason: z.string().trim().min(1).max(5000),
    evidence_url: webUrl,
  })
  .meta({ id: 'MarkExploited' });

export const informCraUsersBody = z
  .strictObject({
    release_ids: z
      .array(z.uuid())
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'Affected releases to draft the advisory of; default: every affected release' }),
    author: oneLine(z.string().trim().min(1).max(200)).optional(),
  })
  .default({})
  .meta({ id: 'InformCraUsers' });

export const craReportQuery = z.strictObject({ format: z.enum(['json', 'markdown']).optional() });

const timelinessSchema = z.object({
  due: z.string().nullable(),
  submitted_at: z.string().nullable(),
  met: z.boolean().nullable(),
  late_by_seconds: z.number().int().nullable(),
  overdue: z.boolean(),
});

export const craCaseSchema = z
  .object({
    id: z.uuid(),
    product_id: z.string(),
    product_name: z.string(),
    vulnerability_id: z.string(),
    aliases: z.array(z.string()),
    advisory_ids: z.array(z.string()),
    summary: z.string(),
    severity: z.string(),
    cvss: z.object({ version: z.string(), vector: z.string(), score: z.number() }).nullable(),
    cwes: z.array(z.string()),
    exploitation: z.object({
      source: z.enum(['kev', 'member']),
      kev_date_added: z.string().nullable(),
      kev_added_at: z.string().nullable(),
      known_ransomware_campaign_use: z.string().nullable(),
      reason: z.string().nullable(),
      evidence_url: z.string().nullable(),
      marked_by: z.string().nullable(),
    }),
    status: z.enum(CRA_STATUSES),
    aware_at: z.string(),
    observed_aware_at: z.string(),
    aware_at_reason: z.string().nullable(),
    affected_releases: z.array(
      z.object({
        release_id: z.string(),
        version: z.string(),
        components: z.array(
          z.object({ name: z.string(), version: z.string().nullable(), purl: z.string().nullable() }),
        ),
        fixed_versions: z.array(z.string()),
        finding_ids: z.array(z.string()),
        first_detected_at: z.string(),
      }),
    ),
    fix_available_at: z.string().nullable(),
    fix: z
      .object({
        source: z.enum(['release', 'member']),
        release_id: z.string().nullable(),
        version: z.string().nullable(),
        measure: z.string().nullable(),
      })
      .nullable(),
    early_warning_due: z.string(),
    notification_due: z.string(),
    final_report_due: z.string().nullable(),
    next_deadline: z.string().nullable(),
    timeliness: z.object({
      early_warning: timelinessSchema,
      notification: timelinessSchema,
      final_report: timelinessSchema,
    }),
    submissions: z.array(
      z.object({
        stage: z.enum(CRA_STAGES),
        submitted_at: z.string(),
        reference: z.string(),
        note: z.string().nullable(),
        recorded_at: z.string(),
        recorded_by: z.string(),
      }),
    ),
    dismissal: z.object({ reason: z.string(), at: z.string(), by: z.string() }).nullable(),
    dismissal_suggested: z.object({ at: z.string(), justification: z.string().nullable() }).nullable(),
    users_informed_at: z
      .string()
      .nullable()
      .meta({ description: 'When an advisory drafted from the case was first published (Art. 14(8))' }),
    users_informed: z.object({
      documents: z.array(
        z.object({
          vex_id: z.string(),
          release_id: z.string(),
          version: z.string(),
          drafted_at: z.string(),
          drafted_by: z.string(),
          published_at: z.string().nullable(),
          disclosure_url: z.string().nullable(),
        }),
      ),
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'CraCase' });
export type CraCaseView = z.infer<typeof craCaseSchema>;

export const craCaseDetailSchema = craCaseSchema
  .extend({
    timeline: z.array(
      z.object({ at: z.string(), type: z.string(), by: z.string(), detail: z.record(z.string(), z.unknown()) }),
    ),
    drafts: z.record(
      z.string(),
      z.object({
        fields: z.record(z.string(), z.string()),
        version: z.number().int(),
        updated_at: z.string(),
        updated_by: z.string(),
      }),
    ),
  })
  .meta({ id: 'CraCaseDetail' });
export type CraCaseDetailView = z.infer<typeof craCaseDetailSchema>;

export const craReportSchema = z
  .object({
    case_id: z.string(),
    stage: z.enum(CRA_STAGES),
    article: z.string(),
    due: z.string().nullable(),
    draft_version: z.number().int(),
    facts: z.record(z.string(), z.unknown()).meta({ description: 'What Vexdesk knows, drafted from the data' }),
    fields: z.record(z.string(), z.string()).meta({ description: 'The free-text fields a person finishes' }),
    markdown: z.string(),
  })
  .meta({ id: 'CraReport' });
export type CraReportView = z.infer<typeof craReportSchema>;

export const craCaseResponse = dataEnvelope(craCaseDetailSchema, 'CraCaseResponse');
export const craCaseListResponse = pagedListSchema(craCaseSchema, 'CraCaseList');
export const craReportResponse = dataEnvelope(craReportSchema, 'CraReportResponse');
export const markExploitedResponse = dataEnvelope(
  z.object({ vulnerability_id: z.string(), case_ids: z.array(z.string()) }),
  'MarkExploitedResponse',
);
