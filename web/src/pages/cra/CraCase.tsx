/** One CRA case: what it is about, the three deadlines, the drafts, informing users, the actions and the timeline. */
import { api, type Schemas } from '../../api/client';
import { ColumnHeads, ErrorMessage, formatDate, Loading, Section } from '../../components';
import { must, useLoad, useTitle } from '../../hooks';
import { label } from '../../labels';
import { can, useMe } from '../../session';
import { CraActions } from './CraActions';
import { CraDrafts } from './CraDrafts';
import { CraInformUsers } from './CraInformUsers';
import { CRA_STAGES, Deadline, LIVE_STATUSES, StatusBadge, STAGE_TITLE, useNow, type CraStage } from './Deadline';

type CaseDetail = Schemas['CraCaseDetail'];
type TimelineEntry = CaseDetail['timeline'][number];

export function CraCasePage({ caseId }: { caseId: string }) {
  const me = useMe();
  const craCase = useLoad(
    () => must(api.GET('/api/cra/cases/{caseId}', { params: { path: { caseId } } })).then((body) => body.data),
    [caseId],
  );
  const data = craCase.data;
  useTitle(data ? `${data.vulnerability_id} in ${data.product_name}` : 'CRA case');
  if (!can(me, 'cra:read'))
    return (
      <>
        <h1>CRA case</h1>
        <p class="notice">Reading CRA cases needs the cra:read scope.</p>
      </>
    );
  const writable = can(me, 'cra:write');
  const live = data ? LIVE_STATUSES.includes(data.status) : false;
  return (
    <>
      <p class="crumbs">
        <a href="/cra">CRA reporting</a> /
      </p>
      <h1>{data ? `${data.vulnerability_id} in ${data.product_name}` : 'CRA case'}</h1>
      <ErrorMessage message={craCase.error} />
      <Loading when={craCase.loading && !data} />
      {data ? (
        <>
          {data.dismissal_suggested && live ? (
            <p class="notice warn" role="status">
              Every affected release is now decided not affected
              {data.dismissal_suggested.justification ? ` (${label(data.dismissal_suggested.justification)})` : ''}:
              dismiss the case below if that holds.
            </p>
          ) : null}
          <Overview craCase={data} />
          <Deadlines craCase={data} />
          <CraDrafts craCase={data} writable={writable && live} onChanged={craCase.reload} />
          <CraInformUsers craCase={data} onChanged={craCase.reload} />
          {writable ? <CraActions craCase={data} onChanged={craCase.reload} /> : null}
          <Timeline entries={data.timeline} />
        </>
      ) : null}
    </>
  );
}

function Overview({ craCase }: { craCase: CaseDetail }) {
  const { exploitation } = craCase;
  return (
    <Section title="Case">
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={craCase.status} />
          </dd>
        </div>
        <div>
          <dt>Product</dt>
          <dd>
            <a href={`/products/${craCase.product_id}`}>{craCase.product_name}</a>
          </dd>
        </div>
        <div>
          <dt>Vulnerability</dt>
          <dd>{[craCase.vulnerability_id, ...craCase.aliases].join(', ')}</dd>
        </div>
        <div>
          <dt>Severity</dt>
          <dd>
            {craCase.severity}
            {craCase.cvss ? ` · CVSS ${craCase.cvss.version} ${craCase.cvss.score}` : ''}
            {craCase.cwes.length ? ` · ${craCase.cwes.join(', ')}` : ''}
          </dd>
        </div>
        <div>
          <dt>Aware since</dt>
          <dd>
            {formatDate(craCase.aware_at)}
            {craCase.aware_at !== craCase.observed_aware_at ? (
              <div class="muted small">
                Observed {formatDate(craCase.observed_aware_at)}; set earlier: {craCase.aware_at_reason}
              </div>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Actively exploited</dt>
          <dd>
            {exploitation.source === 'kev'
              ? `CISA KEV since ${exploitation.kev_date_added ?? '?'} (Vexdesk saw it ${formatDate(exploitation.kev_added_at)})`
              : `Marked by ${exploitation.marked_by ?? 'a member'}: ${exploitation.reason ?? ''}`}
            {exploitation.known_ransomware_campaign_use ? (
              <div class="muted small">Ransomware use: {exploitation.known_ransomware_campaign_use}</div>
            ) : null}
            {exploitation.evidence_url ? (
              <div class="small">
                <a href={exploitation.evidence_url} rel="noreferrer noopener" target="_blank">
                  Evidence
                </a>
              </div>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Fix</dt>
          <dd>
            {craCase.fix
              ? `${craCase.fix.version ? `Release ${craCase.fix.version}` : (craCase.fix.measure ?? 'Measure')} since ${formatDate(craCase.fix_available_at)}`
              : 'None known yet'}
          </dd>
        </div>
        {craCase.dismissal ? (
          <div class="wide">
            <dt>Dismissed</dt>
            <dd>
              {formatDate(craCase.dismissal.at)} by {craCase.dismissal.by}: {craCase.dismissal.reason}
            </dd>
          </div>
        ) : null}
        <div class="wide">
          <dt>Summary</dt>
          <dd>{craCase.summary}</dd>
        </div>
      </dl>
      <table>
        <caption>Affected releases</caption>
        <ColumnHeads names={['Release', 'Components', 'Fixed versions', 'First detected']} />
        <tbody>
          {craCase.affected_releases.map((release) => (
            <tr key={release.release_id}>
              <td>
                <a href={`/releases/${release.release_id}`}>{release.version}</a>
              </td>
              <td class="small">
                {release.components.map((component) => `${component.name} ${component.version ?? ''}`).join(', ')}
              </td>
              <td>{release.fixed_versions.join(', ') || '—'}</td>
              <td>{formatDate(release.first_detected_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function Deadlines({ craCase }: { craCase: CaseDetail }) {
  const now = useNow();
  const submissionOf = (stage: CraStage) => craCase.submissions.find((submission) => submission.stage === stage);
  return (
    <Section title="Deadlines">
      <table class="cra-deadlines">
        <caption class="visually-hidden">Deadlines and submissions</caption>
        <ColumnHeads names={['Stage', 'Deadline', 'Submitted', 'Reference']} />
        <tbody>
          {CRA_STAGES.map((stage) => {
            const submission = submissionOf(stage);
            return (
              <tr key={stage}>
                <th scope="row">{STAGE_TITLE[stage]}</th>
                <td>
                  <Deadline craCase={craCase} stage={stage} now={now} />
                </td>
                <td>{submission ? `${formatDate(submission.submitted_at)} by ${submission.recorded_by}` : '—'}</td>
                <td>
                  {submission ? (
                    <>
                      <span class="mono">{submission.reference}</span>
                      {submission.note ? <div class="muted small">{submission.note}</div> : null}
                    </>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Section>
  );
}

const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

/** A timeline entry as a sentence; an entry this console does not know yet shows its type. */
export function timelineText(entry: Pick<TimelineEntry, 'type' | 'detail'>): string {
  const { detail } = entry;
  const stageTitle = (value: unknown) => STAGE_TITLE[value as CraStage] ?? text(value);
  switch (entry.type) {
    case 'opened':
      return `Case opened (release ${text(detail.release)})`;
    case 'release_affected':
      return `Release ${text(detail.release)} affected`;
    case 'fix_available':
      return `Fix available in release ${text(detail.release)}`;
    case 'fix':
      return `Fix recorded: ${text(detail.measure)}`;
    case 'submit':
      return `${stageTitle(detail.stage)} submitted (reference ${text(detail.reference)})`;
    case 'dismiss':
      return `Dismissed: ${text(detail.reason)}`;
    case 'close':
      return 'Closed';
    case 'draft_advisory': {
      const documents = Array.isArray(detail.documents) ? (detail.documents as { release?: unknown }[]) : [];
      const releases = documents.map((document) => text(document.release));
      return `CSAF advisory drafted to inform users (release${releases.length > 1 ? 's' : ''} ${releases.join(', ')})`;
    }
    case 'users_informed':
      return `Users informed: advisory published (disclosure ${text(detail.disclosureSlug)})`;
    case 'update': {
      const parts: string[] = [];
      const aware = detail.awareAt as { to?: unknown; reason?: unknown } | undefined;
      if (aware) parts.push(`Awareness set to ${formatDate(text(aware.to))} (${text(aware.reason)})`);
      for (const stage of CRA_STAGES) {
        const draft = detail[`${stage}Draft`] as { version?: unknown } | undefined;
        if (draft) parts.push(`${STAGE_TITLE[stage]} draft edited (version ${text(draft.version)})`);
      }
      return parts.join('; ') || 'Updated';
    }
    default:
      return label(entry.type);
  }
}

function Timeline({ entries }: { entries: TimelineEntry[] }) {
  return (
    <Section title="Timeline">
      <ol class="history cra-timeline">
        {entries.map((entry, index) => (
          <li key={`${entry.at}-${index}`}>
            <time dateTime={entry.at}>{formatDate(entry.at)}</time> · {timelineText(entry)}{' '}
            <span class="muted small">by {entry.by}</span>
          </li>
        ))}
      </ol>
    </Section>
  );
}
