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
]);
