import * as z from 'zod';
import { oneLine, optionalCommentBody } from './common';

export const vexFormat = z.enum(['cyclonedx_vex', 'openvex', 'csaf']);
export type VexFormat = z.infer<typeof vexFormat>;
export const workflowStatus = z.enum(['draft', 'submitted', 'approved', 'published']);

export const createVexBody = z
  .strictObject({
    format: vexFormat,
    author: oneLine(z.string().max(255)).optional(),
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
