/**
 * A release's VEX documents and their workflow (spec "VEX document" states): generate a draft,
 * regenerate, submit, approve or reject (a comment of 1-5000 characters is required to reject,
 * optional otherwise), publish; the approval trail of each document.
 */
import { useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../api/client';
import { ErrorMessage, Notice, Section, formatDate } from '../components';
import { must, useLoad } from '../hooks';
import { can, useMe } from '../session';
import { label } from '../labels';

type VexDocument = Schemas['VexDocument'];
type VexFormat = VexDocument['format'];

const FORMATS: Array<{ value: VexFormat; text: string }> = [
  { value: 'openvex', text: 'OpenVEX' },
  { value: 'cyclonedx_vex', text: 'CycloneDX VEX' },
  { value: 'csaf', text: 'CSAF 2.0' },
];

export function VexDocuments({ releaseId, onChanged }: { releaseId: string; onChanged: () => void }) {
  const me = useMe();
  const writable = can(me, 'vex:write');
  const documents = useLoad(
    () => must(api.GET('/api/releases/{releaseId}/vex', { params: { path: { releaseId } } })).then((body) => body.data),
    [releaseId],
  );
  const [error, setError] = useState<string>();
  const [format, setFormat] = useState<VexFormat>('openvex');
  const [author, setAuthor] = useState('');
  const changed = () => {
    documents.reload();
    onChanged();
  };
  const generate = async (event: SubmitEvent) => {
    event.preventDefault();
    setError(undefined);
    const { error: failure } = await api.POST('/api/releases/{releaseId}/vex', {
      params: { path: { releaseId } },
      body: { format, ...(author.trim() ? { author: author.trim() } : {}) },
    });
    if (failure) setError(errorText(failure));
    else changed();
  };
  return (
    <Section title="VEX documents">
      {writable ? (
        <form class="toolbar" aria-label="Generate a VEX document" onSubmit={(event) => void generate(event)}>
          <label>
            Format
            <select value={format} onChange={(event) => setFormat(event.currentTarget.value as VexFormat)}>
              {FORMATS.map((entry) => (
                <option key={entry.value} value={entry.value}>
                  {entry.text}
                </option>
              ))}
            </select>
          </label>
          <label>
            Author
            <input
              value={author}
              maxLength={255}
              onInput={(event) => setAuthor(event.currentTarget.value)}
              placeholder="Team name if empty"
            />
          </label>
          <button type="submit" class="primary">
            Generate VEX document
          </button>
        </form>
      ) : null}
      <ErrorMessage message={error ?? documents.error} />
      {documents.data?.length ? (
        documents.data.map((document) => (
          <VexCard key={document.id} document={document} writable={writable} onChanged={changed} />
        ))
      ) : (
        <p class="muted">No VEX document yet.</p>
      )}
    </Section>
  );
}

type Action = 'submit' | 'approve' | 'reject' | 'publish';

function VexCard({
  document,
  writable,
  onChanged,
}: {
  document: VexDocument;
  writable: boolean;
  onChanged: () => void;
}) {
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [showContent, setShowContent] = useState(false);
  const [busy, setBusy] = useState(false);
  const approvals = useLoad(
    () =>
      must(api.GET('/api/vex/{vexId}/approvals', { params: { path: { vexId: document.id } } })).then(
        (body) => body.data,
      ),
    [document.id, document.workflow_status, document.version],
  );
  const content = useLoad(
    () =>
      showContent
        ? must(api.GET('/api/vex/{vexId}', { params: { path: { vexId: document.id } } })).then(
            (body) => body.data.content,
          )
        : Promise.resolve(undefined),
    [showContent, document.id, document.version],
  );
  const commentId = `comment-${document.id}`;
  const trimmed = comment.trim();

  const run = async (action: Action) => {
    if (action === 'reject' && !trimmed) {
      setError('A rejection needs a comment saying why.');
      return;
    }
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    const options = { params: { path: { vexId: document.id } }, body: trimmed ? { comment: trimmed } : {} };
    const result =
      action === 'submit'
        ? await api.POST('/api/vex/{vexId}/submit', options)
        : action === 'approve'
          ? await api.POST('/api/vex/{vexId}/approve', options)
          : action === 'reject'
            ? await api.POST('/api/vex/{vexId}/reject', { ...options, body: { comment: trimmed } })
            : await api.POST('/api/vex/{vexId}/publish', options);
    setBusy(false);
    if (result.error) setError(errorText(result.error));
    else {
      setComment('');
      setNotice(`Document ${action === 'submit' ? 'submitted' : `${action}${action.endsWith('e') ? 'd' : 'ed'}`}.`);
      onChanged();
    }
  };
  const simple = async (action: 'regenerate' | 'delete') => {
    if (action === 'delete' && !window.confirm('Delete this draft?')) return;
    setError(undefined);
    const path = { params: { path: { vexId: document.id } } };
    const result =
      action === 'regenerate'
        ? await api.POST('/api/vex/{vexId}/regenerate', path)
        : await api.DELETE('/api/vex/{vexId}', path);
    if (result.error) setError(errorText(result.error));
    else onChanged();
  };

  const status = document.workflow_status;
  const actions: Array<{ action: Action; text: string; primary?: boolean }> =
    status === 'draft'
      ? [{ action: 'submit', text: 'Submit for approval', primary: true }]
      : status === 'submitted'
        ? [
            { action: 'approve', text: 'Approve', primary: true },
            { action: 'reject', text: 'Reject' },
          ]
        : status === 'approved'
          ? [{ action: 'publish', text: 'Publish', primary: true }]
          : [];
  const formatName = FORMATS.find((entry) => entry.value === document.format)?.text ?? document.format;

  return (
    <article class="vex card inner" aria-labelledby={`vex-${document.id}`}>
      <h3 id={`vex-${document.id}`}>
        {formatName} v{document.version} <span class={`badge state-${status}`}>{status}</span>
      </h3>
      <dl class="facts">
        <div>
          <dt>Findings covered</dt>
          <dd>{document.finding_count}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDate(document.created_at)}</dd>
        </div>
        <div>
          <dt>Submitted by</dt>
          <dd>{document.submitted_by?.name ?? '—'}</dd>
        </div>
        <div>
          <dt>Content SHA-256</dt>
          <dd class="mono small hash">{document.content_hash}</dd>
        </div>
      </dl>
      {document.disclosure ? (
        <p class="links">
          <a href={`/d/${document.disclosure.public_slug}`}>Public disclosure page</a>
          <a href={document.disclosure.links.raw}>Raw document</a>
        </p>
      ) : null}
      {writable && (actions.length || status === 'draft') ? (
        <div class="workflow">
          {actions.length ? (
            <label for={commentId}>Comment{status === 'submitted' ? ' (required to reject)' : ' (optional)'}</label>
          ) : null}
          {actions.length ? (
            <textarea
              id={commentId}
              rows={2}
              maxLength={5000}
              value={comment}
              onInput={(event) => setComment(event.currentTarget.value)}
            />
          ) : null}
          <div class="actions">
            {actions.map(({ action, text, primary }) => (
              <button
                key={action}
                type="button"
                class={primary ? 'primary' : undefined}
                disabled={busy || (action === 'reject' && !trimmed)}
                onClick={() => void run(action)}
              >
                {text}
              </button>
            ))}
            {status === 'draft' ? (
              <button type="button" onClick={() => void simple('regenerate')}>
                Regenerate
              </button>
            ) : null}
            {status === 'draft' ? (
              <button type="button" class="danger" onClick={() => void simple('delete')}>
                Delete draft
              </button>
            ) : null}
          </div>
        </div>
      ) : null}
      <ErrorMessage message={error} />
      <Notice message={notice} />
      <button type="button" class="link" aria-expanded={showContent} onClick={() => setShowContent(!showContent)}>
        {showContent ? 'Hide the document' : 'View the document'}
      </button>
      {showContent ? (
        <pre class="document" tabIndex={0} aria-label="Document content">
          {content.data === undefined ? 'Loading…' : JSON.stringify(content.data, null, 2)}
        </pre>
      ) : null}
      <h4>Approval trail</h4>
      {approvals.data?.length ? (
        <ol class="history">
          {approvals.data.map((record) => (
            <li key={record.id}>
              <strong>{label(record.action)}</strong> by {record.actor_name} · {formatDate(record.created_at)}
              {record.comment ? (
                <>
                  : <q>{record.comment}</q>
                </>
              ) : null}
            </li>
          ))}
        </ol>
      ) : (
        <p class="muted">No workflow action yet.</p>
      )}
    </article>
  );
}
