import { defineGroup } from '../route-definition';
import * as releases from '../../schemas/releases';
import * as dispositions from '../../schemas/dispositions';
import * as vexImports from '../../schemas/vex-imports';

/** The `dispositions` group's routes (the function `functions/dispositions/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const dispositionRoutes = defineGroup('dispositions', [
  // Dispositions
  {
    operationId: 'upsertDisposition',
    method: 'POST',
    path: '/api/dispositions',
    scope: 'dispositions:write',
    mutates: true,
    summary: 'Create or update the disposition of a vulnerability',
    request: { body: dispositions.createDispositionBody },
    responses: {
      200: { description: 'Updated disposition', schema: dispositions.dispositionResponse },
      201: { description: 'Created disposition', schema: dispositions.dispositionResponse },
    },
  },
  {
    operationId: 'batchDispositions',
    method: 'POST',
    path: '/api/dispositions/batch',
    scope: 'dispositions:write',
    mutates: true,
    summary: 'Apply one disposition to up to 500 vulnerabilities (all or nothing)',
    request: { body: dispositions.batchDispositionBody },
    responses: { 200: { description: 'How many dispositions changed', schema: dispositions.batchDispositionResponse } },
  },
  {
    operationId: 'importVex',
    method: 'POST',
    path: '/api/releases/{releaseId}/vex-imports',
    scope: 'dispositions:write',
    mutates: true,
    summary:
      "Import a CycloneDX VEX, OpenVEX or CSAF document (≤ 10 MB JSON, gzip accepted) into the release's dispositions, all or nothing; 409 while locked, 422 with JSON pointers when schema-invalid (docs/vex-import.md)",
    request: {
      params: releases.releaseIdParams,
      rawBody: { contentTypes: vexImports.VEX_IMPORT_MEDIA_TYPES, description: 'The VEX document itself' },
    },
    responses: {
      200: { description: 'Applied, unchanged and unmatched statements', schema: vexImports.vexImportResponse },
    },
  },
  {
    operationId: 'getDisposition',
    method: 'GET',
    path: '/api/dispositions/{dispositionId}',
    scope: 'dispositions:read',
    mutates: false,
    summary: 'Read a disposition with its change history',
    request: { params: dispositions.dispositionIdParams },
    responses: {
      200: { description: 'The disposition and its history', schema: dispositions.dispositionWithHistoryResponse },
    },
  },
  {
    operationId: 'updateDisposition',
    method: 'PUT',
    path: '/api/dispositions/{dispositionId}',
    scope: 'dispositions:write',
    mutates: true,
    summary: 'Update a disposition; 409 while the release is locked',
    request: { params: dispositions.dispositionIdParams, body: dispositions.updateDispositionBody },
    responses: { 200: { description: 'Updated disposition', schema: dispositions.dispositionResponse } },
  },
  {
    operationId: 'confirmDisposition',
    method: 'POST',
    path: '/api/dispositions/{dispositionId}/confirm',
    scope: 'dispositions:write',
    mutates: true,
    summary:
      'Confirm a decision carried from another package version (clears review_required); 409 while the release is locked',
    request: { params: dispositions.dispositionIdParams },
    responses: { 200: { description: 'The confirmed disposition', schema: dispositions.dispositionResponse } },
  },
]);
