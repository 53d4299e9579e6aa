/**
 * The gate (docs/ci.md "Gate"): which findings fail a build. A finding decided `not_affected`
 * or `fixed` never fails (an expired or review-required decision is no decision). Of the
 * others, a finding fails when it meets any condition given; `--fixable-only` first leaves out
 * findings without a known fixed version.
 */
import { decisionOf, type FindingItem, type Severity } from './findings';

export const GATE_SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type GateSeverity = (typeof GATE_SEVERITIES)[number];

export interface GatePolicy {
  failOn?: GateSeverity | undefined;
  kev?: boolean | undefined;
  /** 0–1: fails at or above this EPSS probability (no score counts as 0, as the list's `epssMin`). */
  epss?: number | undefined;
  untriaged?: boolean | undefined;
  fixableOnly?: boolean | undefined;
  failOnUnscored?: boolean | undefined;
}

const RANK: Record<Severity, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1, NONE: 0 };

export function hasCondition(policy: GatePolicy): boolean {
  return policy.failOn !== undefined || Boolean(policy.kev) || policy.epss !== undefined || Boolean(policy.untriaged) || Boolean(policy.failOnUnscored);
}

export function describePolicy(policy: GatePolicy): string {
  const parts = [
    policy.failOn ? `severity ${policy.failOn} or above` : '',
    policy.kev ? 'known exploited (KEV)' : '',
    policy.epss !== undefined ? `EPSS >= ${policy.epss}` : '',
    policy.untriaged ? 'untriaged' : '',
    policy.failOnUnscored ? 'unscored' : '',
  ].filter(Boolean);
  return `${parts.join(' or ')}${policy.fixableOnly ? ', fixable findings only' : ''}`;
}

export interface GateFailure {
  finding: FindingItem;
  reasons: string[];
}

export function evaluateGate(findings: readonly FindingItem[], policy: GatePolicy): GateFailure[] {
  const failures: GateFailure[] = [];
  for (const finding of findings) {
    const decision = decisionOf(finding);
    if (decision === 'not_affected' || decision === 'fixed') continue;
    if (policy.fixableOnly && finding.fixed_versions.length === 0) continue;
    const reasons: string[] = [];
    if (policy.failOn && RANK[finding.severity] >= RANK[policy.failOn.toUpperCase() as Severity]) reasons.push(finding.severity.toLowerCase());
    if (policy.kev && finding.is_kev) reasons.push('kev');
    if (policy.epss !== undefined && (finding.epss_score ?? 0) >= policy.epss) reasons.push(`epss ${finding.epss_score ?? 0}`);
    if (policy.untriaged && decision === 'undecided') reasons.push('untriaged');
    if (policy.failOnUnscored && finding.severity_source === null) reasons.push('unscored');
    if (reasons.length > 0) failures.push({ finding, reasons });
  }
  return failures;
}
