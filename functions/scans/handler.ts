import { createGroupHandler } from '../../shared/service/http/group-handler';
import { portfolioRoutes } from '../../shared/service/http/route-groups/portfolio';
import { corpusRoutes } from '../../shared/service/http/route-groups/corpus';
import { scanRoutes } from '../../shared/service/http/route-groups/scans';
import { corpusStatus } from '../../shared/service/corpus/corpus-status';
import { Scans } from '../../shared/service/scans/scans';
import { Vulnerabilities } from '../../shared/service/scans/vulnerabilities';
import { AdvisoryFindings } from '../../shared/service/watch/advisory-findings';
import { Components } from '../../shared/service/watch/components';
import { Dashboard } from '../../shared/service/watch/dashboard';

export const handler = createGroupHandler([...scanRoutes, ...portfolioRoutes, ...corpusRoutes] as const, {
  // Spec: the scan runs synchronously within the request and answers 202; a scan already running is joined.
  // One that cannot end before the function's timeout answers 409 scan_pending instead (never a 5xx).
  triggerCveScan: async ({ caller, body, deadline }) => ({
    status: 202,
    body: {
      data: {
        sbomId: body.sbomId,
        ...(await Scans.run(caller.teamId, caller.actor, body.sbomId, { deadline, answerByDeadline: true })),
      },
    },
  }),
  listVulnerabilities: async ({ caller, params, query }) => ({
    status: 200,
    body: await Vulnerabilities.list(caller.teamId, params.id, query),
  }),
  listReleaseVulnerabilities: async ({ caller, params, query }) => ({
    status: 200,
    body: await Vulnerabilities.listRelease(caller.teamId, params.releaseId, query),
  }),
  listComponentUsage: async ({ caller, query }) => ({ status: 200, body: await Components.list(caller.teamId, query) }),
  listAdvisoryFindings: async ({ caller, query }) => ({
    status: 200,
    body: await AdvisoryFindings.list(caller.teamId, query),
  }),
  getCorpusStatus: async () => ({ status: 200, body: { data: await corpusStatus() } }),
  getDashboard: async ({ caller }) => ({ status: 200, body: { data: await Dashboard.get(caller.teamId) } }),
});
