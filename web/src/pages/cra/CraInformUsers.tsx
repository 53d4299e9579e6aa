/**
 * Informing users (Art. 14(8)) from a case: which affected releases already have a CSAF advisory drafted from the
 * case (with the VEX document's workflow state and, once published, the public disclosure), the action that drafts
 * the advisories of the others, and when users were informed. Drafting needs cra:write and vex:write.
 */
import { useState } from 'preact/hooks';
import { api, type Schemas } from '../../api/client';
import { ColumnHeads, ErrorMessage, formatDate, Notice, Section } from '../../components';
import { must, useLoad, useSaveResult, type SaveResult } from '../../hooks';
import { can, useMe } from '../../session';

type CaseDetail = Schemas['CraCaseDetail'];
type LinkedDocument = CaseDetail['users_informed']['documents'][number];
type WorkflowStatus = Schemas['VexDocument']['workflow_status'];

/** The console's page of a disclosure the API links as `…/api/disclosures/<slug>`; null when it is not one. */
export function disclosurePagePath(disclosureUrl: string): string | null {
  const slug = /\/api\/disclosures\/([^/?#]+)$/.exec(disclosureUrl)?.[1];
  return slug ? `/d/${slug}` : null;
}

/** Where a drafted document lives in the console: its card on the release page. */
const documentPath = (document: LinkedDocument) => `/releases/${document.release_id}#vex-${document.vex_id}`;

/**
 * The current workflow state of each linked document, read from its release's VEX list: the case keeps the link of
 * a draft someone deleted until the next drafting, and a deleted draft may be drafted again.
 */
function useWorkflowStates(craCase: CaseDetail) {
  const releaseIds = [...new Set(craCase.users_informed.documents.map((document) => document.release_id))];
  return useLoad(async () => {
    const lists = await Promise.all(
      releaseIds.map((releaseId) =>
        must(api.GET('/api/releases/{releaseId}/vex', { params: { path: { releaseId } } })).then((body) => body.data),
      ),
    );
    return new Map<string, WorkflowStatus>(lists.flat().map((document) => [document.id, document.workflow_status]));
  }, [craCase.id, craCase.updated_at]);
}

export function CraInformUsers({ craCase, onChanged }: { craCase: CaseDetail; onChanged: () => void }) {
  const me = useMe();
  const states = useWorkflowStates(craCase);
  const { documents } = craCase.users_informed;
  const stateOf = (document: LinkedDocument): WorkflowStatus | 'deleted' | undefined =>
    document.published_at ? 'published' : states.data ? (states.data.get(document.vex_id) ?? 'deleted') : undefined;
  const liveDocumentOf = (releaseId: string) =>
    documents.find((document) => document.release_id === releaseId && stateOf(document) !== 'deleted');
  const draftable = craCase.affected_releases.filter((release) => !liveDocumentOf(release.release_id));
  const allowed = can(me, 'cra:write') && can(me, 'vex:write');
  const informing = documents.find((document) => document.published_at === craCase.users_informed_at);
  // Kept here, not in the form: the form starts over (or goes) once the drafted releases leave it.
  const saveResult = useSaveResult();

  return (
    <Section title="Inform users (Art. 14(8))" id="inform-users">
      <p class="muted">
        Inform the impacted users in a machine-readable format: draft the CSAF advisory of each affected release here,
        then take it through the VEX workflow on the release's page (submit, approve, publish). The first publication
        records when users were informed, and the final report states it.
      </p>
      {craCase.users_informed_at ? (
        <p class="notice" role="status">
          Users informed at {formatDate(craCase.users_informed_at)}
          {informing?.disclosure_url ? <DisclosureLinks url={informing.disclosure_url} showUrl /> : null}
        </p>
      ) : (
        <p class="muted">Users not informed yet: no advisory drafted from this case is published.</p>
      )}
      <table class="cra-inform">
        <caption class="visually-hidden">Advisories of the affected releases</caption>
        <ColumnHeads names={['Release', 'CSAF advisory', 'Drafted', 'Public disclosure']} />
        <tbody>
          {craCase.affected_releases.map((release) => {
            const linked = documents.filter((document) => document.release_id === release.release_id);
            return (
              <tr key={release.release_id}>
                <th scope="row">
                  <a href={`/releases/${release.release_id}`}>{release.version}</a>
                </th>
                {linked.length ? (
                  <>
                    <td>
                      {linked.map((document) => (
                        <div key={document.vex_id}>
                          <DocumentState document={document} state={stateOf(document)} />
                        </div>
                      ))}
                    </td>
                    <td>
                      {linked.map((document) => (
                        <div key={document.vex_id}>
                          {formatDate(document.drafted_at)} by {document.drafted_by}
                        </div>
                      ))}
                    </td>
                    <td>
                      {linked.map((document) =>
                        document.disclosure_url ? (
                          <div key={document.vex_id}>
                            {formatDate(document.published_at)}
                            <DisclosureLinks url={document.disclosure_url} />
                          </div>
                        ) : null,
                      )}
                      {linked.some((document) => document.disclosure_url) ? null : '—'}
                    </td>
                  </>
                ) : (
                  <td colSpan={3} class="muted">
                    None drafted yet
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      <ErrorMessage message={states.error} />
      {craCase.status === 'dismissed' ? null : !allowed ? (
        <p class="muted">Drafting the advisories needs the cra:write and vex:write scopes.</p>
      ) : draftable.length ? (
        <DraftAdvisories
          key={draftable.map((release) => release.release_id).join()}
          craCase={craCase}
          releases={draftable}
          saveResult={saveResult}
          onChanged={onChanged}
        />
      ) : (
        <p class="muted">Every affected release has an advisory drafted from this case.</p>
      )}
      <ErrorMessage message={saveResult.error} />
      <Notice message={saveResult.notice} />
    </Section>
  );
}

function DocumentState({ document, state }: { document: LinkedDocument; state: string | undefined }) {
  if (state === 'deleted') return <span class="muted">Draft v{document.version} deleted: it may be drafted again</span>;
  return (
    <>
      <a href={documentPath(document)}>CSAF VEX document</a>
      {state ? <span class={`badge state-${state}`}>{state}</span> : null}
    </>
  );
}

/** The console's page of the disclosure and, where asked (or when there is no such page), the link itself. */
function DisclosureLinks({ url, showUrl = false }: { url: string; showUrl?: boolean }) {
  const page = disclosurePagePath(url);
  return (
    <>
      {page ? (
        <>
          {' · '}
          <a href={page}>public disclosure</a>
        </>
      ) : null}
      {showUrl || !page ? (
        <>
          {' · '}
          <a href={url} class="mono small">
            {url}
          </a>
        </>
      ) : null}
    </>
  );
}

function DraftAdvisories({
  craCase,
  releases,
  saveResult: { start, settle },
  onChanged,
}: {
  craCase: CaseDetail;
  releases: CaseDetail['affected_releases'];
  saveResult: SaveResult;
  onChanged: () => void;
}) {
  const [chosen, setChosen] = useState(() => new Set(releases.map((release) => release.release_id)));
  const [author, setAuthor] = useState('');
  const toggle = (releaseId: string, on: boolean) =>
    setChosen((current) => {
      const next = new Set(current);
      if (on) next.add(releaseId);
      else next.delete(releaseId);
      return next;
    });
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    start();
    const releaseIds = releases.map((release) => release.release_id).filter((releaseId) => chosen.has(releaseId));
    const { error: failure } = await api.POST('/api/cra/cases/{caseId}/inform-users', {
      params: { path: { caseId: craCase.id } },
      body: { release_ids: releaseIds, ...(author.trim() ? { author: author.trim() } : {}) },
    });
    const count = releaseIds.length;
    settle(
      failure,
      `${count} CSAF advisor${count === 1 ? 'y' : 'ies'} drafted: publish through the VEX workflow.`,
      onChanged,
    );
  };
  return (
    <form class="grid-form" aria-label="Draft the CSAF advisories" onSubmit={(event) => void submit(event)}>
      <fieldset class="wide">
        <legend>Releases to draft the advisory of</legend>
        {releases.map((release) => (
          <label key={release.release_id} class="check">
            <input
              type="checkbox"
              checked={chosen.has(release.release_id)}
              onChange={(event) => toggle(release.release_id, event.currentTarget.checked)}
            />
            {release.version}
          </label>
        ))}
      </fieldset>
      <label>
        Author
        <input
          value={author}
          maxLength={200}
          placeholder="Team name if empty"
          onInput={(event) => setAuthor(event.currentTarget.value)}
        />
      </label>
      <div class="actions">
        <button type="submit" class="primary" disabled={chosen.size === 0}>
          Draft CSAF advisories
        </button>
      </div>
    </form>
  );
}
