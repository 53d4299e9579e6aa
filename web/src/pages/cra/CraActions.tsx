/**
 * What a member with cra:write does on a case: record a submitted report (the API's 409 and 422 answers shown as
 * they come), record a fix, set the awareness time earlier with a reason, dismiss with a reason, close.
 */
import { useState } from 'preact/hooks';
import { api, type Schemas } from '../../api/client';
import { ErrorMessage, fieldText, Notice, Section } from '../../components';
import { useSaveResult, type SaveResult } from '../../hooks';
import { CRA_STAGES, LIVE_STATUSES, STAGE_TITLE, type CraStage } from './Deadline';

type CaseDetail = Schemas['CraCaseDetail'];

const NEXT_STAGE: Record<string, CraStage> = {
  open: 'early_warning',
  early_warning_sent: 'notification',
  notified: 'final_report',
};

const pad = (value: number) => String(value).padStart(2, '0');

/** A time as a `datetime-local` input holds it: the browser's local time, to the second. */
export function localInputValue(date: Date): string {
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** A `datetime-local` value (local time) as the ISO 8601 instant the API takes; '' when empty or unreadable. */
function isoOf(value: string): string {
  const time = value ? new Date(value).getTime() : Number.NaN;
  return Number.isNaN(time) ? '' : new Date(time).toISOString();
}

const zoneNote = () => {
  const minutes = -new Date().getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  return `your local time, UTC${sign}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
};

export function CraActions({ craCase, onChanged }: { craCase: CaseDetail; onChanged: () => void }) {
  // Held here: the submission form starts over on the next stage, and "recorded" must outlive it.
  const submissionResult = useSaveResult();
  if (!LIVE_STATUSES.includes(craCase.status)) return null;
  const next = NEXT_STAGE[craCase.status];
  return (
    <>
      {/* Keyed by the stage owed next: after a submission the form starts over on the next stage. */}
      {next ? (
        <Submission key={next} craCase={craCase} next={next} result={submissionResult} onChanged={onChanged} />
      ) : null}
      {craCase.status === 'final_report_sent' ? <Close craCase={craCase} onChanged={onChanged} /> : null}
      <Fix craCase={craCase} onChanged={onChanged} />
      <AwareAt craCase={craCase} onChanged={onChanged} />
      <Dismiss craCase={craCase} onChanged={onChanged} />
    </>
  );
}

function Submission({
  craCase,
  next,
  result: { error, notice, start, settle },
  onChanged,
}: {
  craCase: CaseDetail;
  next: CraStage;
  result: SaveResult;
  onChanged: () => void;
}) {
  const [stage, setStage] = useState<CraStage>(next);
  const [submittedAt, setSubmittedAt] = useState(() => localInputValue(new Date()));
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const note = fieldText(form, 'note');
    start();
    const { error: failure } = await api.POST('/api/cra/cases/{caseId}/submissions', {
      params: { path: { caseId: craCase.id } },
      body: {
        stage,
        submitted_at: isoOf(submittedAt),
        reference: fieldText(form, 'reference'),
        ...(note ? { note } : {}),
      },
    });
    settle(failure, `${STAGE_TITLE[stage]} recorded.`, () => {
      formElement.reset();
      setSubmittedAt(localInputValue(new Date()));
      onChanged();
    });
  };
  return (
    <Section title="Record a submission">
      <p class="muted">
        After submitting a report on the single reporting platform, record it here with the platform's reference. The
        status moves on and the deadline shows whether it was met.
      </p>
      <form class="grid-form" aria-label="Record a submission" onSubmit={(event) => void submit(event)}>
        <label>
          Stage
          <select name="stage" value={stage} onChange={(event) => setStage(event.currentTarget.value as CraStage)}>
            {CRA_STAGES.map((stage) => (
              <option key={stage} value={stage}>
                {STAGE_TITLE[stage]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Submitted at
          <input
            name="submitted_at"
            type="datetime-local"
            step={1}
            required
            value={submittedAt}
            onInput={(event) => setSubmittedAt(event.currentTarget.value)}
          />
          <span class="muted small">{zoneNote()}</span>
        </label>
        <label>
          Platform reference
          <input name="reference" required maxLength={500} />
        </label>
        <label class="wide">
          Note
          <textarea name="note" rows={2} maxLength={5000} />
        </label>
        <ErrorMessage message={error} />
        <div class="actions">
          <button type="submit" class="primary">
            Record submission
          </button>
          <Notice message={notice} />
        </div>
      </form>
    </Section>
  );
}

function Fix({ craCase, onChanged }: { craCase: CaseDetail; onChanged: () => void }) {
  const { error, notice, start, settle } = useSaveResult();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const releaseId = fieldText(form, 'release_id');
    start();
    const { error: failure } = await api.POST('/api/cra/cases/{caseId}/fix', {
      params: { path: { caseId: craCase.id } },
      body: {
        measure: fieldText(form, 'measure'),
        available_at: isoOf(fieldText(form, 'available_at')),
        ...(releaseId ? { release_id: releaseId } : {}),
      },
    });
    settle(failure, 'Fix recorded: the final report is due 14 days after it.', () => {
      formElement.reset();
      onChanged();
    });
  };
  return (
    <Section title="Record a fix">
      <p class="muted">
        A corrective or mitigating measure and when it became available. A release of the product that no longer ships
        the vulnerable version is recorded by itself at its next scan.
      </p>
      <form class="grid-form" aria-label="Record a fix" onSubmit={(event) => void submit(event)}>
        <label>
          Available since
          <input name="available_at" type="datetime-local" step={1} required />
          <span class="muted small">{zoneNote()}</span>
        </label>
        <label>
          Fixed in release (optional)
          <input name="release_id" maxLength={36} placeholder="release id" />
        </label>
        <label class="wide">
          Measure
          <textarea name="measure" rows={2} required maxLength={5000} />
        </label>
        <ErrorMessage message={error} />
        <div class="actions">
          <button type="submit">Record fix</button>
          <Notice message={notice} />
        </div>
      </form>
    </Section>
  );
}

function AwareAt({ craCase, onChanged }: { craCase: CaseDetail; onChanged: () => void }) {
  const { error, notice, start, settle } = useSaveResult();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    start();
    const { error: failure } = await api.PUT('/api/cra/cases/{caseId}', {
      params: { path: { caseId: craCase.id } },
      body: { aware_at: isoOf(fieldText(form, 'aware_at')), aware_at_reason: fieldText(form, 'aware_at_reason') },
    });
    settle(failure, 'Awareness time changed: the deadlines moved with it.', () => {
      formElement.reset();
      onChanged();
    });
  };
  return (
    <Section title="Aware earlier">
      <p class="muted">
        If the company learnt of the exploited vulnerability before Vexdesk observed it, set the awareness time earlier
        and say how. It cannot be set later than Vexdesk's own observation.
      </p>
      <form class="grid-form" aria-label="Set the awareness time earlier" onSubmit={(event) => void submit(event)}>
        <label>
          Aware since
          <input name="aware_at" type="datetime-local" step={1} required />
          <span class="muted small">{zoneNote()}</span>
        </label>
        <label class="wide">
          Reason
          <input name="aware_at_reason" required maxLength={2000} />
        </label>
        <ErrorMessage message={error} />
        <div class="actions">
          <button type="submit">Set awareness time</button>
          <Notice message={notice} />
        </div>
      </form>
    </Section>
  );
}

function Dismiss({ craCase, onChanged }: { craCase: CaseDetail; onChanged: () => void }) {
  const [error, setError] = useState<string>();
  const { error: saveError, start, settle } = useSaveResult();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const reason = fieldText(form, 'reason');
    if (!reason) return setError('Say why the case is dismissed.');
    setError(undefined);
    if (!window.confirm('Dismiss this case? Its deadlines stop counting.')) return;
    start();
    const { error: failure } = await api.POST('/api/cra/cases/{caseId}/dismiss', {
      params: { path: { caseId: craCase.id } },
      body: { reason },
    });
    settle(failure, 'Dismissed.', onChanged);
  };
  const suggested = craCase.dismissal_suggested?.justification;
  return (
    <Section title="Dismiss">
      <form class="grid-form" aria-label="Dismiss the case" onSubmit={(event) => void submit(event)}>
        <label class="wide">
          Reason
          <textarea
            name="reason"
            rows={2}
            required
            maxLength={5000}
            defaultValue={suggested ? `Not affected: ${suggested.replaceAll('_', ' ')}` : ''}
          />
        </label>
        <ErrorMessage message={error ?? saveError} />
        <div class="actions">
          <button type="submit" class="danger">
            Dismiss case
          </button>
        </div>
      </form>
    </Section>
  );
}

function Close({ craCase, onChanged }: { craCase: CaseDetail; onChanged: () => void }) {
  const { error, start, settle } = useSaveResult();
  const close = async () => {
    start();
    const { error: failure } = await api.POST('/api/cra/cases/{caseId}/close', {
      params: { path: { caseId: craCase.id } },
      body: {},
    });
    settle(failure, 'Closed.', onChanged);
  };
  return (
    <Section title="Close">
      <p class="muted">The final report is recorded: close the case.</p>
      <ErrorMessage message={error} />
      <button type="button" onClick={() => void close()}>
        Close case
      </button>
    </Section>
  );
}
