import { defineGroup } from '../route-definition';
import * as releases from '../../schemas/releases';

/** The `compliance` group's routes (the function `functions/compliance/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const complianceRoutes = defineGroup('compliance', [
  // Compliance, audit, settings
  {
    operationId: 'getComplianceReport',
    method: 'GET',
    path: '/api/compliance/{releaseId}/report',
    scope: 'compliance:read',
    mutates: false,
    summary: 'HTML attestation report of a release',
    request: { params: releases.releaseIdParams },
    responses: { 200: { description: 'HTML report', contentType: 'text/html; charset=utf-8' } },
  },
]);
