import { defineGroup, noContent } from '../route-definition';
import * as products from '../../schemas/products';
import * as releases from '../../schemas/releases';

/** The `releases` group's routes (the function `functions/releases/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const releaseRoutes = defineGroup('releases', [
  // Releases
  {
    operationId: 'listReleases',
    method: 'GET',
    path: '/api/products/{productId}/releases',
    scope: 'releases:read',
    mutates: false,
    summary: "List a product's releases (paged); `version` finds the one release of that exact version",
    request: { params: products.productIdParams, query: releases.releaseListQuery },
    responses: { 200: { description: 'Paged releases', schema: releases.releaseListResponse } },
  },
  {
    operationId: 'createRelease',
    method: 'POST',
    path: '/api/products/{productId}/releases',
    scope: 'releases:write',
    mutates: true,
    summary: 'Create a release',
    request: { params: products.productIdParams, body: releases.createReleaseBody },
    responses: { 201: { description: 'Created', schema: releases.releaseResponse } },
  },
  {
    operationId: 'getRelease',
    method: 'GET',
    path: '/api/releases/{releaseId}',
    scope: 'releases:read',
    mutates: false,
    summary: 'Read a release, including `is_locked`',
    request: { params: releases.releaseIdParams },
    responses: { 200: { description: 'The release', schema: releases.releaseResponse } },
  },
  {
    operationId: 'updateRelease',
    method: 'PUT',
    path: '/api/releases/{releaseId}',
    scope: 'releases:write',
    mutates: true,
    summary: 'Update a release; 409 while it is locked',
    request: { params: releases.releaseIdParams, body: releases.updateReleaseBody },
    responses: { 200: { description: 'Updated', schema: releases.releaseResponse } },
  },
  {
    operationId: 'deleteRelease',
    method: 'DELETE',
    path: '/api/releases/{releaseId}',
    scope: 'releases:write',
    mutates: true,
    summary:
      'Delete a release and everything under it (SBOMs, findings, dispositions, VEX documents; published disclosures survive); 409 while it is locked',
    request: { params: releases.releaseIdParams },
    responses: noContent,
  },
]);
