import { AuditExports } from '../../shared/service/audit/audit-export';
import { createGroupHandler } from '../../shared/service/http/group-handler';
import { auditRoutes } from '../../shared/service/http/route-groups/audit';

export const handler = createGroupHandler(auditRoutes, {
  exportAudit: async ({ caller, query }) => {
    const { csv, truncated } = await AuditExports.csv(caller.teamId, query);
    return {
      status: 200,
      raw: csv,
      contentType: 'text/csv; charset=utf-8',
      headers: {
        'Content-Disposition': `attachment; filename="audit-${query.accountId}.csv"`,
        // The CSV itself stays clean: the 10,000-row cut is reported out of band.
        'X-Truncated': String(truncated),
      },
    };
  },
});
