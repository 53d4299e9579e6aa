/**
 * The events of single-transaction changes (a scan's result, a scan's failure, a VEX transition), as
 * transaction items to commit beside the change and its audit entry. Ids derive from the entity, the
 * event type and the change's time, so a retried write of the same change writes the same item.
 * `data` keys are snake_case, like the rest of the API's fields.
 */
import { tx, type TransactItem } from '../data/table-client';
import { eventId, eventItem, type EventType } from './event-store';

interface SbomRef {
  teamId: string;
  productId: string;
  releaseId: string;
  id: string;
}

function sbomEvent(type: EventType, sbom: SbomRef, at: string, data: Record<string, unknown>): TransactItem {
  return tx.put(
    eventItem({
      id: eventId(sbom.teamId, sbom.id, type, at),
      type,
      occurredAt: at,
      teamId: sbom.teamId,
      productId: sbom.productId,
      releaseId: sbom.releaseId,
      sbomId: sbom.id,
      data,
    }),
  );
}

export function scanCompletedEvent(
  sbom: SbomRef,
  counts: { findingCount: number; added: number; noLongerDetected: number },
  at: string,
): TransactItem {
  return sbomEvent('scan.completed', sbom, at, {
    finding_count: counts.findingCount,
    added: counts.added,
    no_longer_detected: counts.noLongerDetected,
  });
}

export function scanFailedEvent(sbom: SbomRef, error: string, at: string): TransactItem {
  return sbomEvent('scan.failed', sbom, at, { error });
}

export type VexTransition = 'vex.submitted' | 'vex.approved' | 'vex.rejected' | 'vex.published';

export function vexTransitionEvent(
  type: VexTransition,
  document: { id: string; teamId: string; productId: string; releaseId: string; version: number; format: string },
  at: string,
  extra: Record<string, unknown> = {},
): TransactItem {
  return tx.put(
    eventItem({
      id: eventId(document.teamId, document.id, type, at),
      type,
      occurredAt: at,
      teamId: document.teamId,
      productId: document.productId,
      releaseId: document.releaseId,
      data: { document_id: document.id, version: document.version, format: document.format, ...extra },
    }),
  );
}
