import { csafJson, defineGroup, publicReads } from '../route-definition';
import * as disclosures from '../../schemas/disclosures';
import * as csafProvider from '../../schemas/csaf-provider';

/** The `disclosures` group's routes, all public reads (the function `functions/disclosures/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const disclosureRoutes = defineGroup(
  'disclosures',
  publicReads([
    // Disclosures (public)
    {
      operationId: 'listDisclosures',
      path: '/api/disclosures',
      summary: 'Published disclosures, newest first',
      request: { query: disclosures.disclosureListQuery },
      responses: { 200: { description: 'A page of disclosures', schema: disclosures.disclosureListResponse } },
    },
    {
      operationId: 'getDisclosure',
      path: '/api/disclosures/{slug}',
      summary: 'A disclosure: metadata and content (json) or the exact published bytes (raw)',
      request: { params: disclosures.disclosureSlugParams, query: disclosures.disclosureReadQuery },
      responses: {
        200: {
          description:
            'The disclosure with its snapshots and content; with `format=raw` the published file itself, byte for byte (`application/vnd.cyclonedx+json` or `application/json`)',
          schema: disclosures.disclosureResponse,
        },
      },
    },
    {
      operationId: 'verifyDisclosure',
      path: '/api/disclosures/{slug}/verify',
      summary:
        "Recompute hash and HMAC of the stored bytes, and check the OpenPGP signature against the team's public keys",
      request: { params: disclosures.disclosureSlugParams },
      responses: { 200: { description: 'Verification object', schema: disclosures.disclosureVerificationSchema } },
    },
    // CSAF trusted provider per team (public, read-only; docs/csaf-provider.md)
    {
      operationId: 'getWellKnownCsafProviderMetadata',
      path: '/.well-known/csaf/provider-metadata.json',
      summary:
        "provider-metadata.json of the deployment's default CSAF publisher (CSAF_DEFAULT_PROVIDER); 404 when none is configured",
      responses: { 200: csafJson('CSAF provider metadata') },
    },
    {
      operationId: 'getCsafProviderMetadata',
      path: '/api/disclosures/csaf/{directory}/provider-metadata.json',
      summary: "A team's CSAF provider metadata (role csaf_trusted_provider)",
      request: { params: csafProvider.csafDirectoryParams },
      responses: { 200: csafJson('CSAF provider metadata') },
    },
    {
      operationId: 'getCsafRolieService',
      path: '/api/disclosures/csaf/{directory}/service.json',
      summary: "ROLIE service document listing the provider's feeds",
      request: { params: csafProvider.csafDirectoryParams },
      responses: { 200: csafJson('ROLIE service document') },
    },
    {
      operationId: 'getCsafPublicKey',
      path: '/api/disclosures/csaf/{directory}/openpgp/{file}',
      summary: 'A public OpenPGP key of the team (`<fingerprint>.asc`)',
      request: { params: csafProvider.csafKeyParams },
      responses: { 200: { description: 'Armored OpenPGP public key', contentType: 'application/pgp-keys' } },
    },
    {
      operationId: 'listCsafWhiteDirectory',
      path: '/api/disclosures/csaf/{directory}/white',
      summary: 'Listing of the TLP:WHITE directory (year folders, index.txt, changes.csv, feed)',
      request: { params: csafProvider.csafDirectoryParams },
      responses: { 200: { description: 'HTML directory listing', contentType: 'text/html; charset=utf-8' } },
    },
    {
      operationId: 'getCsafIndex',
      path: '/api/disclosures/csaf/{directory}/white/index.txt',
      summary: "index.txt: every CSAF document's path, one a line",
      request: { params: csafProvider.csafDirectoryParams },
      responses: { 200: { description: 'Paths', contentType: 'text/plain; charset=utf-8' } },
    },
    {
      operationId: 'getCsafChanges',
      path: '/api/disclosures/csaf/{directory}/white/changes.csv',
      summary: 'changes.csv: path and current_release_date of every CSAF document, latest first',
      request: { params: csafProvider.csafDirectoryParams },
      responses: { 200: { description: 'CSV', contentType: 'text/csv; charset=utf-8' } },
    },
    {
      operationId: 'getCsafRolieFeed',
      path: '/api/disclosures/csaf/{directory}/white/feed-tlp-white.json',
      summary: 'ROLIE feed of the TLP:WHITE CSAF documents',
      request: { params: csafProvider.csafDirectoryParams },
      responses: { 200: csafJson('ROLIE feed') },
    },
    {
      operationId: 'getCsafRolieCategory',
      path: '/api/disclosures/csaf/{directory}/white/category-white.json',
      summary: 'ROLIE category document of the TLP:WHITE feed',
      request: { params: csafProvider.csafDirectoryParams },
      responses: { 200: csafJson('ROLIE category document') },
    },
    {
      operationId: 'listCsafYear',
      path: '/api/disclosures/csaf/{directory}/white/{year}',
      summary: 'Listing of one year folder',
      request: { params: csafProvider.csafYearParams },
      responses: { 200: { description: 'HTML directory listing', contentType: 'text/html; charset=utf-8' } },
    },
    {
      operationId: 'getCsafFile',
      path: '/api/disclosures/csaf/{directory}/white/{year}/{file}',
      summary:
        "A CSAF document's current revision (`<tracking id>.json`, the published bytes), or its `.sha256`, `.sha512` or `.asc`",
      request: { params: csafProvider.csafFileParams },
      responses: { 200: { description: 'CSAF document, hash file or signature', contentType: 'application/json' } },
    },
    // Files beside the snapshot (issue 11 item 1; names in shared/service/disclosures/disclosure-files.ts)
    {
      operationId: 'getDisclosureSignature',
      path: '/api/disclosures/{slug}/signature',
      summary:
        "OpenPGP detached signature (armored) of the raw snapshot, by the team's publisher key: `gpg --verify <slug>.json.asc <slug>.json`",
      request: { params: disclosures.disclosureSlugParams },
      responses: { 200: { description: 'Armored signature', contentType: 'application/pgp-signature' } },
    },
    {
      operationId: 'getDisclosureSha256',
      path: '/api/disclosures/{slug}/sha256',
      summary: 'SHA-256 of the raw snapshot in `sha256sum -c` form',
      request: { params: disclosures.disclosureSlugParams },
      responses: { 200: { description: '`<hex>  <slug>.json`', contentType: 'text/plain; charset=utf-8' } },
    },
    {
      operationId: 'getDisclosureSha512',
      path: '/api/disclosures/{slug}/sha512',
      summary: 'SHA-512 of the raw snapshot in `sha512sum -c` form',
      request: { params: disclosures.disclosureSlugParams },
      responses: { 200: { description: '`<hex>  <slug>.json`', contentType: 'text/plain; charset=utf-8' } },
    },
    {
      operationId: 'getDisclosureAttestation',
      path: '/api/disclosures/{slug}/attestation',
      summary:
        'OpenVEX only: the in-toto statement in a DSSE envelope signed with the publisher key (as `vexctl attest` makes)',
      request: { params: disclosures.disclosureSlugParams },
      responses: { 200: { description: 'DSSE envelope', contentType: 'application/vnd.dsse.envelope.v1+json' } },
    },
    {
      operationId: 'getPublisherKeys',
      path: '/api/disclosures/publishers/{teamId}/keys',
      summary:
        "A team's publisher keys, current and rotated out: fingerprints and validity (json), armored OpenPGP (asc) or JWKS (jwks)",
      request: { params: disclosures.publisherKeysParams, query: disclosures.publisherKeysQuery },
      responses: {
        200: {
          description: '`{ data: [key] }`, an armored key block (`format=asc`) or a JWK set (`format=jwks`)',
          schema: disclosures.publisherKeyListResponse,
          alternatives: { 'application/pgp-keys': null, 'application/jwk-set+json': disclosures.publisherJwksSchema },
        },
      },
    },
  ]),
);
