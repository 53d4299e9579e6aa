/**
 * A CRA deadline as people read it on the cases list and the case page: how long is left, how long it is
 * overdue, or whether the submission met it. Pure (the clock comes in as `nowMs`), so it is unit-tested
 * (test/unit/console-countdown.test.ts) and the pages only re-render it as the clock ticks.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Under this much time left a deadline is shown as close (the service's first warning comes 6 h before). */
export const SOON_MS = 6 * HOUR;

/**
 * A span as its two largest units: "2 d 3 h", "5 h 12 min", "4 min 10 s", "12 s". Seconds only show under an
 * hour, so a countdown that ticks every second changes visibly only when it matters.
 */
export function formatSpan(ms: number): string {
  const span = Math.max(0, Math.floor(Math.abs(ms) / SECOND) * SECOND);
  const days = Math.floor(span / DAY);
  const hours = Math.floor((span % DAY) / HOUR);
  const minutes = Math.floor((span % HOUR) / MINUTE);
  const seconds = Math.floor((span % MINUTE) / SECOND);
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  if (minutes > 0) return seconds > 0 ? `${minutes} min ${seconds} s` : `${minutes} min`;
  return `${seconds} s`;
}

/** The part of a stage's `timeliness` (the API's view) the countdown reads. */
export interface StageTimeliness {
  due: string | null;
  submitted_at: string | null;
  met: boolean | null;
  late_by_seconds: number | null;
}

export type DeadlineTone = 'pending' | 'soon' | 'overdue' | 'met' | 'late' | 'none';

export interface DeadlineState {
  tone: DeadlineTone;
  text: string;
}

/**
 * What a stage's deadline says at `nowMs`. `live` is false for a closed or dismissed case: its unsubmitted
 * stages no longer count down.
 */
export function deadlineState(timeliness: StageTimeliness, nowMs: number, live = true): DeadlineState {
  const { due, submitted_at: submittedAt } = timeliness;
  if (submittedAt !== null) {
    if (due === null) return { tone: 'met', text: 'Submitted' };
    const lateMs =
      timeliness.late_by_seconds !== null
        ? timeliness.late_by_seconds * SECOND
        : Math.max(0, Date.parse(submittedAt) - Date.parse(due));
    return lateMs > 0 ? { tone: 'late', text: `Late by ${formatSpan(lateMs)}` } : { tone: 'met', text: 'Met' };
  }
  if (due === null) return { tone: 'none', text: 'Starts when a fix is available' };
  if (!live) return { tone: 'none', text: 'Not submitted' };
  const left = Date.parse(due) - nowMs;
  if (left <= 0) return { tone: 'overdue', text: `Overdue by ${formatSpan(left)}` };
  return { tone: left < SOON_MS ? 'soon' : 'pending', text: `Due in ${formatSpan(left)}` };
}
