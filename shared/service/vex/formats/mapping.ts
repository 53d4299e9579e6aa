/**
 * Vexdesk disposition vocabulary -> each target format's vocabulary.
 * Reasons for every lossy cell are in docs/vex-mapping.md; the tests assert each cell.
 *
 * Our status/justification labels are the CISA "Minimum Requirements for VEX" labels,
 * which OpenVEX uses verbatim and CSAF uses as flag labels, so only CycloneDX needs
 * real translation.
 */
import type { DispositionResponse, DispositionStatus, Justification } from '../model';

export type CdxAnalysisState =
  | 'resolved'
  | 'resolved_with_pedigree'
  | 'exploitable'
  | 'in_triage'
  | 'false_positive'
  | 'not_affected';
export type CdxJustification =
  | 'code_not_present'
  | 'code_not_reachable'
  | 'requires_configuration'
  | 'requires_dependency'
  | 'requires_environment'
  | 'protected_by_compiler'
  | 'protected_at_runtime'
  | 'protected_at_perimeter'
  | 'protected_by_mitigating_control';
export type CdxResponse = 'can_not_fix' | 'will_not_fix' | 'update' | 'rollback' | 'workaround_available';
export type CdxAffectedStatus = 'affected' | 'unaffected' | 'unknown';

export type OpenVexStatus = 'not_affected' | 'affected' | 'fixed' | 'under_investigation';

export type CsafProductStatusGroup = 'known_affected' | 'known_not_affected' | 'fixed' | 'under_investigation';
export type CsafRemediationCategory = 'mitigation' | 'no_fix_planned' | 'none_available' | 'vendor_fix' | 'workaround';
export type CsafFlagLabel = Justification;

/** `affected` has no CycloneDX twin: `exploitable` is the CycloneDX VEX guide's "affected". */
export const CYCLONEDX_STATE: Readonly<Record<DispositionStatus, CdxAnalysisState>> = {
  affected: 'exploitable',
  not_affected: 'not_affected',
  fixed: 'resolved',
  under_investigation: 'in_triage',
};

/** Status of the component's own version in `affects[].versions[]`. */
export const CYCLONEDX_VERSION_STATUS: Readonly<Record<DispositionStatus, CdxAffectedStatus>> = {
  affected: 'affected',
  not_affected: 'unaffected',
  fixed: 'unaffected',
  under_investigation: 'unknown',
};

export const CYCLONEDX_JUSTIFICATION: Readonly<Record<Justification, CdxJustification>> = {
  // No "component not present" label in CycloneDX; absent component => absent code.
  component_not_present: 'code_not_present',
  vulnerable_code_not_present: 'code_not_present',
  vulnerable_code_not_in_execute_path: 'code_not_reachable',
  // Attacker cannot reach/control the input in the deployed environment; the protected_* labels would claim a control we cannot name.
  vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment',
  inline_mitigations_already_exist: 'protected_by_mitigating_control',
};

/** Cells where CycloneDX loses the original meaning; the original label is kept in `vexdesk:justification`. */
export const CYCLONEDX_JUSTIFICATION_LOSSY: Readonly<Record<Justification, boolean>> = {
  component_not_present: true,
  vulnerable_code_not_present: false,
  vulnerable_code_not_in_execute_path: false,
  vulnerable_code_cannot_be_controlled_by_adversary: true,
  inline_mitigations_already_exist: false,
};

/** Same five values in both vocabularies. */
export const CYCLONEDX_RESPONSE: Readonly<Record<DispositionResponse, CdxResponse>> = {
  can_not_fix: 'can_not_fix',
  will_not_fix: 'will_not_fix',
  update: 'update',
  rollback: 'rollback',
  workaround_available: 'workaround_available',
};

export const OPENVEX_STATUS: Readonly<Record<DispositionStatus, OpenVexStatus>> = {
  affected: 'affected',
  not_affected: 'not_affected',
  fixed: 'fixed',
  under_investigation: 'under_investigation',
};

export const CSAF_PRODUCT_STATUS: Readonly<Record<DispositionStatus, CsafProductStatusGroup>> = {
  affected: 'known_affected',
  not_affected: 'known_not_affected',
  fixed: 'fixed',
  under_investigation: 'under_investigation',
};

/** CSAF flag labels are the CISA justification labels, i.e. ours. */
export const CSAF_FLAG_LABEL: Readonly<Record<Justification, CsafFlagLabel>> = {
  component_not_present: 'component_not_present',
  vulnerable_code_not_present: 'vulnerable_code_not_present',
  vulnerable_code_not_in_execute_path: 'vulnerable_code_not_in_execute_path',
  vulnerable_code_cannot_be_controlled_by_adversary: 'vulnerable_code_cannot_be_controlled_by_adversary',
  inline_mitigations_already_exist: 'inline_mitigations_already_exist',
};

/**
 * Remediation category of a known_affected product. `rollback` is a vendor-provided
 * release that removes the vulnerable code, hence vendor_fix; `can_not_fix` says no fix
 * exists (none_available, reason in details) while `will_not_fix` says none is planned.
 */
export const CSAF_REMEDIATION: Readonly<Record<DispositionResponse, CsafRemediationCategory>> = {
  update: 'vendor_fix',
  rollback: 'vendor_fix',
  workaround_available: 'workaround',
  will_not_fix: 'no_fix_planned',
  can_not_fix: 'none_available',
};
/** Affected without a recorded response (the API requires one, older data may lack it). */
export const CSAF_REMEDIATION_WITHOUT_RESPONSE: CsafRemediationCategory = 'none_available';
