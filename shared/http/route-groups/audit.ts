import { type RouteDefinition } from '../route-definition';
import * as audit from '../../schemas/audit';

/** The `audit` group's routes (the function `functions/audit/handler.ts` serves them); the whole table is shared/http/routes.ts. */
export const auditRoutes = [
  {
    operationId: 'exportAudit', method: 'GET', path: '/api/audit/export', group: 'audit', scope: 'audit:read', mutates: false,
    summary: 'Audit log entries as CSV (≤ 10,000 rows)', availability: 'implemented',
    request: { query: audit.auditExportQuery }, responses: { 200: { description: 'CSV', contentType: 'text/csv; charset=utf-8' } },
  },
] as const satisfies readonly RouteDefinition<'audit'>[];
