import { defineGroup } from '../route-definition';
import * as events from '../../schemas/events';

/** The `events` group's routes (the function `functions/events/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const eventRoutes = defineGroup('events', [
  {
    operationId: 'listEvents',
    method: 'GET',
    path: '/api/events',
    scope: 'vulnerabilities:read',
    mutates: false,
    summary:
      "The team's event stream, newest first (paged, up to 1,000 per page; filtered by time, type, product and release; retained 90 days)",
    request: { query: events.eventListQuery },
    responses: { 200: { description: 'A page of events', schema: events.eventListResponse } },
  },
]);
