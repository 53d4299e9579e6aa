import { createGroupHandler } from '../../shared/service/http/group-handler';
import { vexRoutes } from '../../shared/service/http/route-groups/vex';
import { VexDocuments } from '../../shared/service/vex/vex-documents';
import { VexWorkflow } from '../../shared/service/vex/vex-workflow';
import { toApprovalView, toVexView } from '../../shared/service/vex/vex-store';
import { toReleaseView } from '../../shared/service/releases/release-store';
import { toDisclosureView } from '../../shared/service/disclosures/disclosures';

export const handler = createGroupHandler(vexRoutes, {
  listVexDocuments: async ({ caller, params }) => {
    const documents = await VexDocuments.list(caller.teamId, params.releaseId);
    const data = documents.map((document) => toVexView(document));
    return {
      status: 200,
      body: {
        data,
        meta: {
          page: 1,
          perPage: data.length,
          total: data.length,
          totalPages: 1,
          hasNextPage: false,
          hasPrevPage: false,
        },
      },
    };
  },
  createVexDocument: async ({ caller, params, body }) => {
    const { record, content } = await VexDocuments.create(caller.teamId, caller.actor, params.releaseId, body);
    return { status: 201, body: { data: toVexView(record, content) } };
  },
  getVexDocument: async ({ caller, params }) => {
    const { record, content } = await VexDocuments.get(caller.teamId, params.vexId);
    return { status: 200, body: { data: toVexView(record, content) } };
  },
  deleteVexDocument: async ({ caller, params }) => {
    await VexDocuments.delete(caller.teamId, caller.actor, params.vexId);
    return { status: 204 };
  },
  regenerateVexDocument: async ({ caller, params }) => {
    const { record, content } = await VexDocuments.regenerate(caller.teamId, caller.actor, params.vexId);
    return { status: 200, body: { data: toVexView(record, content) } };
  },
  submitVexDocument: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: toVexView(await VexWorkflow.submit(caller.teamId, caller.actor, params.vexId, body.comment)) },
  }),
  approveVexDocument: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: toVexView(await VexWorkflow.approve(caller.teamId, caller.actor, params.vexId, body.comment)) },
  }),
  rejectVexDocument: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: toVexView(await VexWorkflow.reject(caller.teamId, caller.actor, params.vexId, body.comment)) },
  }),
  publishVexDocument: async ({ caller, params, body }) => {
    const { record, disclosure } = await VexWorkflow.publish(caller.teamId, caller.actor, params.vexId, body.comment);
    return { status: 200, body: { vexDocument: toVexView(record), disclosure: toDisclosureView(disclosure) } };
  },
  listVexApprovals: async ({ caller, params }) => ({
    status: 200,
    body: { data: (await VexDocuments.approvals(caller.teamId, params.vexId)).map(toApprovalView) },
  }),
  unlockRelease: async ({ caller, params, body }) => ({
    status: 200,
    body: {
      data: toReleaseView(await VexWorkflow.unlockRelease(caller.teamId, caller.actor, params.releaseId, body.comment)),
    },
  }),
});
