import { defineGroup } from '../route-definition';
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
    responses: {
      202: { description: 'Scan finished; results are on the vulnerabilities endpoint', schema: sboms.cveScanResponse },
    },
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
      200: { description: 'A page of findings, the summary and the scan', schema: sboms.sbomVulnerabilityListResponse },
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
        description: 'A page of findings, the summary and each SBOM with its scan',
        schema: sboms.releaseVulnerabilityListResponse,
      },
    },
  },
]);
