/**
 * The disposition vocabulary (spec "Disposition"), free of zod: the request and response schemas, the VEX
 * format mappings and the console's forms read these lists, so each value is written once.
 */
export const DISPOSITION_STATUSES = ['affected', 'not_affected', 'fixed', 'under_investigation'] as const;
export type DispositionStatus = (typeof DISPOSITION_STATUSES)[number];

/** Required with `not_affected` (CISA's justification labels, as OpenVEX writes them). */
export const JUSTIFICATIONS = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
] as const;
export type Justification = (typeof JUSTIFICATIONS)[number];

/** Required with `affected`: what the vendor does about it. */
export const RESPONSES = ['can_not_fix', 'will_not_fix', 'update', 'rollback', 'workaround_available'] as const;
export type DispositionResponse = (typeof RESPONSES)[number];
