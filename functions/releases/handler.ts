import { createGroupHandler } from '../../shared/service/http/group-handler';
import { releaseRoutes } from '../../shared/service/http/route-groups/releases';
import { Releases } from '../../shared/service/releases/releases';
import { toReleaseView } from '../../shared/service/releases/release-store';

export const handler = createGroupHandler(releaseRoutes, {
  listReleases: async ({ caller, params, query }) => {
    const page = await Releases.list(caller.teamId, params.productId, query);
    return { status: 200, body: { data: page.data.map(toReleaseView), meta: page.meta } };
  },
  createRelease: async ({ caller, params, body }) => ({
    status: 201,
    body: { data: toReleaseView(await Releases.create(caller.teamId, caller.actor, params.productId, body)) },
  }),
  getRelease: async ({ caller, params }) => ({
    status: 200,
    body: { data: toReleaseView(await Releases.get(caller.teamId, params.releaseId)) },
  }),
  deleteRelease: async ({ caller, params }) => {
    await Releases.delete(caller.teamId, caller.actor, params.releaseId);
    return { status: 204 };
  },
  updateRelease: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: toReleaseView(await Releases.update(caller.teamId, caller.actor, params.releaseId, body)) },
  }),
});
