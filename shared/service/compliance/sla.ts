/**
 * Remediation SLA: how long a release may carry a finding before it reaches a final
 * disposition. Pure and clock-free (`now` is an argument) so a report rendered from
 * the same input always says the same thing. Rules are documented in
 * docs/compliance-report.md ("SLA policy").
 */
import type { z } from 'zod';
import type { slaPolicySchema } from '../schemas/compliance';
import type { ReportDisposition, Severity } from './model';
import { isFinalDecision } from '../dispositions/rules';

export type SlaPolicy = z.infer<typeof slaPolicySchema>;

/**
 * Defaults: critical 7 days, high 30, medium 90, low 180, known-exploited 7 (or the
 * CISA KEV due date when that is sooner); at risk once 75 % of the window has elapsed.
 * In line with common PSIRT practice and the CISA BOD 22-01 pace for KEV entries.
 */
export const DEFAULT_SLA_POLICY: Readonly<SlaPolicy> = Object.freeze({
  critical: 7,
  high: 30,
  medium: 90,
  low: 180,
  kev: 7,
  atRiskRatio: 0.75,
});

/** Team settings hold a partial policy: fill the gaps from the defaults. */
export function resolveSlaPolicy(overrides?: Partial<SlaPolicy> | null): SlaPolicy {
  const policy = { ...DEFAULT_SLA_POLICY };
  for (const [key, value] of Object.entries(overrides ?? {}) as [keyof SlaPolicy, number | undefined][]) {
    if (value !== undefined) policy[key] = value;
  }
  return policy;
}

export type SlaState = 'met' | 'breached' | 'at_risk' | 'open_within';
/** Where the deadline came from, so the report can explain it. */
export type SlaWindowSource = 'severity' | 'kev' | 'kev_due_date';

export interface SlaFinding {
  severity: Severity;
  isKev: boolean;
  kevDueDate: string | null;
  firstDetectedAt: string;
  disposition: Pick<ReportDisposition, 'status' | 'response' | 'updatedAt' | 'decidedAt'> | null;
}

export interface SlaResult {
  state: SlaState;
  /** Whether the disposition counts as final (see isFinalDisposition). */
  final: boolean;
  windowDays: number;
  windowSource: SlaWindowSource;
  detectedAt: string;
  dueAt: string;
  /** When the final disposition was reached; null while open. */
  closedAt: string | null;
  /** Whole days from detection to closure (or to `now` while open). */
  elapsedDays: number;
  /** Whole days left before the due date while open and not overdue; otherwise null. */
  remainingDays: number | null;
}

export interface SlaSummary {
  total: number;
  met: number;
  breached: number;
  /** Breached and still open (overdue now). */
  breachedOpen: number;
  /** Breached because the final disposition came after the due date. */
  breachedClosedLate: number;
  atRisk: number;
  openWithin: number;
}

export interface SlaEvaluation<T> {
  results: { finding: T; sla: SlaResult }[];
  summary: SlaSummary;
}

const DAY_MS = 86_400_000;

/**
 * Final means the vendor has decided: `not_affected` (the spec requires a justification),
 * `fixed`, or `affected` with a response (any response, including `will_not_fix`; the
 * report lists those separately as accepted risk). `under_investigation`, `affected`
 * without a response and no disposition at all keep the clock running.
 */
export function isFinalDisposition(disposition: SlaFinding['disposition']): boolean {
  return disposition !== null && isFinalDecision(disposition);
}

function windowDaysFor(severity: Severity, policy: SlaPolicy): number {
  // `none` (informational) has no window of its own; it shares the longest one.
  return severity === 'none' ? policy.low : policy[severity];
}

function parseTime(value: string, what: string): number {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new RangeError(`Invalid ${what}: ${value}`);
  return time;
}

export function evaluateFindingSla(finding: SlaFinding, policy: SlaPolicy, now: Date): SlaResult {
  const nowMs = now.getTime();
  const detectedMs = parseTime(finding.firstDetectedAt, 'firstDetectedAt');

  let windowSource: SlaWindowSource = 'severity';
  let dueMs = detectedMs + windowDaysFor(finding.severity, policy) * DAY_MS;
  if (finding.isKev) {
    const kevDueMs = detectedMs + policy.kev * DAY_MS;
    if (kevDueMs < dueMs) {
      dueMs = kevDueMs;
      windowSource = 'kev';
    }
    if (finding.kevDueDate !== null) {
      // A date-only KEV due date means "by the end of that day" (UTC).
      const catalogDue = parseTime(finding.kevDueDate, 'kevDueDate');
      const catalogDueMs = finding.kevDueDate.length === 10 ? catalogDue + DAY_MS - 1 : catalogDue;
      // Only a due date after detection shortens the window: a finding cannot be late
      // before anyone knew of it in this release.
      if (catalogDueMs > detectedMs && catalogDueMs < dueMs) {
        dueMs = catalogDueMs;
        windowSource = 'kev_due_date';
      }
    }
  }
  const windowMs = dueMs - detectedMs;

  const final = isFinalDisposition(finding.disposition);
  const closedAt =
    final && finding.disposition ? (finding.disposition.decidedAt ?? finding.disposition.updatedAt) : null;
  const closedMs = closedAt === null ? null : Math.max(detectedMs, parseTime(closedAt, 'disposition time'));
  const endMs = closedMs ?? Math.max(detectedMs, nowMs);
  const elapsedMs = endMs - detectedMs;

  let state: SlaState;
  if (closedMs !== null) state = closedMs <= dueMs ? 'met' : 'breached';
  else if (nowMs > dueMs) state = 'breached';
  else if (elapsedMs >= policy.atRiskRatio * windowMs) state = 'at_risk';
  else state = 'open_within';

  return {
    state,
    final,
    windowDays: Math.round((windowMs / DAY_MS) * 10) / 10,
    windowSource,
    detectedAt: new Date(detectedMs).toISOString(),
    dueAt: new Date(dueMs).toISOString(),
    closedAt: closedMs === null ? null : new Date(closedMs).toISOString(),
    elapsedDays: Math.floor(elapsedMs / DAY_MS),
    remainingDays: closedMs === null && nowMs <= dueMs ? Math.floor((dueMs - nowMs) / DAY_MS) : null,
  };
}

/** Evaluates every finding against the policy at `now` and counts the outcomes. */
export function evaluateSla<T extends SlaFinding>(
  findings: readonly T[],
  policy: SlaPolicy,
  now: Date,
): SlaEvaluation<T> {
  const summary: SlaSummary = {
    total: 0,
    met: 0,
    breached: 0,
    breachedOpen: 0,
    breachedClosedLate: 0,
    atRisk: 0,
    openWithin: 0,
  };
  const results = findings.map((finding) => {
    const sla = evaluateFindingSla(finding, policy, now);
    summary.total += 1;
    if (sla.state === 'met') summary.met += 1;
    else if (sla.state === 'at_risk') summary.atRisk += 1;
    else if (sla.state === 'open_within') summary.openWithin += 1;
    else {
      summary.breached += 1;
      if (sla.closedAt === null) summary.breachedOpen += 1;
      else summary.breachedClosedLate += 1;
    }
    return { finding, sla };
  });
  return { results, summary };
}
