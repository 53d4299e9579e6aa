/**
 * The route table (BRIEF decision 2): the one list of endpoints. It drives the
 * API Gateway resources of the CDK stack, the local server's router, the scope
 * check and the OpenAPI document. `availability: 'planned'` marks an endpoint
 * whose implementation lands in a later issue; it answers 501, never 200.
 */
import * as z from 'zod';
import type { RouteScope } from './scopes';
import { errorBodySchema } from '../schemas/common';
import * as products from '../schemas/products';
import * as releases from '../schemas/releases';
import * as sboms from '../schemas/sboms';
import * as dispositions from '../schemas/dispositions';
import * as vex from '../schemas/vex';
import * as vexImports from '../schemas/vex-imports';
import * as disclosures from '../schemas/disclosures';
import * as compliance from '../schemas/compliance';
import * as audit from '../schemas/audit';
import * as trustPolicies from '../schemas/trust-policies';
import * as settings from '../schemas/settings';
import * as csafProvider from '../schemas/csaf-provider';
import * as workspace from '../schemas/workspace';
import * as signIn from '../schemas/sign-in';

export const ENDPOINT_GROUPS = [
  'products',
  'releases',
  'sboms',
  'scans',
  'dispositions',
  'vex',
  'disclosures',
  'compliance',
  'audit',
  'settings',
  'auth',
  'signin',
  'openapi',
] as const;
export type EndpointGroup = (typeof ENDPOINT_GROUPS)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface RouteDefinition {
  operationId: string;
  method: HttpMethod;
  /** API Gateway resource path with `{param}` placeholders. */
  path: string;
  group: EndpointGroup;
  /** Required scope; `authenticated`: any valid credential; `null` marks a public route (no authorizer). */
  scope: RouteScope;
  summary: string;
  availability: 'implemented' | 'planned';
  /** Whether the handler writes (drives IAM grants and the audit-coverage test). */
  mutates: boolean;
  /**
   * A public route that acts for the team its validated body names (`teamId`): its data calls are
   * confined to that team as a caller's are (tenant role, tenant guard). Naming a team grants nothing.
   */
  teamFromBody?: true;
  request?: {
    params?: z.ZodObject;
    /** Parsed strictly (shared/http/request.ts): a query parameter the schema does not name is 422. */
    query?: z.ZodObject;
    body?: z.ZodType;
    /** A body taken as it is (not parsed as a JSON object against a schema): the media types it may have. */
    rawBody?: {
      contentTypes: readonly string[];
      description: string;
      /** The `application/json` schema when that body may also be a JSON object the route defines (the OpenAPI document shows it). */
      json?: z.ZodType;
    };
  };
  responses: Record<number, RouteResponse>;
}

const noContent = { 204: { description: 'Done; no body' } };
const anyJson = (description: string): RouteResponse => ({ description, schema: z.record(z.string(), z.unknown()) });
/** CSAF distribution files are served as exactly `application/json` (csaf_downloader warns on anything else). */
const csafJson = (description: string): RouteResponse => ({ description, contentType: 'application/json' });

export const routes = [
  // Products
  {
    operationId: 'listProducts', method: 'GET', path: '/api/products', group: 'products', scope: 'products:read', mutates: false,
    summary: 'List the team\'s products (paged; `search` matches name or slug, case-insensitive)', availability: 'implemented',
    request: { query: products.productListQuery }, responses: { 200: { description: 'Paged products', schema: products.productListResponse } },
  },
  {
    operationId: 'createProduct', method: 'POST', path: '/api/products', group: 'products', scope: 'products:write', mutates: true,
    summary: 'Create a product', availability: 'implemented',
    request: { body: products.createProductBody }, responses: { 201: { description: 'Created', schema: products.productResponse } },
  },
  {
    operationId: 'getProduct', method: 'GET', path: '/api/products/{productId}', group: 'products', scope: 'products:read', mutates: false,
    summary: 'Read a product', availability: 'implemented',
    request: { params: products.productIdParams }, responses: { 200: { description: 'The product', schema: products.productResponse } },
  },
  {
    operationId: 'updateProduct', method: 'PUT', path: '/api/products/{productId}', group: 'products', scope: 'products:write', mutates: true,
    summary: 'Update a product; only supplied fields change', availability: 'implemented',
    request: { params: products.productIdParams, body: products.updateProductBody }, responses: { 200: { description: 'Updated', schema: products.productResponse } },
  },
  {
    operationId: 'deleteProduct', method: 'DELETE', path: '/api/products/{productId}', group: 'products', scope: 'products:write', mutates: true,
    summary: 'Delete a product and everything under it (published disclosures survive)', availability: 'implemented',
    request: { params: products.productIdParams }, responses: noContent,
  },
  // Releases
  {
    operationId: 'listReleases', method: 'GET', path: '/api/products/{productId}/releases', group: 'releases', scope: 'releases:read', mutates: false,
    summary: 'List a product\'s releases (paged); `version` finds the one release of that exact version', availability: 'implemented',
    request: { params: products.productIdParams, query: releases.releaseListQuery }, responses: { 200: { description: 'Paged releases', schema: releases.releaseListResponse } },
  },
  {
    operationId: 'createRelease', method: 'POST', path: '/api/products/{productId}/releases', group: 'releases', scope: 'releases:write', mutates: true,
    summary: 'Create a release', availability: 'implemented',
    request: { params: products.productIdParams, body: releases.createReleaseBody }, responses: { 201: { description: 'Created', schema: releases.releaseResponse } },
  },
  {
    operationId: 'getRelease', method: 'GET', path: '/api/releases/{releaseId}', group: 'releases', scope: 'releases:read', mutates: false,
    summary: 'Read a release, including `is_locked`', availability: 'implemented',
    request: { params: releases.releaseIdParams }, responses: { 200: { description: 'The release', schema: releases.releaseResponse } },
  },
  {
    operationId: 'updateRelease', method: 'PUT', path: '/api/releases/{releaseId}', group: 'releases', scope: 'releases:write', mutates: true,
    summary: 'Update a release; 409 while it is locked', availability: 'implemented',
    request: { params: releases.releaseIdParams, body: releases.updateReleaseBody }, responses: { 200: { description: 'Updated', schema: releases.releaseResponse } },
  },
  {
    operationId: 'deleteRelease', method: 'DELETE', path: '/api/releases/{releaseId}', group: 'releases', scope: 'releases:write', mutates: true,
    summary: 'Delete a release and everything under it (SBOMs, findings, dispositions, VEX documents; published disclosures survive); 409 while it is locked', availability: 'implemented',
    request: { params: releases.releaseIdParams }, responses: noContent,
  },
  // SBOMs and scanning
  {
    operationId: 'listReleaseSboms', method: 'GET', path: '/api/releases/{releaseId}/sboms', group: 'sboms', scope: 'sboms:read', mutates: false,
    summary: 'List a release\'s SBOMs (paged, newest first)', availability: 'implemented',
    request: { params: releases.releaseIdParams, query: sboms.sbomListQuery }, responses: { 200: { description: 'Paged SBOMs', schema: sboms.sbomListResponse } },
  },
  {
    operationId: 'uploadSbom', method: 'POST', path: '/api/sboms/upload', group: 'sboms', scope: 'sboms:write', mutates: true,
    summary: 'Upload an SBOM (CycloneDX or SPDX, ≤ 10 MB) in the JSON envelope or as the raw file with `?releaseId=`; `Content-Encoding: gzip` accepted; the same bytes again answer 200 with the SBOM already stored', availability: 'implemented',
    request: {
      query: sboms.sbomUploadQuery,
      // Two bodies (docs/sbom-formats.md "Raw bodies"): the spec's JSON envelope, or with `?releaseId=` the SBOM file itself.
      rawBody: { contentTypes: sboms.RAW_SBOM_MEDIA_TYPES, json: sboms.uploadSbomJsonBody, description: 'The spec\'s JSON envelope `{ releaseId, content, fileName? }`, or with `?releaseId=` (and `?fileName=`) the SBOM file itself, stored byte for byte; gzip accepted' },
    },
    responses: { 200: { description: 'The release already holds these bytes: that SBOM', schema: z.object({ data: sboms.sbomSchema }) }, 201: { description: 'SBOM metadata', schema: z.object({ data: sboms.sbomSchema }) } },
  },
  {
    operationId: 'createSbomUpload', method: 'POST', path: '/api/sboms/uploads', group: 'sboms', scope: 'sboms:write', mutates: true,
    summary: 'Start a pre-signed upload for a large SBOM (client PUTs the file to the returned URL)', availability: 'implemented',
    request: { body: sboms.createSbomUploadBody }, responses: { 201: anyJson('Upload session with a pre-signed PUT URL') },
  },
  {
    operationId: 'completeSbomUpload', method: 'POST', path: '/api/sboms/uploads/{uploadId}/complete', group: 'sboms', scope: 'sboms:write', mutates: true,
    summary: 'Finish a pre-signed upload: parse, store and scan the uploaded file', availability: 'implemented',
    request: { params: sboms.sbomUploadIdParams }, responses: { 200: { description: 'The release already holds these bytes: that SBOM', schema: z.object({ data: sboms.sbomSchema }) }, 201: { description: 'SBOM metadata', schema: z.object({ data: sboms.sbomSchema }) } },
  },
  {
    operationId: 'getSbom', method: 'GET', path: '/api/sboms/{id}', group: 'sboms', scope: 'sboms:read', mutates: false,
    summary: 'Read SBOM metadata', availability: 'implemented',
    request: { params: sboms.sbomIdParams }, responses: { 200: { description: 'SBOM metadata', schema: z.object({ data: sboms.sbomSchema }) } },
  },
  {
    operationId: 'deleteSbom', method: 'DELETE', path: '/api/sboms/{id}', group: 'sboms', scope: 'sboms:write', mutates: true,
    summary: 'Delete an SBOM with its file and findings (the release\'s dispositions stay); 409 while the release is locked', availability: 'implemented',
    request: { params: sboms.sbomIdParams }, responses: noContent,
  },
  {
    operationId: 'downloadSbom', method: 'GET', path: '/api/sboms/{id}/download', group: 'sboms', scope: 'sboms:read', mutates: false,
    summary: 'Download the original SBOM file, byte for byte', availability: 'implemented',
    request: { params: sboms.sbomIdParams }, responses: { 200: { description: 'The raw file', contentType: 'application/vnd.cyclonedx+json' } },
  },
  {
    operationId: 'triggerCveScan', method: 'POST', path: '/api/cve-scan', group: 'scans', scope: 'cve:trigger', mutates: true,
    summary: 'Scan an SBOM against the vulnerability corpus (runs synchronously)', availability: 'implemented',
    request: { body: sboms.cveScanBody }, responses: { 202: anyJson('Scan finished; results are on the vulnerabilities endpoint') },
  },
  {
    operationId: 'listVulnerabilities', method: 'GET', path: '/api/sboms/{id}/vulnerabilities', group: 'scans', scope: 'vulnerabilities:read', mutates: false,
    summary: 'Findings of an SBOM with their current dispositions (paged, filtered, sorted; `summary` counts every match); 409 (scan_pending, scan_failed) until a scan of it has completed', availability: 'implemented',
    request: { params: sboms.sbomIdParams, query: sboms.vulnerabilityListQuery }, responses: { 200: { description: '`{ data, summary, meta, scan }`', schema: z.looseObject({ data: z.array(sboms.sbomVulnerabilitySchema) }) } },
  },
  {
    operationId: 'listReleaseVulnerabilities', method: 'GET', path: '/api/releases/{releaseId}/vulnerabilities', group: 'scans', scope: 'vulnerabilities:read', mutates: false,
    summary: 'The release as one picture: one row per package and advisory across its SBOMs, with the SBOMs each was found in (paged, filtered, sorted like the SBOM list); 409 while an SBOM of it has no completed scan', availability: 'implemented',
    request: { params: releases.releaseIdParams, query: sboms.vulnerabilityListQuery }, responses: { 200: { description: '`{ data, summary, meta, sboms }`', schema: z.looseObject({ data: z.array(sboms.releaseVulnerabilitySchema) }) } },
  },
  // Dispositions
  {
    operationId: 'upsertDisposition', method: 'POST', path: '/api/dispositions', group: 'dispositions', scope: 'dispositions:write', mutates: true,
    summary: 'Create or update the disposition of a vulnerability', availability: 'implemented',
    request: { body: dispositions.createDispositionBody }, responses: { 200: anyJson('Updated disposition'), 201: anyJson('Created disposition') },
  },
  {
    operationId: 'batchDispositions', method: 'POST', path: '/api/dispositions/batch', group: 'dispositions', scope: 'dispositions:write', mutates: true,
    summary: 'Apply one disposition to up to 500 vulnerabilities (all or nothing)', availability: 'implemented',
    request: { body: dispositions.batchDispositionBody }, responses: { 200: anyJson('`{ updated }`') },
  },
  {
    operationId: 'importVex', method: 'POST', path: '/api/releases/{releaseId}/vex-imports', group: 'dispositions', scope: 'dispositions:write', mutates: true,
    summary: 'Import a CycloneDX VEX, OpenVEX or CSAF document (≤ 10 MB JSON, gzip accepted) into the release\'s dispositions, all or nothing; 409 while locked, 422 with JSON pointers when schema-invalid (docs/vex-import.md)', availability: 'implemented',
    request: { params: releases.releaseIdParams, rawBody: { contentTypes: vexImports.VEX_IMPORT_MEDIA_TYPES, description: 'The VEX document itself' } },
    responses: { 200: { description: 'Applied, unchanged and unmatched statements', schema: vexImports.vexImportResponse } },
  },
  {
    operationId: 'getDisposition', method: 'GET', path: '/api/dispositions/{dispositionId}', group: 'dispositions', scope: 'dispositions:read', mutates: false,
    summary: 'Read a disposition with its change history', availability: 'implemented',
    request: { params: dispositions.dispositionIdParams }, responses: { 200: anyJson('The disposition and its history') },
  },
  {
    operationId: 'updateDisposition', method: 'PUT', path: '/api/dispositions/{dispositionId}', group: 'dispositions', scope: 'dispositions:write', mutates: true,
    summary: 'Update a disposition; 409 while the release is locked', availability: 'implemented',
    request: { params: dispositions.dispositionIdParams, body: dispositions.updateDispositionBody }, responses: { 200: anyJson('Updated disposition') },
  },
  {
    operationId: 'confirmDisposition', method: 'POST', path: '/api/dispositions/{dispositionId}/confirm', group: 'dispositions', scope: 'dispositions:write', mutates: true,
    summary: 'Confirm a decision carried from another package version (clears review_required); 409 while the release is locked', availability: 'implemented',
    request: { params: dispositions.dispositionIdParams }, responses: { 200: anyJson('The confirmed disposition') },
  },
  // VEX documents
  {
    operationId: 'listVexDocuments', method: 'GET', path: '/api/releases/{releaseId}/vex', group: 'vex', scope: 'vex:read', mutates: false,
    summary: 'All VEX documents of a release', availability: 'implemented',
    request: { params: releases.releaseIdParams }, responses: { 200: anyJson('Paged VEX documents') },
  },
  {
    operationId: 'createVexDocument', method: 'POST', path: '/api/releases/{releaseId}/vex', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Generate a VEX document (draft) from the release\'s findings and dispositions', availability: 'implemented',
    request: { params: releases.releaseIdParams, body: vex.createVexBody }, responses: { 201: anyJson('The draft with full content') },
  },
  {
    operationId: 'unlockRelease', method: 'POST', path: '/api/releases/{releaseId}/unlock', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Unlock a release chain held by a submitted/approved/published VEX document', availability: 'implemented',
    request: { params: releases.releaseIdParams, body: vex.unlockReleaseBody }, responses: { 200: anyJson('The unlocked release') },
  },
  {
    operationId: 'getVexDocument', method: 'GET', path: '/api/vex/{vexId}', group: 'vex', scope: 'vex:read', mutates: false,
    summary: 'A VEX document with full content', availability: 'implemented',
    request: { params: vex.vexIdParams }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'deleteVexDocument', method: 'DELETE', path: '/api/vex/{vexId}', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Delete a draft VEX document; 409 otherwise', availability: 'implemented',
    request: { params: vex.vexIdParams }, responses: noContent,
  },
  {
    operationId: 'regenerateVexDocument', method: 'POST', path: '/api/vex/{vexId}/regenerate', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Regenerate a draft from current dispositions (version + 1)', availability: 'implemented',
    request: { params: vex.vexIdParams }, responses: { 200: anyJson('The regenerated draft') },
  },
  {
    operationId: 'submitVexDocument', method: 'POST', path: '/api/vex/{vexId}/submit', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Submit a draft for approval; locks the release chain', availability: 'implemented',
    request: { params: vex.vexIdParams, body: vex.submitBody }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'approveVexDocument', method: 'POST', path: '/api/vex/{vexId}/approve', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Approve a submitted document', availability: 'implemented',
    request: { params: vex.vexIdParams, body: vex.approveBody }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'rejectVexDocument', method: 'POST', path: '/api/vex/{vexId}/reject', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Reject a submitted document back to draft; unlocks the release chain', availability: 'implemented',
    request: { params: vex.vexIdParams, body: vex.rejectBody }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'publishVexDocument', method: 'POST', path: '/api/vex/{vexId}/publish', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Publish an approved document as an immutable, signed public disclosure', availability: 'implemented',
    request: { params: vex.vexIdParams, body: vex.publishBody }, responses: { 200: anyJson('`{ vexDocument, disclosure }`') },
  },
  {
    operationId: 'listVexApprovals', method: 'GET', path: '/api/vex/{vexId}/approvals', group: 'vex', scope: 'vex:read', mutates: false,
    summary: 'Approval trail of a VEX document', availability: 'implemented',
    request: { params: vex.vexIdParams }, responses: { 200: anyJson('`{ data: [approval record] }`') },
  },
  // Disclosures (public)
  {
    operationId: 'listDisclosures', method: 'GET', path: '/api/disclosures', group: 'disclosures', scope: null, mutates: false,
    summary: 'Published disclosures, newest first', availability: 'implemented',
    request: { query: disclosures.disclosureListQuery }, responses: { 200: anyJson('`{ data, meta, links }`') },
  },
  {
    operationId: 'getDisclosure', method: 'GET', path: '/api/disclosures/{slug}', group: 'disclosures', scope: null, mutates: false,
    summary: 'A disclosure: metadata and content (json) or the exact published bytes (raw)', availability: 'implemented',
    request: { params: disclosures.disclosureSlugParams, query: disclosures.disclosureReadQuery }, responses: { 200: anyJson('Disclosure') },
  },
  {
    operationId: 'verifyDisclosure', method: 'GET', path: '/api/disclosures/{slug}/verify', group: 'disclosures', scope: null, mutates: false,
    summary: 'Recompute hash and HMAC of the stored bytes, and check the OpenPGP signature against the team\'s public keys', availability: 'implemented',
    request: { params: disclosures.disclosureSlugParams }, responses: { 200: anyJson('Verification object') },
  },
  // CSAF trusted provider per team (public, read-only; docs/csaf-provider.md)
  {
    operationId: 'getWellKnownCsafProviderMetadata', method: 'GET', path: '/.well-known/csaf/provider-metadata.json', group: 'disclosures', scope: null, mutates: false,
    summary: 'provider-metadata.json of the deployment\'s default CSAF publisher (CSAF_DEFAULT_PROVIDER); 404 when none is configured', availability: 'implemented',
    responses: { 200: csafJson('CSAF provider metadata') },
  },
  {
    operationId: 'getCsafProviderMetadata', method: 'GET', path: '/api/disclosures/csaf/{directory}/provider-metadata.json', group: 'disclosures', scope: null, mutates: false,
    summary: 'A team\'s CSAF provider metadata (role csaf_trusted_provider)', availability: 'implemented',
    request: { params: csafProvider.csafDirectoryParams }, responses: { 200: csafJson('CSAF provider metadata') },
  },
  {
    operationId: 'getCsafRolieService', method: 'GET', path: '/api/disclosures/csaf/{directory}/service.json', group: 'disclosures', scope: null, mutates: false,
    summary: 'ROLIE service document listing the provider\'s feeds', availability: 'implemented',
    request: { params: csafProvider.csafDirectoryParams }, responses: { 200: csafJson('ROLIE service document') },
  },
  {
    operationId: 'getCsafPublicKey', method: 'GET', path: '/api/disclosures/csaf/{directory}/openpgp/{file}', group: 'disclosures', scope: null, mutates: false,
    summary: 'A public OpenPGP key of the team (`<fingerprint>.asc`)', availability: 'implemented',
    request: { params: csafProvider.csafKeyParams }, responses: { 200: { description: 'Armored OpenPGP public key', contentType: 'application/pgp-keys' } },
  },
  {
    operationId: 'listCsafWhiteDirectory', method: 'GET', path: '/api/disclosures/csaf/{directory}/white', group: 'disclosures', scope: null, mutates: false,
    summary: 'Listing of the TLP:WHITE directory (year folders, index.txt, changes.csv, feed)', availability: 'implemented',
    request: { params: csafProvider.csafDirectoryParams }, responses: { 200: { description: 'HTML directory listing', contentType: 'text/html; charset=utf-8' } },
  },
  {
    operationId: 'getCsafIndex', method: 'GET', path: '/api/disclosures/csaf/{directory}/white/index.txt', group: 'disclosures', scope: null, mutates: false,
    summary: 'index.txt: every CSAF document\'s path, one a line', availability: 'implemented',
    request: { params: csafProvider.csafDirectoryParams }, responses: { 200: { description: 'Paths', contentType: 'text/plain; charset=utf-8' } },
  },
  {
    operationId: 'getCsafChanges', method: 'GET', path: '/api/disclosures/csaf/{directory}/white/changes.csv', group: 'disclosures', scope: null, mutates: false,
    summary: 'changes.csv: path and current_release_date of every CSAF document, latest first', availability: 'implemented',
    request: { params: csafProvider.csafDirectoryParams }, responses: { 200: { description: 'CSV', contentType: 'text/csv; charset=utf-8' } },
  },
  {
    operationId: 'getCsafRolieFeed', method: 'GET', path: '/api/disclosures/csaf/{directory}/white/feed-tlp-white.json', group: 'disclosures', scope: null, mutates: false,
    summary: 'ROLIE feed of the TLP:WHITE CSAF documents', availability: 'implemented',
    request: { params: csafProvider.csafDirectoryParams }, responses: { 200: csafJson('ROLIE feed') },
  },
  {
    operationId: 'getCsafRolieCategory', method: 'GET', path: '/api/disclosures/csaf/{directory}/white/category-white.json', group: 'disclosures', scope: null, mutates: false,
    summary: 'ROLIE category document of the TLP:WHITE feed', availability: 'implemented',
    request: { params: csafProvider.csafDirectoryParams }, responses: { 200: csafJson('ROLIE category document') },
  },
  {
    operationId: 'listCsafYear', method: 'GET', path: '/api/disclosures/csaf/{directory}/white/{year}', group: 'disclosures', scope: null, mutates: false,
    summary: 'Listing of one year folder', availability: 'implemented',
    request: { params: csafProvider.csafYearParams }, responses: { 200: { description: 'HTML directory listing', contentType: 'text/html; charset=utf-8' } },
  },
  {
    operationId: 'getCsafFile', method: 'GET', path: '/api/disclosures/csaf/{directory}/white/{year}/{file}', group: 'disclosures', scope: null, mutates: false,
    summary: 'A CSAF document\'s current revision (`<tracking id>.json`, the published bytes), or its `.sha256`, `.sha512` or `.asc`', availability: 'implemented',
    request: { params: csafProvider.csafFileParams }, responses: { 200: { description: 'CSAF document, hash file or signature', contentType: 'application/json' } },
  },
  // Files beside the snapshot (issue 11 item 1; names in shared/disclosures/disclosure-files.ts)
  {
    operationId: 'getDisclosureSignature', method: 'GET', path: '/api/disclosures/{slug}/signature', group: 'disclosures', scope: null, mutates: false,
    summary: 'OpenPGP detached signature (armored) of the raw snapshot, by the team\'s publisher key: `gpg --verify <slug>.json.asc <slug>.json`', availability: 'implemented',
    request: { params: disclosures.disclosureSlugParams }, responses: { 200: { description: 'Armored signature', contentType: 'application/pgp-signature' } },
  },
  {
    operationId: 'getDisclosureSha256', method: 'GET', path: '/api/disclosures/{slug}/sha256', group: 'disclosures', scope: null, mutates: false,
    summary: 'SHA-256 of the raw snapshot in `sha256sum -c` form', availability: 'implemented',
    request: { params: disclosures.disclosureSlugParams }, responses: { 200: { description: '`<hex>  <slug>.json`', contentType: 'text/plain; charset=utf-8' } },
  },
  {
    operationId: 'getDisclosureSha512', method: 'GET', path: '/api/disclosures/{slug}/sha512', group: 'disclosures', scope: null, mutates: false,
    summary: 'SHA-512 of the raw snapshot in `sha512sum -c` form', availability: 'implemented',
    request: { params: disclosures.disclosureSlugParams }, responses: { 200: { description: '`<hex>  <slug>.json`', contentType: 'text/plain; charset=utf-8' } },
  },
  {
    operationId: 'getDisclosureAttestation', method: 'GET', path: '/api/disclosures/{slug}/attestation', group: 'disclosures', scope: null, mutates: false,
    summary: 'OpenVEX only: the in-toto statement in a DSSE envelope signed with the publisher key (as `vexctl attest` makes)', availability: 'implemented',
    request: { params: disclosures.disclosureSlugParams }, responses: { 200: { description: 'DSSE envelope', contentType: 'application/vnd.dsse.envelope.v1+json' } },
  },
  {
    operationId: 'getPublisherKeys', method: 'GET', path: '/api/disclosures/publishers/{teamId}/keys', group: 'disclosures', scope: null, mutates: false,
    summary: 'A team\'s publisher keys, current and rotated out: fingerprints and validity (json), armored OpenPGP (asc) or JWKS (jwks)', availability: 'implemented',
    request: { params: disclosures.publisherKeysParams, query: disclosures.publisherKeysQuery }, responses: { 200: anyJson('`{ data: [key] }`, an armored key block, or `{ keys }`') },
  },
  // Compliance, audit, settings
  {
    operationId: 'getComplianceReport', method: 'GET', path: '/api/compliance/{releaseId}/report', group: 'compliance', scope: 'compliance:read', mutates: false,
    summary: 'HTML attestation report of a release', availability: 'implemented',
    request: { params: releases.releaseIdParams }, responses: { 200: { description: 'HTML report', contentType: 'text/html; charset=utf-8' } },
  },
  {
    operationId: 'exportAudit', method: 'GET', path: '/api/audit/export', group: 'audit', scope: 'audit:read', mutates: false,
    summary: 'Audit log entries as CSV (≤ 10,000 rows)', availability: 'implemented',
    request: { query: audit.auditExportQuery }, responses: { 200: { description: 'CSV', contentType: 'text/csv; charset=utf-8' } },
  },
  {
    operationId: 'getTeamSettings', method: 'GET', path: '/api/settings', group: 'settings', scope: 'settings:read', mutates: false,
    summary: 'Team settings: SLA policy and the distinct-approver rule', availability: 'implemented',
    responses: { 200: anyJson('Settings') },
  },
  {
    operationId: 'updateTeamSettings', method: 'PUT', path: '/api/settings', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Change team settings', availability: 'implemented',
    request: { body: compliance.teamSettingsBody }, responses: { 200: anyJson('Settings') },
  },
  {
    operationId: 'listPublisherKeys', method: 'GET', path: '/api/settings/publisher-keys', group: 'settings', scope: 'settings:read', mutates: false,
    summary: 'The team\'s publisher keys (public halves), oldest first', availability: 'implemented',
    responses: { 200: { description: 'Publisher keys', schema: z.object({ data: z.array(disclosures.publisherKeyView) }) } },
  },
  {
    operationId: 'rotatePublisherKey', method: 'POST', path: '/api/settings/publisher-keys/rotate', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Add a new publisher key that signs from now on; older keys stay published so older signatures keep verifying', availability: 'implemented',
    responses: { 201: { description: 'The new key', schema: z.object({ data: disclosures.publisherKeyView }) } },
  },
  // OIDC workload identity federation (docs/oidc.md): trust policies are team settings; the exchange is public.
  {
    operationId: 'listTrustPolicies', method: 'GET', path: '/api/trust-policies', group: 'settings', scope: 'settings:read', mutates: false,
    summary: 'The team\'s OIDC trust policies, oldest first', availability: 'implemented',
    responses: { 200: { description: 'Trust policies', schema: z.object({ data: z.array(trustPolicies.trustPolicySchema) }) } },
  },
  {
    operationId: 'createTrustPolicy', method: 'POST', path: '/api/trust-policies', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Trust CI tokens of an OIDC issuer (GitHub Actions by default) whose claims match; grants at most the caller\'s own scopes', availability: 'implemented',
    request: { body: trustPolicies.createTrustPolicyBody }, responses: { 201: { description: 'Created', schema: z.object({ data: trustPolicies.trustPolicySchema }) } },
  },
  {
    operationId: 'deleteTrustPolicy', method: 'DELETE', path: '/api/trust-policies/{policyId}', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Delete a trust policy; every token issued under it stops working at once', availability: 'implemented',
    request: { params: trustPolicies.trustPolicyIdParams }, responses: noContent,
  },
  {
    operationId: 'exchangeOidcToken', method: 'POST', path: '/api/auth/oidc/token', group: 'auth', scope: null, mutates: true, teamFromBody: true,
    summary: 'Exchange a CI job\'s OIDC token for a short-lived bearer token with the matching trust policy\'s scopes (401 with a refusal code otherwise)', availability: 'implemented',
    request: { body: trustPolicies.oidcTokenExchangeBody }, responses: { 200: { description: 'The issued token', schema: trustPolicies.oidcTokenResponse } },
  },
  // Browser sign-in (docs/sign-in.md): public routes under /api so the console's origin reaches them through the same /api/* path.
  {
    // mutates false: it writes only the flow's own short-lived item, no team's data, so there is nothing to audit (the callback audits the sign-in).
    operationId: 'startSignIn', method: 'GET', path: '/api/auth/login', group: 'signin', scope: null, mutates: false,
    summary: 'Start browser sign-in: redirects (302) to the OpenID provider (authorization code + PKCE)', availability: 'implemented',
    request: { query: signIn.signInStartQuery }, responses: { 302: { description: 'To the provider\'s authorization endpoint; sets the flow cookie' } },
  },
  {
    operationId: 'finishSignIn', method: 'GET', path: '/api/auth/callback', group: 'signin', scope: null, mutates: true,
    summary: 'The provider\'s redirect back: signs an invited member in (303 to the return path, session cookie set); 403 HTML page otherwise', availability: 'implemented',
    request: { query: signIn.signInCallbackQuery },
    responses: { 303: { description: 'Signed in; sets the session cookie' }, 403: { description: 'Not signed in, and why', contentType: 'text/html; charset=utf-8' } },
  },
  {
    operationId: 'signOut', method: 'POST', path: '/api/auth/logout', group: 'signin', scope: null, mutates: true,
    summary: 'End the browser session server-side and clear its cookie (needs X-CSRF-Token and the console\'s Origin)', availability: 'implemented',
    responses: noContent,
  },
  {
    operationId: 'getMe', method: 'GET', path: '/api/me', group: 'settings', scope: 'authenticated', mutates: false,
    summary: 'Who the credential is: its team, caller (service account or member), scopes and key expiry', availability: 'implemented',
    responses: { 200: { description: 'The caller', schema: settings.meResponse } },
  },
  // The team workspace (docs/sign-in.md): members and API keys, only for holders of settings.manage (spec "Authentication" rule 7).
  {
    operationId: 'listMembers', method: 'GET', path: '/api/members', group: 'settings', scope: 'settings:read', mutates: false,
    summary: 'The team\'s members, oldest first (service accounts are not members); only for holders of settings.manage', availability: 'implemented',
    responses: { 200: { description: 'Members', schema: workspace.memberListResponse } },
  },
  {
    operationId: 'inviteMember', method: 'POST', path: '/api/members', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Invite a member by email; they join at their first sign-in with an identity whose verified email matches', availability: 'implemented',
    request: { body: workspace.inviteMemberBody }, responses: { 201: { description: 'The member', schema: workspace.memberResponse } },
  },
  {
    operationId: 'updateMember', method: 'PUT', path: '/api/members/{memberId}', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Change a member\'s name or permissions; their sessions get the new scopes on their next request', availability: 'implemented',
    request: { params: workspace.memberIdParams, body: workspace.updateMemberBody }, responses: { 200: { description: 'The member', schema: workspace.memberResponse } },
  },
  {
    operationId: 'removeMember', method: 'DELETE', path: '/api/members/{memberId}', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Remove a member; their sessions end on their next request (409 for the last holder of settings.manage)', availability: 'implemented',
    request: { params: workspace.memberIdParams }, responses: noContent,
  },
  {
    operationId: 'listApiKeys', method: 'GET', path: '/api/keys', group: 'settings', scope: 'settings:read', mutates: false,
    summary: 'The team\'s API keys, revoked ones included (never the value or its hash); only for holders of settings.manage', availability: 'implemented',
    responses: { 200: { description: 'API keys', schema: workspace.apiKeyListResponse } },
  },
  {
    operationId: 'createApiKey', method: 'POST', path: '/api/keys', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Create an API key with at most the caller\'s scopes; the value is in `key`, shown only in this answer', availability: 'implemented',
    request: { body: workspace.createApiKeyBody }, responses: { 201: { description: 'The key and its value', schema: workspace.createdApiKeyResponse } },
  },
  {
    operationId: 'revokeApiKey', method: 'DELETE', path: '/api/keys/{keyId}', group: 'settings', scope: 'settings:write', mutates: true,
    summary: 'Revoke an API key, permanently and at once; its service account is deleted (spec "Authentication" rule 9)', availability: 'implemented',
    request: { params: workspace.keyIdParams }, responses: noContent,
  },
  {
    operationId: 'getOpenApiDocument', method: 'GET', path: '/api/openapi.json', group: 'openapi', scope: null, mutates: false,
    summary: 'This API\'s OpenAPI 3.1 document', availability: 'implemented',
    responses: { 200: anyJson('OpenAPI document') },
  },
] as const satisfies readonly RouteDefinition[];

export type OperationId = (typeof routes)[number]['operationId'];

export const errorResponseSchema = errorBodySchema;

export function routesOfGroup(group: EndpointGroup): RouteDefinition[] {
  return routes.filter((route) => route.group === group);
}

/**
 * The methods the route table serves on a resource path, in a stable order: the `Allow` header of a
 * 405 (RFC 9110 §15.5.6) from the API Gateway stack and the local emulator alike.
 */
export function methodsOfPath(resourcePath: string): string[] {
  return [...new Set((routes as readonly RouteDefinition[]).filter((route) => route.path === resourcePath).map((route) => route.method))].sort();
}

/** The public disclosure routes: read by browsers on other origins, so their resources answer a CORS preflight. */
export function isPublicDisclosureRoute(route: RouteDefinition): boolean {
  return route.scope === null && route.group === 'disclosures';
}

/** True when OPTIONS on the resource path is a CORS preflight (204) rather than a 405, in the stack and the local server. */
export function hasCorsPreflight(resourcePath: string): boolean {
  return (routes as readonly RouteDefinition[]).some((route) => route.path === resourcePath && isPublicDisclosureRoute(route));
}

/** Every resource path of the route table, once each. */
export function routePaths(): string[] {
  return [...new Set((routes as readonly RouteDefinition[]).map((route) => route.path))];
}

/** Find the route for an API Gateway resource path and method. */
export function findRoute(method: string, resourcePath: string): RouteDefinition | undefined {
  return (routes as readonly RouteDefinition[]).find((route) => route.method === method && route.path === resourcePath);
}
