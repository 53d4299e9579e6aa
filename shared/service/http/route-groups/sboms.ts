import { defineGroup, noContent } from '../route-definition';
import * as releases from '../../schemas/releases';
import * as sboms from '../../schemas/sboms';
import { RAW_SBOM_MEDIA_TYPES, SBOM_MEDIA_TYPES } from '../../sbom/media-type';

/** The `sboms` group's routes (the function `functions/sboms/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const sbomRoutes = defineGroup('sboms', [
  // SBOMs and scanning
  {
    operationId: 'listReleaseSboms',
    method: 'GET',
    path: '/api/releases/{releaseId}/sboms',
    scope: 'sboms:read',
    mutates: false,
    summary: "List a release's SBOMs (paged, newest first)",
    request: { params: releases.releaseIdParams, query: sboms.sbomListQuery },
    responses: { 200: { description: 'Paged SBOMs', schema: sboms.sbomListResponse } },
  },
  {
    operationId: 'uploadSbom',
    method: 'POST',
    path: '/api/sboms/upload',
    scope: 'sboms:write',
    mutates: true,
    summary:
      'Upload an SBOM (CycloneDX or SPDX, ≤ 10 MB) in the JSON envelope or as the raw file with `?releaseId=`; `Content-Encoding: gzip` accepted; the same bytes again answer 200 with the SBOM already stored',
    request: {
      query: sboms.sbomUploadQuery,
      // Two bodies (docs/sbom-formats.md "Raw bodies"): the spec's JSON envelope, or with `?releaseId=` the SBOM file itself.
      rawBody: {
        contentTypes: RAW_SBOM_MEDIA_TYPES,
        json: sboms.uploadSbomJsonBody,
        description:
          "The spec's JSON envelope `{ releaseId, content, fileName? }`, or with `?releaseId=` (and `?fileName=`) the SBOM file itself, stored byte for byte; gzip accepted",
      },
    },
    responses: {
      200: {
        description: 'The release already holds these bytes: that SBOM',
        schema: sboms.sbomResponse,
      },
      201: { description: 'SBOM metadata', schema: sboms.sbomResponse },
    },
  },
  {
    operationId: 'createSbomUpload',
    method: 'POST',
    path: '/api/sboms/uploads',
    scope: 'sboms:write',
    mutates: true,
    summary: 'Start a pre-signed upload for a large SBOM (client PUTs the file to the returned URL)',
    request: { body: sboms.createSbomUploadBody },
    responses: {
      201: { description: 'Upload session with a pre-signed PUT URL', schema: sboms.sbomUploadSessionResponse },
    },
  },
  {
    operationId: 'completeSbomUpload',
    method: 'POST',
    path: '/api/sboms/uploads/{uploadId}/complete',
    scope: 'sboms:write',
    mutates: true,
    summary: 'Finish a pre-signed upload: parse, store and scan the uploaded file',
    request: { params: sboms.sbomUploadIdParams },
    responses: {
      200: {
        description: 'The release already holds these bytes: that SBOM',
        schema: sboms.sbomResponse,
      },
      201: { description: 'SBOM metadata', schema: sboms.sbomResponse },
    },
  },
  {
    operationId: 'getSbom',
    method: 'GET',
    path: '/api/sboms/{id}',
    scope: 'sboms:read',
    mutates: false,
    summary: 'Read SBOM metadata',
    request: { params: sboms.sbomIdParams },
    responses: { 200: { description: 'SBOM metadata', schema: sboms.sbomResponse } },
  },
  {
    operationId: 'deleteSbom',
    method: 'DELETE',
    path: '/api/sboms/{id}',
    scope: 'sboms:write',
    mutates: true,
    summary:
      "Delete an SBOM with its file and findings (the release's dispositions stay); 409 while the release is locked",
    request: { params: sboms.sbomIdParams },
    responses: noContent,
  },
  {
    operationId: 'downloadSbom',
    method: 'GET',
    path: '/api/sboms/{id}/download',
    scope: 'sboms:read',
    mutates: false,
    summary: 'Download the original SBOM file, byte for byte',
    request: { params: sboms.sbomIdParams },
    responses: {
      200: {
        description: 'The raw file, with the media type of its format and encoding',
        contentType: SBOM_MEDIA_TYPES.CycloneDX.json,
        alternatives: {
          [SBOM_MEDIA_TYPES.CycloneDX.xml]: null,
          [SBOM_MEDIA_TYPES.SPDX.json]: null,
          [SBOM_MEDIA_TYPES.SPDX['tag-value']]: null,
        },
      },
    },
  },
]);
