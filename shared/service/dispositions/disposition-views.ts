/**
 * How a disposition is shown: in full (the dispositions API), and as a finding's decision in the
 * vulnerability lists. `decision_state` says whether the decision counts.
 */
import { decisionState } from './decision-identity';
import type { Disposition, ImportedFrom } from './disposition-store';

export function toDispositionView(disposition: Disposition, now = new Date().toISOString()) {
  const carried = disposition.carriedFrom;
  return {
    id: disposition.id,
    vulnerabilityId: disposition.vulnerabilityId,
    releaseId: disposition.releaseId,
    advisory_id: disposition.advisoryId,
    package: disposition.packageIdentity,
    status: disposition.status,
    justification: disposition.justification,
    response: disposition.response,
    detail: disposition.detail,
    actionStatement: disposition.actionStatement,
    impactStatement: disposition.impactStatement,
    assignedTo: disposition.assignedTo,
    decided_at: disposition.decidedAt,
    created_at: disposition.createdAt,
    updated_at: disposition.updatedAt,
    updated_by: disposition.updatedBy,
    expires_at: disposition.expiresAt,
    review_required: disposition.reviewRequired,
    carried_from: carried
      ? {
          release_id: carried.releaseId,
          release_version: carried.releaseVersion,
          disposition_id: carried.dispositionId,
          decided_by: carried.decidedBy,
          decided_at: carried.decidedAt,
        }
      : null,
    imported_from: importedFromView(disposition.importedFrom),
    /** Whether it counts: `expired` and `review_required` count as undecided. */
    decision_state: decisionState(disposition, now),
  };
}

/**
 * A finding's decision as the vulnerability lists show it: `decision_state` says
 * why a decision does not count (`expired`, `review_required`) or that it was `carried`.
 */
export function toFindingDecisionView(disposition: Disposition, now = new Date().toISOString()) {
  return {
    id: disposition.id,
    status: disposition.status,
    response: disposition.response,
    justification: disposition.justification,
    decision_state: decisionState(disposition, now),
    expires_at: disposition.expiresAt,
    review_required: disposition.reviewRequired,
    carried_from: disposition.carriedFrom
      ? {
          release_id: disposition.carriedFrom.releaseId,
          release_version: disposition.carriedFrom.releaseVersion,
          disposition_id: disposition.carriedFrom.dispositionId,
        }
      : null,
    imported_from: importedFromView(disposition.importedFrom),
  };
}

function importedFromView(imported: ImportedFrom | null) {
  return imported
    ? {
        document_sha256: imported.documentSha256,
        author: imported.author,
        format: imported.format,
        imported_at: imported.importedAt,
      }
    : null;
}
