/**
 * The rules of a CRA Article 14 case, free of storage and clocks (every function takes `now`):
 * which releases are on the market, the three deadlines, timeliness of a submission and the
 * order of the statuses. docs/cra-reporting.md maps each to the Article's paragraphs.
 */

export const CRA_STAGES = ['early_warning', 'notification', 'final_report'] as const;
export type CraStage = (typeof CRA_STAGES)[number];

export const CRA_STATUSES = [
  'open',
  'early_warning_sent',
  'notified',
  'final_report_sent',
  'closed',
  'dismissed',
] as const;
export type CraStatus = (typeof CRA_STATUSES)[number];

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Art. 14(2)(a): early warning within 24 hours; (b): notification within 72 hours; (c): final report 14 days after a fix. */
export const EARLY_WARNING_WINDOW_MS = 24 * HOUR_MS;
export const NOTIFICATION_WINDOW_MS = 72 * HOUR_MS;
export const FINAL_REPORT_WINDOW_MS = 14 * DAY_MS;

/** How long before a deadline the `cra.deadline_approaching` events come. */
export const APPROACHING_THRESHOLDS = [
  { label: '6h', beforeMs: 6 * HOUR_MS },
  { label: '1h', beforeMs: HOUR_MS },
] as const;

/**
 * A release is on the market when its product is in scope, it is still supported and its release date
 * has passed. A release without a date counts as released: it was recorded with what it ships, and a
 * missed report costs more than a case dismissed.
 */
export function isOnMarket(
  product: { craInScope: boolean },
  release: { status: string; releaseDate: string | null },
  now: string,
): boolean {
  if (!product.craInScope) return false;
  if (release.status !== 'active' && release.status !== 'deprecated') return false;
  return release.releaseDate === null || Date.parse(release.releaseDate) <= Date.parse(now);
}

/**
 * When Vexdesk first held every fact: the finding, the exploitation and, when known, the release being
 * on the market (the product put in scope, the release date, a status or date change). The latest of
 * those observations, never later; absent ones (null) count for nothing.
 */
export function awareAtOf(
  firstDetectedAt: string,
  exploitedSince: string,
  ...onMarketSince: (string | null)[]
): string {
  return [firstDetectedAt, exploitedSince, ...onMarketSince]
    .filter((at): at is string => at !== null && !Number.isNaN(Date.parse(at)))
    .map((at) => new Date(Date.parse(at)).toISOString())
    .reduce((latest, at) => (at > latest ? at : latest));
}

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

export interface CraDeadlines {
  early_warning: string;
  notification: string;
  /** Null until a corrective or mitigating measure is available. */
  final_report: string | null;
}

export function deadlinesOf(awareAt: string, fixAvailableAt: string | null): CraDeadlines {
  return {
    early_warning: plus(awareAt, EARLY_WARNING_WINDOW_MS),
    notification: plus(awareAt, NOTIFICATION_WINDOW_MS),
    final_report: fixAvailableAt === null ? null : plus(fixAvailableAt, FINAL_REPORT_WINDOW_MS),
  };
}

/** The status a recorded submission of `stage` moves the case to. */
export const STATUS_AFTER: Record<CraStage, CraStatus> = {
  early_warning: 'early_warning_sent',
  notification: 'notified',
  final_report: 'final_report_sent',
};

/** The stage a case in `status` reports next; null when nothing is owed. */
export function nextStage(status: CraStatus): CraStage | null {
  switch (status) {
    case 'open':
      return 'early_warning';
    case 'early_warning_sent':
      return 'notification';
    case 'notified':
      return 'final_report';
    default:
      return null;
  }
}

/** Cases that still count down (and sit in the open-case index). */
export function isLive(status: CraStatus): boolean {
  return status !== 'closed' && status !== 'dismissed';
}

/**
 * Why a submission of `stage` cannot be recorded now, or null when it can. Stages go in order; an
 * early warning is owed even when late, so none is skipped.
 */
export function submissionRefusal(
  status: CraStatus,
  stage: CraStage,
  awareAt: string,
  submittedAt: string,
  now: string,
): string | null {
  if (!isLive(status)) return `the case is ${status}`;
  const expected = nextStage(status);
  if (expected !== stage)
    return CRA_STAGES.indexOf(stage) < CRA_STAGES.indexOf(expected ?? 'final_report')
      ? `the ${stage} was already recorded`
      : `the ${expected ?? 'final_report'} comes first`;
  if (Date.parse(submittedAt) > Date.parse(now)) return 'submitted_at is in the future';
  if (Date.parse(submittedAt) < Date.parse(awareAt)) return 'submitted_at is before aware_at';
  return null;
}

export interface Timeliness {
  due: string | null;
  submitted_at: string | null;
  /** null while not submitted (or while no deadline runs). */
  met: boolean | null;
  /** Seconds past the deadline, 0 when met. */
  late_by_seconds: number | null;
  /** Past the deadline without a submission. */
  overdue: boolean;
}

export function timelinessOf(due: string | null, submittedAt: string | null, now: string): Timeliness {
  if (submittedAt !== null && due !== null) {
    const late = Math.max(0, Math.round((Date.parse(submittedAt) - Date.parse(due)) / 1000));
    return { due, submitted_at: submittedAt, met: late === 0, late_by_seconds: late, overdue: false };
  }
  return {
    due,
    submitted_at: submittedAt,
    met: null,
    late_by_seconds: null,
    overdue: submittedAt === null && due !== null && Date.parse(due) < Date.parse(now),
  };
}

/** The deadline a live case meets next (ordering of lists: soonest first); null when none runs. */
export function nextDeadline(status: CraStatus, deadlines: CraDeadlines): string | null {
  const stage = nextStage(status);
  return stage === null ? null : deadlines[stage];
}

export interface DeadlineSignal {
  stage: CraStage;
  kind: 'approaching' | 'missed';
  /** `6h`, `1h` for approaching; `missed` otherwise. Part of the event's identity. */
  label: string;
  due: string;
}

/**
 * The signals due at `now` for a live case: the next stage's approaching thresholds passed and, once
 * the deadline has passed, its miss. `sent` holds the labels already signalled (`<stage>:<label>`).
 * Thresholds skipped while nobody looked (a case opened 3 h before its deadline) give only the latest.
 */
export function dueSignals(
  status: CraStatus,
  deadlines: CraDeadlines,
  sent: ReadonlySet<string>,
  now: string,
): DeadlineSignal[] {
  const stage = nextStage(status);
  if (stage === null) return [];
  const due = deadlines[stage];
  if (due === null) return [];
  const at = Date.parse(now);
  const dueMs = Date.parse(due);
  if (at >= dueMs) return sent.has(`${stage}:missed`) ? [] : [{ stage, kind: 'missed', label: 'missed', due }];
  const passed = APPROACHING_THRESHOLDS.filter((threshold) => at >= dueMs - threshold.beforeMs);
  const latest = passed[passed.length - 1];
  if (!latest || sent.has(`${stage}:${latest.label}`)) return [];
  return [{ stage, kind: 'approaching', label: latest.label, due }];
}
