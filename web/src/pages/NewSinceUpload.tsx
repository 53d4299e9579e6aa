/**
 * A release's findings that arrived after its SBOMs were uploaded: the corpus watch re-evaluates watched
 * releases when an advisory is published, KEV-listed or changed (docs/watch.md), and marks what it finds
 * `detected_by: "corpus_update"` with `first_detected_at`. Newest first, so those of the last upload lead.
 */
import { api, type Schemas } from '../api/client';
import { Section, formatDate } from '../components';
import { must, useLoad } from '../hooks';

const NEWEST = 100;

export function NewSinceUpload({
  releaseId,
  version,
  sboms,
}: {
  releaseId: string;
  version: number;
  sboms: Schemas['Sbom'][] | undefined;
}) {
  const newest = useLoad(
    () =>
      must(
        api.GET('/api/releases/{releaseId}/vulnerabilities', {
          params: { path: { releaseId }, query: { sort: '-first_detected', perPage: NEWEST } },
        }),
      ),
    [releaseId, version],
  );
  const rows = (newest.data?.data ?? []).filter((row) => row.detected_by === 'corpus_update');
  if (!rows.length) return null;
  const lastUpload = (sboms ?? []).reduce<string | undefined>(
    (latest, sbom) => (!latest || sbom.created_at > latest ? sbom.created_at : latest),
    undefined,
  );
  return (
    <Section title="New since upload">
      <p class="muted">
        {rows.length}
        {rows.length === NEWEST ? '+' : ''} open {rows.length === 1 ? 'finding' : 'findings'} arrived through a change
        of the vulnerability data after the SBOM was uploaded
        {lastUpload ? ` (last upload ${formatDate(lastUpload)})` : ''}, without a rescan.
      </p>
      <table>
        <caption class="visually-hidden">Findings that arrived after the upload, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Vulnerability</th>
            <th scope="col">Component</th>
            <th scope="col">Severity</th>
            <th scope="col">KEV</th>
            <th scope="col">Arrived</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <th scope="row">
                <span class="mono">{row.cve_id}</span>
                {row.advisory_id !== row.cve_id ? <span class="muted small"> {row.advisory_id}</span> : null}
              </th>
              <td>
                {row.component_name}
                <span class="muted"> {row.component_version ?? ''}</span>
              </td>
              <td>
                <span class={`sev sev-${row.severity.toLowerCase()}`}>{row.severity}</span>
              </td>
              <td>
                {row.is_kev ? (
                  <>
                    <span class="badge danger">KEV</span>
                    {row.kev_added_at ? <span class="small"> since {formatDate(row.kev_added_at)}</span> : null}
                  </>
                ) : (
                  'No'
                )}
              </td>
              <td>
                <time dateTime={row.first_detected_at}>{formatDate(row.first_detected_at)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
