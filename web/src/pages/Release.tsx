import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, errorText, type Schemas } from '../api/client';
import { ErrorMessage, fieldText, Loading, Notice, Section, formatDate } from '../components';
import { must, useLoad, useSaveResult, useTitle } from '../hooks';
import { can, useMe } from '../session';
import { uploadSbom } from '../upload';
import { Findings } from './Findings';
import { NewSinceUpload } from './NewSinceUpload';
import { VexDocuments } from './Vex';

type Release = Schemas['Release'];
type Sbom = Schemas['Sbom'];

export function ReleasePage({ releaseId }: { releaseId: string }) {
  const me = useMe();
  const { query } = useLocation();
  const release = useLoad(
    () => must(api.GET('/api/releases/{releaseId}', { params: { path: { releaseId } } })),
    [releaseId],
  );
  const productId = release.data?.data.productId;
  const product = useLoad(
    () =>
      productId
        ? must(api.GET('/api/products/{productId}', { params: { path: { productId } } }))
        : Promise.resolve(undefined),
    [productId],
  );
  const [findingsVersion, setFindingsVersion] = useState(0);
  const sboms = useLoad(
    () => must(api.GET('/api/releases/{releaseId}/sboms', { params: { path: { releaseId } } })),
    [releaseId],
  );
  const scanning = (sboms.data?.data ?? []).some(
    (sbom) => sbom.scan.status !== 'completed' && sbom.scan.status !== 'failed',
  );

  // Scans run in the background after an upload: look again until they are done, then refresh the findings.
  const wasScanning = useRef(false);
  useEffect(() => {
    if (scanning) {
      wasScanning.current = true;
      const timer = setTimeout(sboms.reload, 1000);
      return () => clearTimeout(timer);
    }
    if (wasScanning.current) {
      wasScanning.current = false;
      setFindingsVersion((value) => value + 1);
    }
    return undefined;
  }, [scanning, sboms.data]);

  const title = release.data ? `${product.data?.data.name ?? 'Release'} ${release.data.data.version}` : 'Release';
  useTitle(title);
  const data = release.data?.data;
  return (
    <>
      <p class="crumbs">
        <a href="/products">Products</a> /{' '}
        {productId ? <a href={`/products/${productId}`}>{product.data?.data.name ?? 'Product'}</a> : null} /
      </p>
      <h1>{title}</h1>
      <ErrorMessage message={release.error} />
      <Loading when={release.loading && !release.data} />
      {data ? (
        <>
          <ReleaseSummary
            release={data}
            canUnlock={can(me, 'vex:write')}
            onUnlocked={() => {
              release.reload();
              setFindingsVersion((value) => value + 1);
            }}
          />
          {can(me, 'sboms:write') ? (
            <UploadSbom
              releaseId={releaseId}
              locked={data.is_locked}
              onUploaded={() => {
                sboms.reload();
                setFindingsVersion((value) => value + 1);
              }}
            />
          ) : null}
          <SbomList sboms={sboms.data?.data} error={sboms.error} scanning={scanning} />
          <NewSinceUpload releaseId={releaseId} version={findingsVersion} sboms={sboms.data?.data} />
          <Findings
            releaseId={releaseId}
            version={findingsVersion}
            locked={data.is_locked}
            initialSearch={query.q ?? ''}
          />
          <VexDocuments releaseId={releaseId} onChanged={release.reload} />
          {can(me, 'releases:write') ? <EditRelease release={data} onSaved={release.reload} /> : null}
        </>
      ) : null}
    </>
  );
}

function ReleaseSummary({
  release,
  canUnlock,
  onUnlocked,
}: {
  release: Release;
  canUnlock: boolean;
  onUnlocked: () => void;
}) {
  return (
    <Section title="Overview">
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>{release.status}</dd>
        </div>
        <div>
          <dt>Release date</dt>
          <dd>{release.releaseDate ?? '—'}</dd>
        </div>
        <div>
          <dt>Watch</dt>
          <dd>
            {release.watched ? (
              'Re-evaluated when the vulnerability data changes'
            ) : (
              <span class="badge warn">Not watched: end-of-life releases are not re-evaluated</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Chain</dt>
          <dd>{release.is_locked ? <span class="badge warn">Locked by its VEX workflow</span> : 'Unlocked'}</dd>
        </div>
        <div>
          <dt>Package URL</dt>
          <dd>{release.purl ? <code>{release.purl}</code> : '—'}</dd>
        </div>
      </dl>
      <p class="links">
        <a href={`/api/compliance/${release.id}/report`} target="_blank" rel="noopener">
          Compliance report
        </a>
        <a href="/audit">Audit export</a>
      </p>
      {release.is_locked && canUnlock ? <Unlock releaseId={release.id} onUnlocked={onUnlocked} /> : null}
    </Section>
  );
}

/** Unlock (docs/vex-workflow.md "Unlock"): submitted and approved documents go back to draft; a comment says why. */
function Unlock({ releaseId, onUnlocked }: { releaseId: string; onUnlocked: () => void }) {
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string>();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const { error: failure } = await api.POST('/api/releases/{releaseId}/unlock', {
      params: { path: { releaseId } },
      body: { comment: comment.trim() },
    });
    if (failure) setError(errorText(failure));
    else {
      setComment('');
      onUnlocked();
    }
  };
  return (
    <form class="toolbar" aria-label="Unlock the release" onSubmit={(event) => void submit(event)}>
      <label>
        Why unlock (required)
        <textarea
          rows={1}
          required
          maxLength={5000}
          value={comment}
          onInput={(event) => setComment(event.currentTarget.value)}
        />
      </label>
      <button type="submit" disabled={!comment.trim()}>
        Unlock release
      </button>
      <ErrorMessage message={error} />
    </form>
  );
}

function UploadSbom({ releaseId, locked, onUploaded }: { releaseId: string; locked: boolean; onUploaded: () => void }) {
  const [progress, setProgress] = useState<{ fraction: number; phase: string } | undefined>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const send = async (file: File | undefined) => {
    if (!file) return;
    setError(undefined);
    setNotice(undefined);
    setProgress({ fraction: 0, phase: 'uploading' });
    try {
      const result = await uploadSbom(releaseId, file, (fraction, phase) => setProgress({ fraction, phase }));
      if (result.status === 200 || result.status === 201) {
        const sbom = (result.body as Schemas['SbomResponse']).data;
        setNotice(
          `${file.name}: ${sbom.format} ${sbom.spec_version}, ${sbom.component_count} components${result.status === 200 ? ' (already uploaded)' : ''}.`,
        );
        onUploaded();
      } else setError(`${file.name}: ${errorText(result.body, `the server answered ${result.status}`)}`);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setProgress(undefined);
      if (input.current) input.current.value = '';
    }
  };

  return (
    <Section title="Upload an SBOM">
      {locked ? (
        <p class="muted">
          The release is locked while a VEX document is submitted, approved or published: its SBOMs and decisions stay
          as reviewed.
        </p>
      ) : (
        <div
          class={`dropzone${dragging ? ' dragging' : ''}`}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(event) => {
            event.preventDefault();
            setDragging(false);
            void send(event.dataTransfer?.files[0]);
          }}
          data-testid="sbom-dropzone"
        >
          <p>Drop a CycloneDX or SPDX file here (JSON, XML or tag-value, gzip or not), or</p>
          <label class="button">
            Choose a file
            <input
              ref={input}
              type="file"
              class="visually-hidden"
              accept=".json,.xml,.spdx,.gz,.cdx,application/json,text/xml"
              onChange={(event) => void send(event.currentTarget.files?.[0])}
              disabled={progress !== undefined}
            />
          </label>
        </div>
      )}
      {progress ? (
        <p>
          <label>
            {progress.phase === 'compressing' ? 'Compressing…' : 'Uploading…'}
            <progress max={1} value={progress.phase === 'compressing' ? undefined : progress.fraction} />
          </label>
        </p>
      ) : null}
      <ErrorMessage message={error} />
      <Notice message={notice} />
    </Section>
  );
}

function SbomList({
  sboms,
  error,
  scanning,
}: {
  sboms: Sbom[] | undefined;
  error: string | undefined;
  scanning: boolean;
}) {
  return (
    <Section title="SBOMs">
      <ErrorMessage message={error} />
      {sboms?.length ? (
        <table>
          <caption class="visually-hidden">SBOMs of this release</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Format</th>
              <th scope="col">Components</th>
              <th scope="col">Scan</th>
              <th scope="col">Findings</th>
              <th scope="col">Uploaded</th>
              <th scope="col">Last evaluated</th>
            </tr>
          </thead>
          <tbody>
            {sboms.map((sbom) => (
              <tr key={sbom.id}>
                <td>
                  <a href={`/api/sboms/${sbom.id}/download`}>{sbom.file_name ?? sbom.id}</a>
                </td>
                <td>
                  {sbom.format} {sbom.spec_version}
                </td>
                <td>{sbom.component_count}</td>
                <td>{sbom.scan.status}</td>
                <td>{sbom.scan.finding_count}</td>
                <td>{formatDate(sbom.created_at)}</td>
                <td>{formatDate(sbom.scan.last_evaluated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">No SBOM yet.</p>
      )}
      <p class="muted" aria-live="polite">
        {scanning ? 'Scanning for vulnerabilities…' : ''}
      </p>
    </Section>
  );
}

function EditRelease({ release, onSaved }: { release: Release; onSaved: () => void }) {
  const { error, notice, start, settle } = useSaveResult();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => fieldText(form, name);
    start();
    const { error: failure } = await api.PUT('/api/releases/{releaseId}', {
      params: { path: { releaseId: release.id } },
      body: {
        name: text('name') || null,
        notes: text('notes') || null,
        releaseDate: text('releaseDate') || null,
        status: text('status') as Release['status'],
      },
    });
    settle(failure, 'Saved.', onSaved);
  };
  return (
    <Section title="Edit release">
      <form class="grid-form" onSubmit={(event) => void submit(event)}>
        <label>
          Name
          <input name="name" maxLength={255} value={release.name ?? ''} />
        </label>
        <label>
          Release date
          <input name="releaseDate" type="date" value={release.releaseDate?.slice(0, 10) ?? ''} />
        </label>
        <label>
          Status
          <select name="status" value={release.status}>
            <option value="active">active</option>
            <option value="deprecated">deprecated</option>
            <option value="end-of-life">end-of-life</option>
          </select>
        </label>
        <label class="wide">
          Notes
          <textarea name="notes" rows={2} maxLength={10000} value={release.notes ?? ''} />
        </label>
        <ErrorMessage message={error} />
        <div class="actions">
          <button type="submit" disabled={release.is_locked}>
            Save release
          </button>
          <Notice message={notice} />
        </div>
      </form>
    </Section>
  );
}
