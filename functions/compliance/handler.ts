import { ComplianceReports } from '../../shared/service/compliance/report-data';
import { createGroupHandler } from '../../shared/service/http/group-handler';
import { complianceRoutes } from '../../shared/service/http/route-groups/compliance';

/** The report is self-contained (inline styles, no scripts or fetches); the header enforces that in browsers. */
const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export const handler = createGroupHandler(complianceRoutes, {
  getComplianceReport: async ({ caller, params }) => {
    const { html, sha256 } = await ComplianceReports.render(caller.teamId, params.releaseId);
    return {
      status: 200,
      raw: html,
      contentType: 'text/html; charset=utf-8',
      headers: { 'Content-Security-Policy': REPORT_CSP, 'X-Report-SHA256': sha256, 'Cache-Control': 'no-store' },
    };
  },
});
