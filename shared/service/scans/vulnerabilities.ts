/**
 * The two vulnerability lists (docs/api.md "Vulnerability lists"):
 * - GET /api/sboms/{id}/vulnerabilities: the SBOM's findings;
 * - GET /api/releases/{releaseId}/vulnerabilities: the release as one picture, one row per
 *   package and advisory (`decisionKey`) across its SBOMs, naming the SBOMs it was found in.
 * Both are paged, filtered and sorted the same way; `summary` counts every row that matches
 * the filters (not only the page), by the status that counts (`effectiveStatus`: expired and
 * review_required decisions count as undecided).
 *
 * Findings come from the per-SBOM digests (shared/service/scans/findings-digest.ts), dispositions
 * are read fresh on every request, and the rows built from a set of digests (grouped, with
 * their sort keys and each sort order) are kept per process for as long as the digests' stamps
 * are current.
 *
 * An SBOM no scan has completed for has no findings to list, which is not
 * the same as none: answering `total: 0` would let a CI gate pass on a scan
 * that never ran (or was lost in a crash). Until a scan completes the list is
 * a 409 (`scan_pending` while queued or running, `scan_failed` after it gave
 * up) naming the scan status; once one has, each answer carries `scan`. The
 * release list answers the same 409 while any of its SBOMs has none.
 */
import type { Disposition } from '../dispositions/disposition-store';
import { toFindingDecisionView } from '../dispositions/disposition-views';
import { Dispositions } from '../dispositions/dispositions';
import { decisionIndex, decisionKey, decisionState, effectiveStatus } from '../dispositions/decision-identity';
import { AppError } from '../errors';
import { pageMeta } from '../data/paging';
import { Sboms } from '../sboms/sboms';
import { Releases } from '../releases/releases';
import { sbomStore, toSbomView, type Sbom } from '../sboms/sbom-store';
import { TeamSettingsService } from '../identity/team-settings';
import type { FindingSummary, VulnerabilityListQuery, VulnerabilitySortField } from '../schemas/sboms';
import { shownTo, type Finding } from './finding-store';
import { findingsDigest } from './findings-digest';

const SEVERITY_RANK = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1, NONE: 0 } as const;

export function toVulnerabilityView(finding: Finding, disposition: Disposition | undefined) {
  return {
    id: finding.id,
    cve_id: finding.cveId,
    advisory_id: finding.advisoryId,
    aliases: finding.aliases,
    summary: finding.summary,
    component_name: finding.componentName,
    component_version: finding.componentVersion,
    component_purl: finding.componentPurl,
    component_ref: finding.componentRef,
    severity: finding.severity,
    severity_source: finding.severitySource,
    // Before the alias index, the score always came from the finding's own advisory.
    severity_source_id:
      finding.severitySourceId !== undefined
        ? finding.severitySourceId
        : finding.severitySource === null
          ? null
          : finding.advisoryId,
    cvss_v3_score: finding.cvssV3?.score ?? null,
    cvss_v3_vector: finding.cvssV3?.vector ?? null,
    cvss_v2_score: finding.cvssV2?.score ?? null,
    cvss_v2_vector: finding.cvssV2?.vector ?? null,
    cvss_v4_score: finding.cvssV4?.score ?? null,
    cvss_v4_vector: finding.cvssV4?.vector ?? null,
    epss_score: finding.epss?.score ?? null,
    epss_percentile: finding.epss?.percentile ?? null,
    is_kev: finding.kev !== null,
    kev: finding.kev,
    cwes: finding.cwes,
    affected_versions: finding.affectedVersions,
    fixed_versions: finding.fixedVersions,
    match_confidence: finding.matchConfidence,
    match_evidence: finding.matchEvidence,
    first_detected_at: finding.firstDetectedAt,
    detected_by: finding.detectedBy ?? 'scan',
    last_seen_at: finding.lastSeenAt,
    state: finding.noLongerDetected ? ('resolved' as const) : ('open' as const),
    resolved_at: finding.noLongerDetected ? (finding.resolvedAt ?? finding.lastSeenAt) : null,
    resolved_reason: finding.noLongerDetected ? (finding.resolvedReason ?? 'no_longer_affected') : null,
    no_longer_detected: finding.noLongerDetected,
    kev_added_at: finding.kev === null ? null : (finding.kevAddedAt ?? finding.firstDetectedAt),
    informational: finding.informational ?? null,
    ...(disposition ? { disposition: toFindingDecisionView(disposition) } : {}),
  };
}

export class ScanNotReadyError extends AppError {
  /** `sbomId` names the SBOM when the list is a release's. */
  constructor(scan: Sbom['scan'], sbomId?: string) {
    const failed = scan.status === 'failed';
    const which = sbomId ? `SBOM ${sbomId} of this release` : 'this SBOM';
    super(
      409,
      failed ? 'scan_failed' : 'scan_pending',
      failed
        ? `The scan of ${which} failed, so it has no vulnerability results; run POST /api/cve-scan to retry`
        : `The scan of ${which} is ${scan.status} and has not completed yet, so there are no vulnerability results; retry shortly`,
      [
        {
          path: sbomId ? `sboms.${sbomId}.scan.status` : 'scan.status',
          message: failed ? (scan.error ?? 'failed') : scan.status,
          code: scan.status,
        },
      ],
    );
  }
}

/** One line of a list: a finding, or for a release the findings of one package and advisory across its SBOMs. */
interface Row {
  /** Shown: the finding of the newest SBOM that has it. */
  finding: Finding;
  /** Every finding of the row, one per SBOM; each meets its decision through `decisionIndex`. */
  findings: readonly Finding[];
  sbomIds: string[];
  firstDetectedAt: string;
  kev: number;
  severity: number;
  epss: number | null;
  cvss: number | null;
  component: string;
  /** Lower-cased name, purl, CVE, advisory id and aliases, for `search`. */
  text: string;
}

function rowOf(findings: readonly Finding[], sbomIds: string[]): Row {
  const finding = findings[findings.length - 1]!; // callers pass at least one
  const firstDetectedAt = findings.reduce(
    (earliest, each) => (each.firstDetectedAt < earliest ? each.firstDetectedAt : earliest),
    finding.firstDetectedAt,
  );
  return {
    finding,
    findings,
    sbomIds,
    firstDetectedAt,
    kev: finding.kev !== null ? 1 : 0,
    severity: SEVERITY_RANK[finding.severity],
    epss: finding.epss?.score ?? null,
    cvss: (finding.cvssV4 ?? finding.cvssV3 ?? finding.cvssV2)?.score ?? null,
    component: `${finding.componentName}\u0000${finding.componentVersion ?? ''}`.toLowerCase(),
    text: [finding.componentName, finding.componentPurl ?? '', finding.cveId, finding.advisoryId, ...finding.aliases]
      .join('\u0000')
      .toLowerCase(),
  };
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Known-exploited first, then severity, then exploit probability; CVE and id make it total. */
function defaultOrder(a: Row, b: Row): number {
  return (
    b.kev - a.kev ||
    b.severity - a.severity ||
    (b.epss ?? 0) - (a.epss ?? 0) ||
    compareText(a.finding.cveId, b.finding.cveId) ||
    compareText(a.finding.id, b.finding.id)
  );
}

/** Absent scores sort last in either direction. */
function byNumber(pick: (row: Row) => number | null, descending: boolean) {
  return (a: Row, b: Row) => {
    const [x, y] = [pick(a), pick(b)];
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return descending ? y - x : x - y;
  };
}

function byText(pick: (row: Row) => string, descending: boolean) {
  return (a: Row, b: Row) => (descending ? -1 : 1) * compareText(pick(a), pick(b));
}

const SORTS: Record<VulnerabilitySortField, (descending: boolean) => (a: Row, b: Row) => number> = {
  severity: (descending) => byNumber((row) => row.severity, descending),
  epss: (descending) => byNumber((row) => row.epss, descending),
  cvss: (descending) => byNumber((row) => row.cvss, descending),
  component: (descending) => byText((row) => row.component, descending),
  cve: (descending) => byText((row) => row.finding.cveId, descending),
  first_detected: (descending) => byText((row) => row.firstDetectedAt, descending),
};

function sorted(rows: readonly Row[], sort: VulnerabilityListQuery['sort']): Row[] {
  if (!sort) return [...rows].sort(defaultOrder);
  const descending = sort.startsWith('-');
  const compare = SORTS[(descending ? sort.slice(1) : sort) as VulnerabilitySortField](descending);
  return [...rows].sort((a, b) => compare(a, b) || defaultOrder(a, b));
}

/**
 * Rows built from a set of digests, per process: the key names every digest's stamp, so a
 * rescan, an added or removed SBOM makes a new key. Each sort order is computed once per key.
 * Rows hold references to the digests' findings; at most ROWS_KEPT of them are kept.
 */
interface RowSet {
  rows: readonly Row[];
  orders: Map<string, Row[]>;
}
const ROWS_KEPT = 60_000;
const rowSets = new Map<string, RowSet>();
let rowsKept = 0;

function keep(cacheKey: string, set: RowSet): void {
  if (set.rows.length > ROWS_KEPT) return;
  rowSets.set(cacheKey, set);
  rowsKept += set.rows.length;
  for (const [oldest, held] of rowSets) {
    if (rowsKept <= ROWS_KEPT) break;
    rowSets.delete(oldest);
    rowsKept -= held.rows.length;
  }
}

/**
 * The rows of some SBOMs' findings, from memory when every SBOM's digest stamp is the one they
 * were built from. Rows built from anything but stamped digests (an SBOM read from the table)
 * are never kept: what the table holds can change under the same stamp while a rescan writes.
 */
async function rowSet(
  scope: string,
  sboms: readonly Sbom[],
  build: (findings: (readonly Finding[])[]) => Row[],
): Promise<RowSet> {
  const cacheKey = sboms.some((sbom) => sbom.findingsDigest === undefined)
    ? undefined
    : `${scope}:${sboms.map((sbom) => `${sbom.id}=${sbom.findingsDigest ?? ''}`).join(',')}`;
  const held = cacheKey === undefined ? undefined : rowSets.get(cacheKey);
  if (held && cacheKey !== undefined) {
    rowSets.delete(cacheKey); // re-inserted last: the Map's order is the LRU order
    rowSets.set(cacheKey, held);
    return held;
  }
  const loaded = await Promise.all(sboms.map((sbom) => findingsDigest.load(sbom)));
  const set: RowSet = { rows: build(loaded.map((each) => each.findings)), orders: new Map() };
  if (cacheKey !== undefined && loaded.every((each) => each.stamped)) keep(cacheKey, set);
  return set;
}

function ordered(set: RowSet, sort: VulnerabilityListQuery['sort']): Row[] {
  const name = sort ?? '';
  let order = set.orders.get(name);
  if (!order) {
    order = sorted(set.rows, sort);
    set.orders.set(name, order);
  }
  return order;
}

type Filters = Omit<VulnerabilityListQuery, 'page' | 'perPage' | 'sort'>;

/** The row's decision: its findings' decisions, the most recently changed one (they are one decision per package and advisory once every finding of it meets the same). */
function decisionOfRow(row: Row, decisionOf: (finding: Finding) => Disposition | undefined): Disposition | undefined {
  let chosen: Disposition | undefined;
  for (const finding of row.findings) {
    const decision = decisionOf(finding);
    if (decision && (!chosen || decision.updatedAt > chosen.updatedAt)) chosen = decision;
  }
  return chosen;
}

function emptySummary(): FindingSummary {
  return { total: 0, affected: 0, notAffected: 0, fixed: 0, underInvestigation: 0, withoutDisposition: 0 };
}

const SUMMARY_FIELD = {
  affected: 'affected',
  not_affected: 'notAffected',
  fixed: 'fixed',
  under_investigation: 'underInvestigation',
} as const;

/** Filters the rows in order, counts what matched, and keeps the page. */
function selectPage(
  order: readonly Row[],
  dispositions: readonly Disposition[],
  filters: Filters,
  paging: { page: number; perPage: number },
  visible: (finding: Finding) => boolean,
) {
  const decisionOf = decisionIndex(dispositions);
  const now = new Date().toISOString();
  const severities = filters.severity ? new Set(filters.severity.map((severity) => severity.toUpperCase())) : undefined;
  const statuses = filters.status ? new Set<string>(filters.status) : undefined;
  const decisions = filters.decision ? new Set<string>(filters.decision) : undefined;
  const search = filters.search?.toLowerCase();
  const first = (paging.page - 1) * paging.perPage;
  const summary = emptySummary();
  const page: { row: Row; decision: Disposition | undefined }[] = [];
  for (const row of order) {
    const { finding } = row;
    if (!visible(finding)) continue;
    if (filters.state !== 'all' && finding.noLongerDetected !== (filters.state === 'resolved')) continue;
    if (severities && !severities.has(finding.severity)) continue;
    if (filters.kev !== undefined && (row.kev === 1) !== filters.kev) continue;
    if (filters.fixable !== undefined && finding.fixedVersions.length > 0 !== filters.fixable) continue;
    if (filters.epssMin !== undefined && (row.epss ?? 0) < filters.epssMin) continue;
    if (search !== undefined && !row.text.includes(search)) continue;
    const decision = decisionOfRow(row, decisionOf);
    const status = effectiveStatus(decision, now);
    if (statuses && !statuses.has(status ?? 'undisposed')) continue;
    if (decisions && !decisions.has(decisionState(decision, now))) continue;
    if (summary.total >= first && page.length < paging.perPage) page.push({ row, decision });
    summary.total += 1;
    if (status === undefined) summary.withoutDisposition += 1;
    else summary[SUMMARY_FIELD[status]] += 1;
  }
  return { page, summary, meta: pageMeta(summary.total, paging.page, paging.perPage) };
}

function sbomScanView(sbom: Sbom) {
  return { id: sbom.id, file_name: sbom.fileName, created_at: sbom.createdAt, scan: toSbomView(sbom).scan };
}

export const Vulnerabilities = {
  async list(teamId: string, sbomId: string, query: VulnerabilityListQuery) {
    const { sbom, release, product } = await Sboms.resolve(teamId, sbomId);
    // `scannedAt` is set only by a completed scan, and kept while a later rescan runs or fails.
    if (sbom.scan.scannedAt === null) throw new ScanNotReadyError(sbom.scan);
    const [set, dispositions, settings] = await Promise.all([
      rowSet(`${teamId}/sbom`, [sbom], ([findings]) => (findings ?? []).map((finding) => rowOf([finding], [sbom.id]))),
      Dispositions.listByRelease(teamId, product.id, release.id),
      TeamSettingsService.get(teamId),
    ]);
    // A team that hides informational notices does not see them in the list or in `summary`.
    const { page, summary, meta } = selectPage(ordered(set, query.sort), dispositions, query, query, shownTo(settings));
    return {
      data: page.map(({ row, decision }) => toVulnerabilityView(row.finding, decision)),
      summary,
      meta,
      scan: toSbomView(sbom).scan,
    };
  },

  /**
   * The release as one picture: one row per package and advisory over the release's SBOMs
   * (by default only open findings: `state=resolved|all` shows those no longer matched), with the SBOMs and
   * findings it stands for.
   */
  async listRelease(teamId: string, releaseId: string, query: VulnerabilityListQuery) {
    const { release, product } = await Releases.resolve(teamId, releaseId);
    const sboms = await sbomStore.listByRelease(teamId, product.id, release.id);
    const unscanned = sboms.find((sbom) => sbom.scan.scannedAt === null);
    if (unscanned) throw new ScanNotReadyError(unscanned.scan, unscanned.id);
    const [set, dispositions, settings] = await Promise.all([
      rowSet(`${teamId}/release/${release.id}/${query.state}`, sboms, (perSbom) => {
        const groups = new Map<string, { findings: Finding[]; sbomIds: string[] }>();
        // SBOMs oldest first: a row shows the finding of the newest SBOM that has it.
        perSbom.forEach((findings, index) => {
          for (const finding of findings) {
            if (query.state !== 'all' && finding.noLongerDetected !== (query.state === 'resolved')) continue;
            const key = decisionKey(finding);
            const group = groups.get(key) ?? { findings: [], sbomIds: [] };
            group.findings.push(finding);
            if (!group.sbomIds.includes(sboms[index]!.id)) group.sbomIds.push(sboms[index]!.id);
            groups.set(key, group);
          }
        });
        return [...groups.values()].map((group) => rowOf(group.findings, group.sbomIds));
      }),
      Dispositions.listByRelease(teamId, product.id, release.id),
      TeamSettingsService.get(teamId),
    ]);
    const { page, summary, meta } = selectPage(ordered(set, query.sort), dispositions, query, query, shownTo(settings));
    const data = page.map(({ row, decision }) => ({
      ...toVulnerabilityView(row.finding, decision),
      first_detected_at: row.firstDetectedAt,
      sbom_ids: row.sbomIds,
      finding_ids: row.findings.map((finding) => finding.id),
    }));
    return { data, summary, meta, sboms: sboms.map(sbomScanView) };
  },
};
