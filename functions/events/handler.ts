import { Events } from '../../shared/service/events/events';
import { createGroupHandler } from '../../shared/service/http/group-handler';
import { eventRoutes } from '../../shared/service/http/route-groups/events';

export const handler = createGroupHandler(eventRoutes, {
  listEvents: async ({ caller, query }) => ({ status: 200, body: await Events.list(caller.teamId, query) }),
});
