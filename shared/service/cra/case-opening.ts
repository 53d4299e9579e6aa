/**
 * Cases open by themselves (docs/cra-reporting.md "When a case opens"): after a scan or a corpus
 * re-evaluation has committed an SBOM's findings, and when a member marks a vulnerability actively
 * exploited. A case opens for (product, vulnerability) when an open finding on an on-market release
 * concerns an actively exploited vulnerability and its decision is not `not_affected`; later releases
 * join it. The same pass records a fix: a release of the product that carries the component and no
 * longer has the vulnerability. Everything here is idempotent (case ids derive from what they are
 * about, writes are guarded by the case's revision), so a retried scan or re-evaluation changes nothing.
 */
import { auditPut } from '../audit/audit-log';
import { keys } from '../data/keys';
import { queryAll, transactWrite, TransactionFailedError, tx, type TransactItem } from '../data/table-client';
import { decisionIndex, effectiveStatus } from '../dispositions/decision-identity';
import { dispositionStore } from '../dispositions/disposition-store';
import { eventId, eventItem } from '../events/event-store';
import type { Actor } from '../identity/actor';
import type { Product } from '../products/product-store';
import type { Release } from '../releases/release-store';
import type { SbomComponent } from '../sbom/model';
import type { Finding } from '../scans/finding-store';
import { caseIdOf, caseStore, type AffectedRelease, type CraCase, type Exploitation } from './case-store';
import { awareAtOf, deadlinesOf, isLive, isOnMarket } from './rules';

/** Who the audit log names for what the service does by itself. */
export const CRA_WATCH_ACTOR: Actor = { id: 'cra-watch', name: 'vexdesk-cra-watch', email: null, kind: 'operator' };

const WRITE_ATTEMPTS = 5;

export interface StoredFindings {
  product: Product;
  release: Release;
  /** Every finding of the SBOM as stored now (resolved ones included). */
  findings: readonly Finding[];
  components: readonly SbomComponent[];
  /** When the release entered the market, if that is what brought these findings here (shared/service/cra/market-entry.ts). */
  onMarketSince?: string;
}

interface MemberMark {
  vulnerabilityId: string;
  reason: string;
  evidenceUrl: string;
  markedAt: string;
  markedBy: string;
}

async function memberMarks(teamId: string): Promise<Map<string, MemberMark>> {
  const items = await queryAll({ pk: keys.craExploitation(teamId, '').pk, skPrefix: 'EXPLOITED#' });
  return new Map(items.map((item) => [String(item.vulnerabilityId), item as unknown as MemberMark]));
}

/** A component as a fix is compared: its purl without version and qualifiers, else its lower-case name. */
function packageOf(component: { name: string; purl?: string | null | undefined }): string {
  if (component.purl) {
    const end = component.purl.search(/[?#]/);
    const bare = end === -1 ? component.purl : component.purl.slice(0, end);
    const at = bare.lastIndexOf('@');
    return at > bare.lastIndexOf('/') ? bare.slice(0, at) : bare;
  }
  return component.name.toLowerCase();
}

function cvssOf(finding: Finding): CraCase['cvss'] {
  const best = finding.cvssV4 ?? finding.cvssV3 ?? finding.cvssV2;
  if (!best) return null;
  const version = finding.cvssV4 ? '4.0' : finding.cvssV3 ? '3.x' : '2.0';
  return { version, vector: best.vector, score: best.score };
}

function affectedEntry(release: Release, findings: readonly Finding[]): AffectedRelease {
  return {
    releaseId: release.id,
    version: release.version,
    findingIds: findings.map((finding) => finding.id).sort(),
    components: findings.map((finding) => ({
      name: finding.componentName,
      version: finding.componentVersion,
      purl: finding.componentPurl,
    })),
    fixedVersions: [...new Set(findings.flatMap((finding) => finding.fixedVersions))].sort(),
    firstDetectedAt: findings.map((finding) => finding.firstDetectedAt).sort()[0] ?? '',
  };
}

function exploitationOf(finding: Finding, mark: MemberMark | undefined): { exploitation: Exploitation; since: string } {
  if (finding.kev !== null) {
    const kevAddedAt = finding.kevAddedAt ?? finding.firstDetectedAt;
    return {
      since: kevAddedAt,
      exploitation: {
        source: 'kev',
        kevDateAdded: finding.kev.dateAdded,
        kevAddedAt,
        knownRansomwareCampaignUse: finding.kev.knownRansomwareCampaignUse,
        reason: mark?.reason ?? null,
        evidenceUrl: mark?.evidenceUrl ?? null,
        markedBy: mark?.markedBy ?? null,
      },
    };
  }
  const marked = mark as MemberMark;
  return {
    since: marked.markedAt,
    exploitation: {
      source: 'member',
      kevDateAdded: null,
      kevAddedAt: null,
      knownRansomwareCampaignUse: null,
      reason: marked.reason,
      evidenceUrl: marked.evidenceUrl,
      markedBy: marked.markedBy,
    },
  };
}

function newCase(where: StoredFindings, findings: Finding[], mark: MemberMark | undefined, now: string) {
  const { product, release } = where;
  const first = findings[0] as Finding;
  const { exploitation, since } = exploitationOf(first, mark);
  const detected = findings.map((finding) => finding.firstDetectedAt).sort()[0] ?? now;
  // Vexdesk held every fact only once the release was on the market too.
  const awareAt = awareAtOf(
    detected,
    since,
    product.craInScopeSince ?? null,
    release.releaseDate,
    where.onMarketSince ?? null,
  );
  const craCase: CraCase = {
    id: caseIdOf(product.teamId, product.id, first.cveId),
    teamId: product.teamId,
    productId: product.id,
    productName: product.name,
    vulnerabilityId: first.cveId,
    // Every other name of the vulnerability: the advisories' ids and their aliases.
    aliases: [...new Set(findings.flatMap((finding) => [finding.advisoryId, ...finding.aliases]))]
      .filter((alias) => alias !== first.cveId)
      .sort(),
    advisoryIds: [...new Set(findings.map((finding) => finding.advisoryId))].sort(),
    summary: first.summary,
    severity: first.severity,
    cvss: cvssOf(first),
    cwes: first.cwes,
    exploitation,
    awareAt,
    observedAwareAt: awareAt,
    awareAtReason: null,
    affected: [affectedEntry(release, findings)],
    fix: null,
    status: 'open',
    submissions: [],
    dismissal: null,
    dismissalSuggested: null,
    drafts: {},
    signals: [],
    timeline: [{ at: now, type: 'opened', by: CRA_WATCH_ACTOR.name, detail: { release: release.version, awareAt } }],
    createdAt: now,
    updatedAt: now,
    revision: 1,
  };
  return craCase;
}

function openedEvent(craCase: CraCase, releaseId: string): TransactItem {
  const deadlines = deadlinesOf(craCase.awareAt, null);
  return tx.put(
    eventItem({
      id: eventId('cra.case_opened', craCase.teamId, craCase.id),
      type: 'cra.case_opened',
      occurredAt: craCase.createdAt,
      teamId: craCase.teamId,
      productId: craCase.productId,
      releaseId,
      advisoryId: craCase.advisoryIds[0] ?? craCase.vulnerabilityId,
      data: {
        case_id: craCase.id,
        vulnerability_id: craCase.vulnerabilityId,
        aliases: craCase.aliases,
        source: craCase.exploitation.source,
        aware_at: craCase.awareAt,
        early_warning_due: deadlines.early_warning,
        notification_due: deadlines.notification,
      },
    }),
  );
}

/** Opens the case of (product, vulnerability), or adds the release to it. */
async function openOrJoin(where: StoredFindings, findings: Finding[], mark: MemberMark | undefined) {
  const { product, release } = where;
  const now = new Date().toISOString();
  const fresh = newCase(where, findings, mark, now);
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt += 1) {
    const current = await caseStore.find(product.teamId, fresh.id);
    let items: TransactItem[];
    if (!current) {
      items = [
        caseStore.write(fresh, 0),
        openedEvent(fresh, release.id),
        auditPut(product.teamId, CRA_WATCH_ACTOR, {
          action: 'open',
          entityType: 'cra_case',
          entityId: fresh.id,
          entityName: `${product.name}: ${fresh.vulnerabilityId}`,
          changes: { awareAt: fresh.awareAt, release: release.version, source: fresh.exploitation.source },
        }),
      ];
    } else {
      if (!isLive(current.status)) return;
      const entry = affectedEntry(release, findings);
      const listed = current.affected.find((affected) => affected.releaseId === release.id);
      if (listed && listed.findingIds.join() === entry.findingIds.join()) return;
      const observed = [current.observedAwareAt, fresh.observedAwareAt].sort()[0] as string;
      const next: CraCase = {
        ...current,
        affected: [...current.affected.filter((affected) => affected.releaseId !== release.id), entry],
        aliases: [...new Set([...current.aliases, ...fresh.aliases])].sort(),
        advisoryIds: [...new Set([...current.advisoryIds, ...fresh.advisoryIds])].sort(),
        observedAwareAt: observed,
        awareAt: [current.awareAt, observed].sort()[0] as string,
        updatedAt: now,
        revision: current.revision + 1,
        timeline: listed
          ? current.timeline
          : [
              ...current.timeline,
              { at: now, type: 'release_affected', by: CRA_WATCH_ACTOR.name, detail: { release: release.version } },
            ],
      };
      items = [caseStore.write(next, current.revision)];
    }
    try {
      await transactWrite(items);
      return;
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(0)) continue;
      throw error;
    }
  }
}

/** Records a fix on the product's live cases that this release shows: it carries the component, without the vulnerability. */
async function recordFixes(where: StoredFindings, now: string): Promise<void> {
  const { product } = where;
  const cases = (await caseStore.list(product.teamId)).filter(
    (craCase) => craCase.productId === product.id && craCase.fix === null && isLive(craCase.status),
  );
  if (cases.length === 0) return;
  const shipped = new Map(where.components.map((component) => [packageOf(component), component]));
  for (const listed of cases) {
    let craCase: CraCase | undefined = listed;
    // A case changed meanwhile (a submission, a reminder) or a write in conflict is read again and retried; after
    // WRITE_ATTEMPTS the fix is left to the next scan of a release, as a case changed that often can wait.
    for (let attempt = 0; attempt < WRITE_ATTEMPTS && craCase?.fix === null && isLive(craCase.status); attempt += 1) {
      const next = withFix(where, craCase, shipped, now);
      if (!next) break;
      try {
        await transactWrite([
          caseStore.write(next, craCase.revision),
          auditPut(product.teamId, CRA_WATCH_ACTOR, {
            action: 'fix',
            entityType: 'cra_case',
            entityId: craCase.id,
            entityName: `${product.name}: ${craCase.vulnerabilityId}`,
            changes: { fixAvailableAt: next.fix?.availableAt, release: where.release.version },
          }),
        ]);
        break;
      } catch (error) {
        if (!(error instanceof TransactionFailedError)) throw error;
        craCase = await caseStore.find(product.teamId, craCase.id);
      }
    }
  }
}

/** The case with this release as its fix, or undefined when the release does not fix it. */
function withFix(
  where: StoredFindings,
  craCase: CraCase,
  shipped: Map<string, SbomComponent>,
  now: string,
): CraCase | undefined {
  const { release } = where;
  const stillOpen = where.findings.some(
    (finding) => !finding.noLongerDetected && finding.cveId === craCase.vulnerabilityId,
  );
  if (stillOpen) return undefined;
  const carried = craCase.affected
    .flatMap((affected) => affected.components)
    .map((component) => shipped.get(packageOf(component)))
    .find((component) => component !== undefined);
  if (!carried) return undefined;
  const releasedAt =
    release.releaseDate !== null && Date.parse(release.releaseDate) > Date.parse(now) ? release.releaseDate : now;
  return {
    ...craCase,
    fix: {
      availableAt: new Date(Date.parse(releasedAt)).toISOString(),
      source: 'release',
      releaseId: release.id,
      version: release.version,
      measure: `${carried.name} ${carried.version ?? ''} in release ${release.version}`.trim(),
    },
    updatedAt: now,
    revision: craCase.revision + 1,
    timeline: [
      ...craCase.timeline,
      { at: now, type: 'fix_available', by: CRA_WATCH_ACTOR.name, detail: { release: release.version } },
    ],
  };
}

export const CraCaseOpening = {
  /** After an SBOM's findings are committed (scan or re-evaluation): open or join cases, record fixes. */
  async findingsStored(where: StoredFindings): Promise<void> {
    const { product, release } = where;
    if (!product.craInScope) return;
    const now = new Date().toISOString();
    await recordFixes(where, now);
    if (!isOnMarket(product, release, now)) return;
    const marks = await memberMarks(product.teamId);
    const exploited = where.findings.filter(
      (finding) => !finding.noLongerDetected && (finding.kev !== null || marks.has(finding.cveId)),
    );
    if (exploited.length === 0) return;
    const decisionOf = decisionIndex(await dispositionStore.listByRelease(product.teamId, product.id, release.id));
    const reportable = exploited.filter((finding) => effectiveStatus(decisionOf(finding), now) !== 'not_affected');
    const byVulnerability = new Map<string, Finding[]>();
    for (const finding of reportable)
      byVulnerability.set(finding.cveId, [...(byVulnerability.get(finding.cveId) ?? []), finding]);
    for (const [vulnerabilityId, findings] of byVulnerability)
      await openOrJoin(where, findings, marks.get(vulnerabilityId));
  },
};
