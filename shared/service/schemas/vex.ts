import * as z from 'zod';
import { dataEnvelope, optionalCommentBody, pagedListSchema } from './common';

export const vexFormat = z.enum(['cyclonedx_vex', 'openvex', 'csaf']);
export type VexFormat = z.infer<typeof vexFormat>;
export const workflowStatus = z.enum(['draft', 'submitted', 'approved', 'published']);

export const createVexBody = z
  .strictObject({
    format: vexFormat,
    author: z.string().max(255).optional(),
    /** Binds the document to one SBOM of the release (its findings only); scanners apply a VEX to the BOM it names. */
    sbomId: z.string().min(1).max(64).optional(),
  })
  .meta({ id: 'CreateVexDocument' });

export const vexIdParams = z.object({ vexId: z.string().min(1).max(64) });

export const submitBody = optionalCommentBody;
export const approveBody = optionalCommentBody;
export const publishBody = optionalCommentBody;
/** Spec: reject requires a comment of 1-5000 chars. */
export const rejectBody = z
  .strictObject({ comment: z.string().trim().min(1).max(5000) })
  .meta({ id: 'RejectVexDocument' });
/** Unlock (design ours, see docs/vex-workflow.md): a reason is required because it is evidence. */
export const unlockReleaseBody = z
  .strictObject({ comment: z.string().trim().min(1).max(5000) })
  .meta({ id: 'UnlockRelease' });

const personRef = z.object({ id: z.string(), name: z.string() });

/** A VEX document as the API shows it (spec "VEX document"); `content` only where the spec returns it (create, read, regenerate). */
export const vexDocumentSchema = z
  .object({
    id: z.string(),
    releaseId: z.string(),
    productId: z.string(),
    format: vexFormat,
    workflow_status: workflowStatus,
    author: z.string().nullable(),
    version: z.number().int().meta({ description: 'Incremented on each regeneration' }),
    content_hash: z.string().meta({ description: 'SHA-256 (hex) of the document bytes' }),
    sbom_ids: z.array(z.string()).meta({ description: 'The SBOMs whose findings the document covers' }),
    sbom_id: z
      .string()
      .nullable()
      .meta({ description: 'The one SBOM the document is bound to, or null for every SBOM of the release' }),
    finding_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
    submitted_by: personRef.nullable(),
    approved_at: z.string().nullable(),
    published_at: z.string().nullable(),
    disclosure: z
      .object({
        id: z.string(),
        public_slug: z.string(),
        links: z.object({ self: z.string(), raw: z.string() }),
      })
      .nullable()
      .meta({ description: 'The public disclosure once published' }),
    content: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'The VEX document itself (CycloneDX, OpenVEX or CSAF JSON)' }),
  })
  .meta({ id: 'VexDocument' });
export type VexDocumentView = z.infer<typeof vexDocumentSchema>;

export const vexDocumentResponse = dataEnvelope(vexDocumentSchema, 'VexDocumentResponse');
export const vexDocumentListResponse = pagedListSchema(vexDocumentSchema, 'VexDocumentList');

/** Spec "Approval record"; `unlock` records a release unlock on each document that held the lock. */
export const approvalRecordSchema = z
  .object({
    id: z.string(),
    action: z.enum(['submit', 'approve', 'reject', 'publish', 'unlock']),
    actor_id: z.string(),
    actor_name: z.string(),
    comment: z.string(),
    created_at: z.string(),
    document_version: z.number().int().meta({ description: 'The document version the action applied to' }),
  })
  .meta({ id: 'ApprovalRecord' });
export type ApprovalRecordView = z.infer<typeof approvalRecordSchema>;

export const approvalListResponse = z.object({ data: z.array(approvalRecordSchema) }).meta({ id: 'ApprovalList' });
