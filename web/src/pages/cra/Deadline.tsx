/** What the CRA list and case pages share: the ticking clock, a deadline cell, stage and status names. */
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import { deadlineState } from '../../countdown';
import { formatDate } from '../../components';
import { label } from '../../labels';
// The stages and statuses in the service's order (a plain module, no zod).
import { CRA_STAGES, CRA_STATUSES } from '../../../../shared/service/cra/rules';

export type CraCase = Schemas['CraCase'];
export type CraStage = (typeof CRA_STAGES)[number];
export { CRA_STAGES, CRA_STATUSES };

export const STAGE_TITLE: Record<CraStage, string> = {
  early_warning: 'Early warning',
  notification: 'Notification',
  final_report: 'Final report',
};

/** Statuses that still count down (the service's `isLive`). */
export const LIVE_STATUSES: readonly string[] = CRA_STATUSES.filter(
  (status) => status !== 'closed' && status !== 'dismissed',
);

/** The current time, re-read every `everyMs` (every second by default) while the page shows it. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** A stage's deadline: the date and the live countdown, or met / late once submitted; overdue in red. */
export function Deadline({
  craCase,
  stage,
  now,
}: {
  craCase: Pick<CraCase, 'timeliness' | 'status'>;
  stage: CraStage;
  now: number;
}) {
  const timeliness = craCase.timeliness[stage];
  const state = deadlineState(timeliness, now, LIVE_STATUSES.includes(craCase.status));
  return (
    <span class={`deadline deadline-${state.tone}`} data-stage={stage}>
      <span class="deadline-text">{state.text}</span>
      {timeliness.due ? (
        <time class="muted small" dateTime={timeliness.due}>
          {formatDate(timeliness.due)}
        </time>
      ) : null}
    </span>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge cra-status cra-status-${status}`}>{label(status)}</span>;
}
