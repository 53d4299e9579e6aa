import { createGroupHandler } from '../../shared/service/http/group-handler';
import { dispositionRoutes } from '../../shared/service/http/route-groups/dispositions';
import { Dispositions } from '../../shared/service/dispositions/dispositions';
import { toDispositionView } from '../../shared/service/dispositions/disposition-store';

export const handler = createGroupHandler(dispositionRoutes, {
  upsertDisposition: async ({ caller, body }) => {
    const { disposition, created } = await Dispositions.upsert(caller.teamId, caller.actor, body);
    const answer = { data: toDispositionView(disposition) };
    return created ? { status: 201, body: answer } : { status: 200, body: answer };
  },
  updateDisposition: async ({ caller, params, body }) => ({
    status: 200,
    body: {
      data: toDispositionView(await Dispositions.update(caller.teamId, caller.actor, params.dispositionId, body)),
    },
  }),
  batchDispositions: async ({ caller, body }) => ({
    status: 200,
    body: await Dispositions.batch(caller.teamId, caller.actor, body),
  }),
  confirmDisposition: async ({ caller, params }) => ({
    status: 200,
    body: { data: toDispositionView(await Dispositions.confirm(caller.teamId, caller.actor, params.dispositionId)) },
  }),
  importVex: async ({ caller, params, headers, rawBody }) => {
    // The importer (parsers, mapping and the official schemas) loads with the first import, not at cold start.
    const { VexImports } = await import('../../shared/service/vex/import/vex-imports');
    return {
      status: 200,
      body: {
        data: await VexImports.import(caller.teamId, caller.actor, params.releaseId, {
          body: rawBody,
          contentType: headers['content-type'],
        }),
      },
    };
  },
  getDisposition: async ({ caller, params }) => {
    const { disposition, history } = await Dispositions.getWithHistory(caller.teamId, params.dispositionId);
    return { status: 200, body: { data: { ...toDispositionView(disposition), history } } };
  },
});
