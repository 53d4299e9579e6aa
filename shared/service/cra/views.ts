/** A CRA case in the API's field names, with its deadlines and their timeliness computed at `now`. */
import { config } from '../config';
import type { CraCaseDetailView, CraCaseView } from '../schemas/cra';
import type { CraCase } from './case-store';
import { deadlinesOf, nextDeadline, timelinessOf, type CraDeadlines, type CraStage } from './rules';

export function deadlinesOfCase(craCase: CraCase): CraDeadlines {
  return deadlinesOf(craCase.awareAt, craCase.fix?.availableAt ?? null);
}

export function submissionOf(craCase: CraCase, stage: CraStage) {
  return craCase.submissions.find((submission) => submission.stage === stage);
}

/** The public link of a published disclosure. */
export function disclosureUrl(slug: string): string {
  return `${config().publicBaseUrl}/api/disclosures/${slug}`;
}

export function toCaseView(craCase: CraCase, now: string): CraCaseView {
  const deadlines = deadlinesOfCase(craCase);
  const timeliness = (stage: CraStage) =>
    timelinessOf(deadlines[stage], submissionOf(craCase, stage)?.submittedAt ?? null, now);
  const { exploitation, fix } = craCase;
  return {
    id: craCase.id,
    product_id: craCase.productId,
    product_name: craCase.productName,
    vulnerability_id: craCase.vulnerabilityId,
    aliases: craCase.aliases,
    advisory_ids: craCase.advisoryIds,
    summary: craCase.summary,
    severity: craCase.severity,
    cvss: craCase.cvss,
    cwes: craCase.cwes,
    exploitation: {
      source: exploitation.source,
      kev_date_added: exploitation.kevDateAdded,
      kev_added_at: exploitation.kevAddedAt,
      known_ransomware_campaign_use: exploitation.knownRansomwareCampaignUse,
      reason: exploitation.reason,
      evidence_url: exploitation.evidenceUrl,
      marked_by: exploitation.markedBy,
    },
    status: craCase.status,
    aware_at: craCase.awareAt,
    observed_aware_at: craCase.observedAwareAt,
    aware_at_reason: craCase.awareAtReason,
    affected_releases: craCase.affected.map((affected) => ({
      release_id: affected.releaseId,
      version: affected.version,
      components: affected.components,
      fixed_versions: affected.fixedVersions,
      finding_ids: affected.findingIds,
      first_detected_at: affected.firstDetectedAt,
    })),
    fix_available_at: fix?.availableAt ?? null,
    fix: fix ? { source: fix.source, release_id: fix.releaseId, version: fix.version, measure: fix.measure } : null,
    early_warning_due: deadlines.early_warning,
    notification_due: deadlines.notification,
    final_report_due: deadlines.final_report,
    next_deadline: nextDeadline(craCase.status, deadlines),
    timeliness: {
      early_warning: timeliness('early_warning'),
      notification: timeliness('notification'),
      final_report: timeliness('final_report'),
    },
    submissions: craCase.submissions.map((submission) => ({
      stage: submission.stage,
      submitted_at: submission.submittedAt,
      reference: submission.reference,
      note: submission.note,
      recorded_at: submission.recordedAt,
      recorded_by: submission.recordedBy,
    })),
    dismissal: craCase.dismissal,
    dismissal_suggested: craCase.dismissalSuggested,
    users_informed_at: craCase.usersInformed?.informedAt ?? null,
    users_informed: {
      documents: (craCase.usersInformed?.documents ?? []).map((document) => ({
        vex_id: document.vexId,
        release_id: document.releaseId,
        version: document.version,
        drafted_at: document.draftedAt,
        drafted_by: document.draftedBy,
        published_at: document.publishedAt,
        disclosure_url: document.disclosureSlug === null ? null : disclosureUrl(document.disclosureSlug),
      })),
    },
    created_at: craCase.createdAt,
    updated_at: craCase.updatedAt,
  };
}

export function toCaseDetailView(craCase: CraCase, now: string): CraCaseDetailView {
  return {
    ...toCaseView(craCase, now),
    timeline: craCase.timeline,
    drafts: Object.fromEntries(
      Object.entries(craCase.drafts).map(([stage, draft]) => [
        stage,
        { fields: draft.fields, version: draft.version, updated_at: draft.updatedAt, updated_by: draft.updatedBy },
      ]),
    ),
  };
}
