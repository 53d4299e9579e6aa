/**
 * One row per finding as the report lists it: the order (known-exploited first, then severity,
 * EPSS, CVE id, component), the disposition column, the SLA state and the display strings.
 */
import { formatDate, formatScore, humanize } from './format';
import type { ReportFinding, ResolvedRenderOptions, Severity } from './model';
import type { SlaResult, SlaState } from './sla';

export const SLA_LABELS: Record<SlaState, string> = {
  met: 'Met',
  breached: 'Breached',
  at_risk: 'At risk',
  open_within: 'Open, within SLA',
};

const SEVERITY_RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, none: 4 };
export const DISPOSITION_COLUMNS = ['affected', 'not_affected', 'fixed', 'under_investigation', 'undisposed'] as const;
type DispositionColumn = (typeof DISPOSITION_COLUMNS)[number];
export const DISPOSITION_LABELS: Record<DispositionColumn, string> = {
  affected: 'Affected',
  not_affected: 'Not affected',
  fixed: 'Fixed',
  under_investigation: 'Under investigation',
  undisposed: 'No disposition',
};

/** Cuts at a code-point boundary so a surrogate pair is never split. */
function truncate(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), truncated: true };
}

export function compareText(a: string, b: string): number {
  // Code-unit order: deterministic across locales and fast for 10k+ rows.
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareFindings(a: ReportFinding, b: ReportFinding): number {
  if (a.isKev !== b.isKev) return a.isKev ? -1 : 1;
  const bySeverity = SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity];
  if (bySeverity !== 0) return bySeverity;
  const byEpss = (b.epssScore ?? -1) - (a.epssScore ?? -1);
  if (byEpss !== 0) return byEpss;
  return compareText(a.cveId, b.cveId) || compareText(a.componentName, b.componentName);
}

export function dispositionColumn(finding: ReportFinding): DispositionColumn {
  return finding.disposition?.status ?? 'undisposed';
}

export function buildFindingRows(
  findings: ReportFinding[],
  slaByFinding: Map<ReportFinding, SlaResult>,
  options: ResolvedRenderOptions,
) {
  return findings.map((finding) => {
    const sla = slaByFinding.get(finding);
    const disposition = finding.disposition;
    const detail = disposition?.detail ? truncate(disposition.detail, options.maxDetailChars) : null;
    const decision = disposition ? (disposition.justification ?? disposition.response) : null;
    return {
      cveId: finding.cveId,
      component: finding.componentVersion
        ? `${finding.componentName}@${finding.componentVersion}`
        : finding.componentName,
      severity: finding.severity,
      severityLabel: finding.severity,
      cvssV3: formatScore(finding.cvssV3Score),
      cvssV4: formatScore(finding.cvssV4Score),
      cvssV2: formatScore(finding.cvssV2Score),
      epss: finding.epssScore === null ? '—' : `${(finding.epssScore * 100).toFixed(1)} %`,
      epssPercentile:
        finding.epssPercentile === null ? null : `pct ${(Math.floor(finding.epssPercentile * 1000) / 10).toFixed(1)}`,
      isKev: finding.isKev,
      kevDueDate: finding.kevDueDate ? formatDate(finding.kevDueDate) : null,
      status: dispositionColumn(finding),
      statusLabel: DISPOSITION_LABELS[dispositionColumn(finding)],
      decision: decision ? humanize(decision) : null,
      detail: detail?.text ?? null,
      detailTruncated: detail?.truncated ?? false,
      detectedAt: formatDate(finding.firstDetectedAt),
      slaState: sla?.state ?? 'open_within',
      slaLabel: SLA_LABELS[sla?.state ?? 'open_within'],
      dueAt: sla ? formatDate(sla.dueAt) : '—',
      elapsedDays: sla?.elapsedDays ?? 0,
      remainingDays: sla?.remainingDays ?? null,
      windowDays: sla?.windowDays ?? 0,
      windowSource: sla?.windowSource ?? 'severity',
    };
  });
}

export type FindingRow = ReturnType<typeof buildFindingRows>[number];
