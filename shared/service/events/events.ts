/** The event stream as the API lists it: one page, newest first, in the API's field names. */
import { pageMeta } from '../data/paging';
import type { PageMeta } from '../schemas/common';
import type { EventListQuery, TeamEventView } from '../schemas/events';
import { listEvents, type TeamEvent } from './event-store';

export function toEventView(event: TeamEvent): TeamEventView {
  return {
    id: event.id,
    type: event.type,
    occurred_at: event.occurredAt,
    product_id: event.productId,
    release_id: event.releaseId,
    ...(event.sbomId !== undefined ? { sbom_id: event.sbomId } : {}),
    ...(event.findingId !== undefined ? { finding_id: event.findingId } : {}),
    ...(event.advisoryId !== undefined ? { advisory_id: event.advisoryId } : {}),
    data: event.data,
  };
}

export const Events = {
  async list(teamId: string, query: EventListQuery): Promise<{ data: TeamEventView[]; meta: PageMeta }> {
    const { events, total } = await listEvents(
      teamId,
      { since: query.since, types: query.type, productId: query.productId, releaseId: query.releaseId },
      query.page,
      query.perPage,
    );
    return { data: events.map(toEventView), meta: pageMeta(total, query.page, query.perPage) };
  },
};
