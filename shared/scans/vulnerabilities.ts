/**
 * GET /api/sboms/{id}/vulnerabilities: the SBOM's findings joined with their
 * current dispositions, filtered by severity and status. `summary` always
 * describes every finding of the SBOM, whatever the filters.
 *
 * An SBOM no scan has completed for has no findings to list, which is not
 * the same as none: answering `total: 0` would let a CI gate pass on a scan
 * that never ran (or was lost in a crash). Until a scan completes the list is
 * a 409 (`scan_pending` while queued or running, `scan_failed` after it gave
 * up) naming the scan status; once one has, each answer carries `scan`.
 */
import { toFindingDecisionView, type Disposition } from '../dispositions/disposition-store';
import { Dispositions } from '../dispositions/dispositions';
import { decisionIndex, effectiveStatus } from '../dispositions/decision-identity';
import { AppError } from '../errors';
import { Sboms } from '../sboms/sboms';
import { toSbomView, type Sbom } from '../sboms/sbom-store';
import { TeamSettingsService } from '../identity/team-settings';
import { findingStore, shownTo, type Finding } from './finding-store';

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
    severity_source_id: finding.severitySourceId !== undefined ? finding.severitySourceId : finding.severitySource === null ? null : finding.advisoryId,
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
    last_seen_at: finding.lastSeenAt,
    no_longer_detected: finding.noLongerDetected,
    informational: finding.informational ?? null,
    ...(disposition ? { disposition: toFindingDecisionView(disposition) } : {}),
  };
}

export class ScanNotReadyError extends AppError {
  constructor(scan: Sbom['scan']) {
    const failed = scan.status === 'failed';
    super(
      409,
      failed ? 'scan_failed' : 'scan_pending',
      failed
        ? 'The scan of this SBOM failed, so it has no vulnerability results; run POST /api/cve-scan to retry'
        : `The scan of this SBOM is ${scan.status} and has not completed yet, so there are no vulnerability results; retry shortly`,
      [{ path: 'scan.status', message: failed ? (scan.error ?? 'failed') : scan.status, code: scan.status }],
    );
  }
}

export const Vulnerabilities = {
  async list(teamId: string, sbomId: string, filters: { severity?: string | undefined; status?: string | undefined }) {
    const { sbom, release, product } = await Sboms.resolve(teamId, sbomId);
    // `scannedAt` is set only by a completed scan, and kept while a later rescan runs or fails.
    if (sbom.scan.scannedAt === null) throw new ScanNotReadyError(sbom.scan);
    const [stored, dispositionList, settings] = await Promise.all([
      findingStore.listBySbom(teamId, product.id, release.id, sbom.id),
      Dispositions.listByRelease(teamId, product.id, release.id),
      TeamSettingsService.get(teamId),
    ]);
    // A team that hides informational notices does not see them in the list or in `summary`.
    const findings = stored.filter(shownTo(settings));
    const decisionOf = decisionIndex(dispositionList);
    const now = new Date().toISOString();
    const statusOf = (finding: Finding) => effectiveStatus(decisionOf(finding), now);
    const summary = {
      total: findings.length,
      affected: findings.filter((finding) => statusOf(finding) === 'affected').length,
      notAffected: findings.filter((finding) => statusOf(finding) === 'not_affected').length,
      fixed: findings.filter((finding) => statusOf(finding) === 'fixed').length,
      underInvestigation: findings.filter((finding) => statusOf(finding) === 'under_investigation').length,
      withoutDisposition: findings.filter((finding) => statusOf(finding) === undefined).length,
    };
    const data = findings
      .filter((finding) => !filters.severity || finding.severity === filters.severity.toUpperCase())
      .filter((finding) => !filters.status || (filters.status === 'undisposed' ? statusOf(finding) === undefined : statusOf(finding) === filters.status))
      // Known-exploited first, then severity, then exploit probability.
      .sort((a, b) => Number(b.kev !== null) - Number(a.kev !== null) || SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]
        || (b.epss?.score ?? 0) - (a.epss?.score ?? 0) || a.cveId.localeCompare(b.cveId) || a.id.localeCompare(b.id))
      .map((finding) => toVulnerabilityView(finding, decisionOf(finding)));
    return { data, summary, scan: toSbomView(sbom).scan };
  },
};
