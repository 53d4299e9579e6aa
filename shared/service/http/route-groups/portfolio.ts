import { defineGroup } from '../route-definition';
import * as portfolio from '../../schemas/portfolio';

/**
 * Portfolio questions across the team's products (docs/portfolio.md). Served by the `scans` function
 * (functions/scans/handler.ts), which already reads findings and dispositions; the whole table is
 * shared/service/http/routes.ts.
 */
export const portfolioRoutes = defineGroup('scans', [
  {
    operationId: 'listComponentUsage',
    method: 'GET',
    path: '/api/components',
    scope: 'vulnerabilities:read',
    mutates: false,
    summary:
      'Every release and SBOM of the team that contains a package (`purl`, version optional, or `ecosystem` + `name`), with the versions found (paged)',
    request: { query: portfolio.componentListQuery },
    responses: {
      200: { description: 'A page of releases and SBOMs with the package', schema: portfolio.componentListResponse },
    },
  },
  {
    operationId: 'listAdvisoryFindings',
    method: 'GET',
    path: '/api/vulnerabilities',
    scope: 'vulnerabilities:read',
    mutates: false,
    summary:
      'Every finding of one advisory across the team, found by any alias (`advisory=CVE-…|GHSA-…|GO-…`), with release, SBOM, component and disposition (paged; `state`, `kev`, `severity`, `productId` filters)',
    request: { query: portfolio.advisoryFindingListQuery },
    responses: {
      200: {
        description: 'A page of findings and the identifiers searched',
        schema: portfolio.advisoryFindingListResponse,
      },
    },
  },
  {
    operationId: 'getDashboard',
    method: 'GET',
    path: '/api/dashboard',
    scope: 'vulnerabilities:read',
    mutates: false,
    summary:
      'The team at a glance: open findings by severity, open KEV, undecided, SLA breaches, the 10 products with most open critical or KEV findings, and the daily counts of the last 30 days',
    responses: { 200: { description: 'The dashboard', schema: portfolio.dashboardResponse } },
  },
]);
