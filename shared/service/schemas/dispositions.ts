import * as z from 'zod';
import { DISPOSITION_STATUSES, JUSTIFICATIONS, RESPONSES } from '../dispositions/vocabulary';
import { vexFormat } from './vex';

export const dispositionStatus = z.enum(DISPOSITION_STATUSES);
export const justificationValue = z.enum(JUSTIFICATIONS);
export const responseValue = z.enum(RESPONSES);

const text5000 = z.string().max(5000);

export const dispositionFields = {
  status: dispositionStatus,
  justification: justificationValue,
  response: responseValue,
  detail: text5000,
  actionStatement: text5000,
  impactStatement: text5000,
  assignedTo: z.uuid(),
  /** After this instant the decision counts as undecided; must lie ahead when written (checked by the service). */
  expiresAt: z.iso.datetime({ offset: true }),
};

export const createDispositionBody = z
  .strictObject({
    vulnerabilityId: z.uuid(),
    status: dispositionFields.status.default('under_investigation'),
    justification: dispositionFields.justification.optional(),
    response: dispositionFields.response.optional(),
    detail: dispositionFields.detail.optional(),
    actionStatement: dispositionFields.actionStatement.optional(),
    impactStatement: dispositionFields.impactStatement.optional(),
    assignedTo: dispositionFields.assignedTo.optional(),
    expiresAt: dispositionFields.expiresAt.optional(),
  })
  .meta({ id: 'CreateDisposition' });

export const updateDispositionBody = z
  .strictObject({
    status: dispositionFields.status.optional(),
    justification: dispositionFields.justification.nullable().optional(),
    response: dispositionFields.response.nullable().optional(),
    detail: dispositionFields.detail.nullable().optional(),
    actionStatement: dispositionFields.actionStatement.nullable().optional(),
    impactStatement: dispositionFields.impactStatement.nullable().optional(),
    assignedTo: dispositionFields.assignedTo.nullable().optional(),
    expiresAt: dispositionFields.expiresAt.nullable().optional(),
  })
  .meta({ id: 'UpdateDisposition' });

export const batchDispositionBody = z
  .strictObject({
    vulnerabilityIds: z.array(z.uuid()).min(1).max(500),
    status: dispositionStatus,
    justification: justificationValue.optional(),
    response: responseValue.optional(),
    detail: text5000.optional(),
    expiresAt: dispositionFields.expiresAt.optional(),
  })
  .meta({ id: 'BatchDisposition' });

export const dispositionIdParams = z.object({ dispositionId: z.uuid() });

const personRef = z.object({ id: z.string(), name: z.string() });

/** The VEX document an import took a decision from; null once a member changes the decision. */
export const importedFromSchema = z
  .object({ document_sha256: z.string(), author: z.string().nullable(), format: vexFormat, imported_at: z.string() })
  .meta({ id: 'ImportedFrom' });

/** Whether a decision counts: `expired` and `review_required` count as undecided; `none` is no decision. */
export const decisionStateSchema = z.enum(['none', 'decided', 'carried', 'review_required', 'expired']);

/** A disposition as the API shows it (spec "Disposition": `id`, `status`, `response` and the fields it writes). */
export const dispositionSchema = z
  .object({
    id: z.string(),
    vulnerabilityId: z.string(),
    releaseId: z.string(),
    advisory_id: z.string(),
    package: z
      .string()
      .meta({ description: 'The package at its version (purl or name@version) the decision is about' }),
    status: dispositionStatus,
    justification: justificationValue.nullable(),
    response: responseValue.nullable(),
    detail: z.string().nullable(),
    actionStatement: z.string().nullable(),
    impactStatement: z.string().nullable(),
    assignedTo: z.string().nullable(),
    decided_at: z.string().nullable().meta({ description: 'When the disposition first became final; null while not' }),
    created_at: z.string(),
    updated_at: z.string(),
    updated_by: personRef,
    expires_at: z.string().nullable(),
    review_required: z.boolean(),
    carried_from: z
      .object({
        release_id: z.string(),
        release_version: z.string(),
        disposition_id: z.string(),
        decided_by: personRef,
        decided_at: z.string(),
      })
      .nullable()
      .meta({ description: 'The decision of an earlier release this one was carried from' }),
    imported_from: importedFromSchema.nullable(),
    decision_state: decisionStateSchema,
  })
  .meta({ id: 'Disposition' });
export type DispositionView = z.infer<typeof dispositionSchema>;

export const dispositionResponse = z.object({ data: dispositionSchema }).meta({ id: 'DispositionResponse' });

/** One change of a disposition: who, when, and each field's value before and after. */
export const dispositionChangeSchema = z
  .object({
    changeId: z.string(),
    at: z.string(),
    actor: z.object({ id: z.string(), name: z.string(), email: z.string().nullable() }),
    changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
  })
  .meta({ id: 'DispositionChange' });

export const dispositionWithHistoryResponse = z
  .object({ data: dispositionSchema.extend({ history: z.array(dispositionChangeSchema) }) })
  .meta({ id: 'DispositionWithHistoryResponse' });

/** Spec: `{ updated: <integer> }`. */
export const batchDispositionResponse = z.object({ updated: z.number().int() }).meta({ id: 'BatchDispositionResult' });
