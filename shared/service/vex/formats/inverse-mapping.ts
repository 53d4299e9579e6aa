/**
 * Each format's vocabulary -> Vexdesk's disposition vocabulary: the inverse of the
 * generators' tables in ../formats/mapping.ts, derived from them rather than written out
 * again. Where the forward table sends two of our values to one label, the inverse takes
 * the value whose cell is not lossy (or the first). Labels no forward cell produces are
 * listed in the `*_ONLY_INBOUND` tables with the reason (docs/vex-import.md).
 */
import {
  CSAF_FLAG_LABEL,
  CSAF_PRODUCT_STATUS,
  CSAF_REMEDIATION,
  CYCLONEDX_JUSTIFICATION,
  CYCLONEDX_JUSTIFICATION_LOSSY,
  CYCLONEDX_RESPONSE,
  CYCLONEDX_STATE,
  OPENVEX_STATUS,
  type CdxAnalysisState,
  type CdxJustification,
  type CsafRemediationCategory,
} from './mapping';
import { JUSTIFICATIONS } from '../../dispositions/vocabulary';
import type { DispositionResponse, DispositionStatus, Justification } from '../../dispositions/vocabulary';

function invert<K extends string, V extends string>(
  forward: Readonly<Record<K, V>>,
  preferred: (key: K) => boolean = () => true,
): Map<V, K> {
  const inverse = new Map<V, K>();
  const entries = Object.entries(forward) as Array<[K, V]>;
  // Preferred cells first, so they win a shared label; otherwise the table's order decides.
  for (const [key, value] of [
    ...entries.filter(([key]) => preferred(key)),
    ...entries.filter(([key]) => !preferred(key)),
  ]) {
    if (!inverse.has(value)) inverse.set(value, key);
  }
  return inverse;
}

/**
 * CycloneDX states with no forward cell: `resolved_with_pedigree` is a resolved (fixed) one
 * with the evidence attached; `false_positive` says the match itself is wrong, i.e. not affected
 * (a justification is still required, as for not_affected).
 */
const CYCLONEDX_STATE_ONLY_INBOUND: Readonly<Partial<Record<CdxAnalysisState, DispositionStatus>>> = {
  resolved_with_pedigree: 'fixed',
  false_positive: 'not_affected',
};

/**
 * CycloneDX justifications with no forward cell, onto the CISA labels: a requirement the deployed
 * product does not meet means an adversary cannot reach the code; a protection names a mitigation.
 */
const CYCLONEDX_JUSTIFICATION_ONLY_INBOUND: Readonly<Partial<Record<CdxJustification, Justification>>> = {
  requires_configuration: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_dependency: 'component_not_present',
  protected_by_compiler: 'inline_mitigations_already_exist',
  protected_at_runtime: 'inline_mitigations_already_exist',
  protected_at_perimeter: 'inline_mitigations_already_exist',
};

/** CSAF `mitigation` (a step that lowers the risk without fixing it) has no forward cell: our nearest response is a workaround. */
const CSAF_REMEDIATION_ONLY_INBOUND: Readonly<Partial<Record<CsafRemediationCategory, DispositionResponse>>> = {
  mitigation: 'workaround_available',
};

const cdxState = invert(CYCLONEDX_STATE);
const cdxJustification = invert(CYCLONEDX_JUSTIFICATION, (key) => !CYCLONEDX_JUSTIFICATION_LOSSY[key]);
const cdxResponse = invert(CYCLONEDX_RESPONSE);
const openVexStatus = invert(OPENVEX_STATUS);
const csafStatus = invert(CSAF_PRODUCT_STATUS);
const csafFlag = invert(CSAF_FLAG_LABEL);
const csafRemediation = invert(CSAF_REMEDIATION);

const lookup =
  <K extends string, V extends string>(inverse: Map<V, K>, extra: Readonly<Partial<Record<V, K>>>) =>
  (label: unknown): K | null =>
    typeof label === 'string' ? (inverse.get(label as V) ?? extra[label as V] ?? null) : null;

export const fromCycloneDx = {
  state: lookup(cdxState, CYCLONEDX_STATE_ONLY_INBOUND),
  justification: lookup(cdxJustification, CYCLONEDX_JUSTIFICATION_ONLY_INBOUND),
  response: lookup(cdxResponse, {}),
};

const justifications = new Set<string>(JUSTIFICATIONS);

/** OpenVEX justifications are the CISA labels, i.e. ours (the generator writes them unchanged). */
export const fromOpenVex = {
  status: lookup(openVexStatus, {}),
  justification: (label: unknown): Justification | null =>
    typeof label === 'string' && justifications.has(label) ? (label as Justification) : null,
};

export const fromCsaf = {
  /** The product status groups that state a decision; the other groups (first_affected, recommended, ...) are read in statements.ts. */
  status: lookup(csafStatus, {}),
  flag: lookup(csafFlag, {}),
  remediation: lookup(csafRemediation, CSAF_REMEDIATION_ONLY_INBOUND),
};
