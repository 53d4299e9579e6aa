/** Event items written straight to the table, for the tests of the notification dispatcher's outbox. */
import { randomUUID } from 'node:crypto';
import type { Item } from '../../shared/service/data/table-client';
import { eventItem } from '../../shared/service/events/event-store';

/** A high, non-KEV `finding.detected` event of the team (with its outbox entry), on a product, release and finding of its own. */
export function findingDetectedItem(teamId: string, id: string, occurredAt: string, cveId: string): Item {
  return eventItem({
    id,
    type: 'finding.detected',
    occurredAt,
    teamId,
    productId: randomUUID(),
    releaseId: randomUUID(),
    findingId: randomUUID(),
    data: { cve_id: cveId, severity: 'high', is_kev: false },
  });
}
