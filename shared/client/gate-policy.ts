/**
 * The gate (docs/ci.md "Gate"): which findings fail a build. A finding decided `not_affected`
 * or `fixed` never fails (an expired or review-required decision is no decision). Of the
 * others, a finding fails when it meets any condition given; `--fixable-only` first leaves out
 * findings without a known fixed version.
 */
import { decisionOf, type Finding, type ListQuery, type Severity } from './findings';

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
  return (
    policy.failOn !== undefined ||
    Boolean(policy.kev) ||
    policy.epss !== undefined ||
    Boolean(policy.untriaged) ||
    Boolean(policy.failOnUnscored)
  );
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
  finding: Finding;
  reasons: string[];
}

export function evaluateGate(findings: readonly Finding[], policy: GatePolicy): GateFailure[] {
  const failures: GateFailure[] = [];
  for (const finding of findings) {
    const decision = decisionOf(finding);
    if (decision === 'not_affected' || decision === 'fixed') continue;
    if (policy.fixableOnly && finding.fixed_versions.length === 0) continue;
    const reasons: string[] = [];
    if (policy.failOn && RANK[finding.severity] >= RANK[policy.failOn.toUpperCase() as Severity])
      reasons.push(finding.severity.toLowerCase());
    if (policy.kev && finding.is_kev) reasons.push('kev');
    if (policy.epss !== undefined && (finding.epss_score ?? 0) >= policy.epss)
      reasons.push(`epss ${finding.epss_score ?? 0}`);
    if (policy.untriaged && decision === 'undecided') reasons.push('untriaged');
    if (policy.failOnUnscored && finding.severity_source === null) reasons.push('unscored');
    if (reasons.length > 0) failures.push({ finding, reasons });
  }
  return failures;
}

const SEVERITY_NAMES = ['critical', 'high', 'medium', 'low', 'none'] as const;
/** Statuses that can fail a gate: everything but a counted not_affected or fixed decision. */
const OPEN = 'affected,under_investigation,undisposed';

/**
 * The list queries whose rows together hold every finding that can fail the gate: one per
 * condition, filtered by the service so a gate reads the candidates, not every finding.
 * `evaluateGate` still decides each row; the filters only narrow what is read, and each is
 * the same rule the gate applies (docs/api.md "Both vulnerability lists").
 */
export function candidateQueries(policy: GatePolicy): ListQuery[] {
  const common: ListQuery = policy.fixableOnly ? { fixable: 'true' } : {};
  const queries: ListQuery[] = [];
  if (policy.failOn)
    queries.push({
      ...common,
      status: OPEN,
      severity: SEVERITY_NAMES.slice(0, SEVERITY_NAMES.indexOf(policy.failOn) + 1).join(','),
    });
  if (policy.kev) queries.push({ ...common, status: OPEN, kev: 'true' });
  if (policy.epss !== undefined) queries.push({ ...common, status: OPEN, epssMin: policy.epss });
  if (policy.untriaged) queries.push({ ...common, status: 'undisposed' });
  // Unscored findings rate NONE; which of those no source scored, evaluateGate tells.
  if (policy.failOnUnscored) queries.push({ ...common, status: OPEN, severity: 'none' });
  return queries;
}

/** The lists' default order: known exploited first, then severity, then EPSS; CVE and id make it total. */
export function defaultOrder(a: Finding, b: Finding): number {
  return (
    Number(b.is_kev) - Number(a.is_kev) ||
    RANK[b.severity] - RANK[a.severity] ||
    (b.epss_score ?? 0) - (a.epss_score ?? 0) ||
    a.cve_id.localeCompare(b.cve_id) ||
    a.id.localeCompare(b.id)
  );
}
