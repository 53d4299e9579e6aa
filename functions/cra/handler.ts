import { CraCases } from '../../shared/service/cra/cases';
import { draftReport } from '../../shared/service/cra/drafts';
import { CraExploitation } from '../../shared/service/cra/exploitation';
import { CraUsersInformed } from '../../shared/service/cra/users-informed';
import { createGroupHandler } from '../../shared/service/http/group-handler';
import { craRoutes } from '../../shared/service/http/route-groups/cra';

export const handler = createGroupHandler(craRoutes, {
  listCraCases: async ({ caller, query }) => ({ status: 200, body: await CraCases.list(caller.teamId, query) }),
  getCraCase: async ({ caller, params }) => ({
    status: 200,
    body: { data: await CraCases.describe(await CraCases.get(caller.teamId, params.caseId)) },
  }),
  updateCraCase: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: CraCases.view(await CraCases.update(caller.teamId, caller.actor, params.caseId, body)) },
  }),
  dismissCraCase: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: CraCases.view(await CraCases.dismiss(caller.teamId, caller.actor, params.caseId, body.reason)) },
  }),
  closeCraCase: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: CraCases.view(await CraCases.close(caller.teamId, caller.actor, params.caseId, body.note)) },
  }),
  recordCraFix: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: CraCases.view(await CraCases.recordFix(caller.teamId, caller.actor, params.caseId, body)) },
  }),
  recordCraSubmission: async ({ caller, params, body }) => ({
    status: 201,
    body: { data: CraCases.view(await CraCases.submit(caller.teamId, caller.actor, params.caseId, body)) },
  }),
  informCraUsers: async ({ caller, params, body }) => ({
    status: 201,
    body: {
      data: CraCases.view(
        await CraUsersInformed.draftAdvisories(caller.teamId, caller.actor, caller.scopes, params.caseId, body),
      ),
    },
  }),
  getCraReport: async ({ caller, params, query, headers }) => {
    const report = await draftReport(await CraCases.get(caller.teamId, params.caseId), params.stage);
    const markdown =
      query.format === 'markdown' || (query.format === undefined && /text\/markdown/i.test(headers.accept ?? ''));
    if (markdown) return { status: 200, raw: report.markdown, contentType: 'text/markdown; charset=utf-8' };
    return { status: 200, body: { data: report } };
  },
  markExploited: async ({ caller, body }) => ({
    status: 201,
    body: { data: await CraExploitation.mark(caller.teamId, caller.actor, body) },
  }),
});
