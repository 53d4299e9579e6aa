import { defineGroup } from '../route-definition';
import * as audit from '../../schemas/audit';

/** The `audit` group's routes (the function `functions/audit/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const auditRoutes = defineGroup('audit', [
  {
    operationId: 'exportAudit',
    method: 'GET',
    path: '/api/audit/export',
    scope: 'audit:read',
    mutates: false,
    summary: 'Audit log entries as CSV (≤ 10,000 rows)',
    request: { query: audit.auditExportQuery },
    responses: { 200: { description: 'CSV', contentType: 'text/csv; charset=utf-8' } },
  },
]);
