import * as z from 'zod';
import { anyJson, defineGroup } from '../route-definition';
import { pageMetaSchema } from '../../schemas/common';
import * as releases from '../../schemas/releases';
import * as sboms from '../../schemas/sboms';

/** The `scans` group's routes (the function `functions/scans/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const scanRoutes = defineGroup('scans', [
  {
    operationId: 'triggerCveScan',
    method: 'POST',
    path: '/api/cve-scan',
    scope: 'cve:trigger',
    mutates: true,
    summary: 'Scan an SBOM against the vulnerability corpus (runs synchronously)',
    request: { body: sboms.cveScanBody },
    responses: { 202: anyJson('Scan finished; results are on the vulnerabilities endpoint') },
  },
  {
    operationId: 'listVulnerabilities',
    method: 'GET',
    path: '/api/sboms/{id}/vulnerabilities',
    scope: 'vulnerabilities:read',
    mutates: false,
    summary:
      'Findings of an SBOM with their current dispositions (paged, filtered, sorted; `summary` counts every match); 409 (scan_pending, scan_failed) until a scan of it has completed',
    request: { params: sboms.sbomIdParams, query: sboms.vulnerabilityListQuery },
    responses: {
      200: {
        description: '`{ data, summary, meta, scan }`',
        schema: z.looseObject({
          data: z.array(sboms.sbomVulnerabilitySchema),
          summary: sboms.findingSummarySchema,
          meta: pageMetaSchema,
        }),
      },
    },
  },
  {
    operationId: 'listReleaseVulnerabilities',
    method: 'GET',
    path: '/api/releases/{releaseId}/vulnerabilities',
    scope: 'vulnerabilities:read',
    mutates: false,
    summary:
      'The release as one picture: one row per package and advisory across its SBOMs, with the SBOMs each was found in (paged, filtered, sorted like the SBOM list); 409 while an SBOM of it has no completed scan',
    request: { params: releases.releaseIdParams, query: sboms.vulnerabilityListQuery },
    responses: {
      200: {
        description: '`{ data, summary, meta, sboms }`',
        schema: z.looseObject({
          data: z.array(sboms.releaseVulnerabilitySchema),
          summary: sboms.findingSummarySchema,
          meta: pageMetaSchema,
        }),
      },
    },
  },
]);
