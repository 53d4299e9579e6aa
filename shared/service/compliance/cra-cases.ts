/**
 * The report's list of the CRA Article 14 cases of the release (docs/compliance-report.md "Sections"):
 * per case each report's deadline, when it was submitted and whether that met the deadline or by how
 * much it was late, timed at the report's `generatedAt` (no clock of its own: the same input reads the same).
 */
import { CRA_STAGES, timelinessOf, type CraStage } from '../cra/rules';
import type { EvidenceStatus } from './frameworks/evidence';
import { formatDateTime, humanize } from './format';
import type { ReportCraCase } from './model';

const STAGE_LABELS: Record<CraStage, string> = {
  early_warning: 'Early warning, Art. 14(2)(a) (24 h)',
  notification: 'Vulnerability notification, Art. 14(2)(b) (72 h)',
  final_report: 'Final report, Art. 14(2)(c) (14 days after a fix)',
};

export interface CraStageRowView {
  stage: string;
  due: string;
  submitted: string;
  reference: string | null;
  outcome: string;
  /** The badge the outcome shows: met, late (not evidenced), still running (partial) or not running (manual). */
  badge: EvidenceStatus;
}

export interface CraCaseRowView {
  vulnerability: string;
  aliases: string;
  status: string;
  awareAt: string;
  affectedVersions: string;
  usersInformedAt: string | null;
  dismissalReason: string | null;
  stages: CraStageRowView[];
}

/** `2 d 3 h`, `5 h 12 min`, `40 s`: the two largest units, enough to read a lateness on paper. */
export function formatDuration(seconds: number): string {
  const units: [string, number][] = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ];
  let rest = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  for (const [label, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || parts.length > 0) parts.push(`${count} ${label}`);
    if (parts.length === 2) break;
  }
  return parts.filter((part) => !part.startsWith('0 ')).join(' ') || '0 s';
}

function stageRow(craCase: ReportCraCase, stage: CraStage, now: string): CraStageRowView {
  const submission = craCase.submissions.find((each) => each.stage === stage);
  const due = craCase.deadlines[stage];
  const timeliness = timelinessOf(due, submission?.submittedAt ?? null, now);
  const row = {
    stage: STAGE_LABELS[stage],
    due: due === null ? 'not running: no corrective or mitigating measure recorded' : formatDateTime(due),
    submitted: submission ? formatDateTime(submission.submittedAt) : 'not submitted',
    reference: submission?.reference ?? null,
  };
  if (submission && timeliness.met === true) return { ...row, outcome: 'Met', badge: 'met' };
  if (submission && timeliness.late_by_seconds !== null)
    return { ...row, outcome: `Late by ${formatDuration(timeliness.late_by_seconds)}`, badge: 'not_evidenced' };
  if (submission) return { ...row, outcome: 'Submitted; no deadline was running', badge: 'met' };
  if (due === null) return { ...row, outcome: 'Not yet due', badge: 'manual' };
  const remaining = (Date.parse(due) - Date.parse(now)) / 1000;
  if (craCase.status === 'dismissed')
    return { ...row, outcome: 'Not submitted: the case was dismissed', badge: 'manual' };
  if (timeliness.overdue)
    return { ...row, outcome: `Overdue by ${formatDuration(-remaining)}, not submitted`, badge: 'not_evidenced' };
  return { ...row, outcome: `Due in ${formatDuration(remaining)}`, badge: 'partial' };
}

/** The cases in order of awareness, each with its three reports. */
export function craCaseRows(cases: readonly ReportCraCase[], now: string): CraCaseRowView[] {
  return [...cases]
    .sort((a, b) => a.awareAt.localeCompare(b.awareAt) || a.vulnerabilityId.localeCompare(b.vulnerabilityId))
    .map((craCase) => ({
      vulnerability: craCase.vulnerabilityId,
      aliases: craCase.aliases.join(', '),
      status: humanize(craCase.status),
      awareAt: formatDateTime(craCase.awareAt),
      affectedVersions: craCase.affectedVersions.join(', '),
      usersInformedAt: craCase.usersInformedAt === null ? null : formatDateTime(craCase.usersInformedAt),
      dismissalReason: craCase.dismissalReason,
      stages: CRA_STAGES.map((stage) => stageRow(craCase, stage, now)),
    }));
}
