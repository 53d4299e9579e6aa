import * as z from 'zod';

export const dispositionStatus = z.enum(['affected', 'not_affected', 'fixed', 'under_investigation']);
export const justificationValue = z.enum([
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
]);
export const responseValue = z.enum(['can_not_fix', 'will_not_fix', 'update', 'rollback', 'workaround_available']);

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
