/**
 * The drafts of a CRA case's three reports, as the service drafts them from its data: the free-text fields a
 * person finishes (editable with cra:write, each save a new version), the facts behind them, and buttons that
 * copy the report as Markdown or JSON for the single reporting platform.
 */
import { useState } from 'preact/hooks';
import { api, type Schemas } from '../../api/client';
import { ErrorMessage, formatDate, Loading, Notice, Section } from '../../components';
import { must, useLoad, useSaveResult, type SaveResult } from '../../hooks';
import { label } from '../../labels';
import { CRA_STAGES, STAGE_TITLE, type CraStage } from './Deadline';

type CaseDetail = Schemas['CraCaseDetail'];
type Report = Schemas['CraReport'];
type DraftEdits = NonNullable<Schemas['UpdateCraCase']['drafts']>;

export function CraDrafts({
  craCase,
  writable,
  onChanged,
}: {
  craCase: CaseDetail;
  writable: boolean;
  onChanged: () => void;
}) {
  return (
    <>
      {CRA_STAGES.map((stage) => (
        <StageDraft key={stage} craCase={craCase} stage={stage} writable={writable} onChanged={onChanged} />
      ))}
    </>
  );
}

function StageDraft({
  craCase,
  stage,
  writable,
  onChanged,
}: {
  craCase: CaseDetail;
  stage: CraStage;
  writable: boolean;
  onChanged: () => void;
}) {
  const report = useLoad(
    () =>
      must(
        api.GET('/api/cra/cases/{caseId}/reports/{stage}', {
          params: { path: { caseId: craCase.id, stage }, query: { format: 'json' } },
        }),
      ).then((body) => {
        // The route also answers Markdown; asked for JSON, it answers the envelope.
        if (typeof body === 'string') throw new Error('The draft came back as Markdown.');
        return body.data;
      }),
    // Read again whenever the case changed (a submission, a fix, an edit).
    [craCase.id, stage, craCase.updated_at],
  );
  // Held here, not in the fields: a save reloads the draft as a new version, which remounts the fields, and its
  // "Draft saved." would vanish with them as soon as the reload came back.
  const saveResult = useSaveResult();
  const title = `${STAGE_TITLE[stage]} draft`;
  return (
    <Section title={title} id={`draft-${stage}`}>
      <ErrorMessage message={report.error} />
      <Loading when={report.loading && !report.data} />
      {report.data ? (
        <>
          <p class="muted small">
            {report.data.article} · due {report.data.due ? formatDate(report.data.due) : 'once a fix is available'} ·
            draft version {report.data.draft_version}
            {craCase.drafts[stage] ? ` (edited by ${craCase.drafts[stage].updated_by})` : ''}
          </p>
          <CopyButtons report={report.data} />
          <DraftFields
            // A saved edit comes back as a new version: the fields start over from it.
            key={report.data.draft_version}
            report={report.data}
            writable={writable}
            saveResult={saveResult}
            onSaved={onChanged}
          />
          <details>
            <summary>Facts drafted from the data</summary>
            <pre class="draft-facts">{JSON.stringify(report.data.facts, null, 2)}</pre>
          </details>
          <details>
            <summary>Markdown</summary>
            <pre class="draft-markdown" data-testid={`markdown-${stage}`}>
              {report.data.markdown}
            </pre>
          </details>
        </>
      ) : null}
    </Section>
  );
}

function CopyButtons({ report }: { report: Report }) {
  const [copied, setCopied] = useState<string>();
  const copy = async (what: string, value: string) => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(`${what} copied.`);
    } catch {
      setCopied(`The browser refused to copy: open "${what}" below and copy it from there.`);
    }
  };
  const name = STAGE_TITLE[report.stage].toLowerCase();
  return (
    <div class="actions">
      <button type="button" onClick={() => void copy('Markdown', report.markdown)}>
        Copy Markdown<span class="visually-hidden"> of the {name}</span>
      </button>
      <button type="button" onClick={() => void copy('JSON', JSON.stringify(report, null, 2))}>
        Copy JSON<span class="visually-hidden"> of the {name}</span>
      </button>
      <Notice message={copied} />
    </div>
  );
}

/** `malicious_use` → `Malicious use`. */
const fieldTitle = (field: string) => label(field).replace(/^./, (first) => first.toUpperCase());

/** The stage's free-text fields, prefilled from the facts or the last edit; only changed fields are sent. */
function DraftFields({
  report,
  writable,
  saveResult,
  onSaved,
}: {
  report: Report;
  writable: boolean;
  saveResult: SaveResult;
  onSaved: () => void;
}) {
  const [edits, setEdits] = useState<Record<string, string>>({});
  const { error, notice, start, settle } = saveResult;
  // Every stage also takes free `notes`, which the service does not prefill.
  const fields: Record<string, string> = { ...report.fields, notes: report.fields.notes ?? '' };
  const changed = Object.entries(edits).filter(([field, value]) => value !== fields[field]);
  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    if (changed.length === 0) return;
    start();
    const drafts = { [report.stage]: Object.fromEntries(changed) } as DraftEdits;
    const { error: failure } = await api.PUT('/api/cra/cases/{caseId}', {
      params: { path: { caseId: report.case_id } },
      body: { drafts },
    });
    settle(failure, 'Draft saved.', onSaved);
  };
  return (
    <form
      class="draft-fields"
      aria-label={`${STAGE_TITLE[report.stage]} fields`}
      onSubmit={(event) => void save(event)}
    >
      {Object.entries(fields).map(([field, value]) => (
        <label key={field} class="draft-field">
          <span class="draft-field-name">{fieldTitle(field)}</span>
          <textarea
            name={field}
            rows={Math.min(8, Math.max(2, Math.ceil((edits[field] ?? value).length / 100)))}
            maxLength={10_000}
            value={edits[field] ?? value}
            readOnly={!writable}
            onInput={(event) => setEdits({ ...edits, [field]: event.currentTarget.value })}
          />
        </label>
      ))}
      {writable ? (
        <div class="actions">
          <button type="submit" class="primary" disabled={changed.length === 0}>
            Save draft<span class="visually-hidden"> of the {STAGE_TITLE[report.stage].toLowerCase()}</span>
          </button>
          <ErrorMessage message={error} />
          <Notice message={notice} />
        </div>
      ) : null}
    </form>
  );
}
