import { createGroupHandler } from '../../shared/service/http/group-handler';
import { disclosureRoutes } from '../../shared/service/http/route-groups/disclosures';
import { Disclosures, toDisclosureView } from '../../shared/service/disclosures/disclosures';
import { CsafProvider, type ProviderFile } from '../../shared/service/csaf-provider/provider';
import {
  contentDisposition,
  rawFileName,
  type DisclosureFileKind,
} from '../../shared/service/disclosures/disclosure-files';
import { PublisherKeys } from '../../shared/service/disclosures/publisher-keys';
import { toPublisherKeyView } from '../../shared/service/disclosures/publisher-key-rotation';
import { NotFoundError } from '../../shared/service/errors';

// Public, credential-free reads (spec "Disclosures (public)"): open CORS.
const CORS = { 'Access-Control-Allow-Origin': '*' };
// Snapshots and the files beside them never change once published: cache them for good.
const IMMUTABLE = { ...CORS, 'Cache-Control': 'public, max-age=31536000, immutable' };

async function fileResponse(slug: string, kind: DisclosureFileKind) {
  const { bytes, fileName, contentType } = await Disclosures.readFile(slug, kind);
  return {
    status: 200 as const,
    raw: bytes,
    contentType,
    headers: { ...IMMUTABLE, 'Content-Disposition': contentDisposition(fileName) },
  };
}

/** A CSAF provider file: exact bytes and type; it changes with the next publication, so cached briefly. */
function providerFile(file: ProviderFile) {
  return {
    status: 200 as const,
    raw: file.body,
    contentType: file.contentType,
    headers: { ...CORS, 'Cache-Control': 'public, max-age=60' },
  };
}

export const handler = createGroupHandler(disclosureRoutes, {
  listDisclosures: async ({ query }) => ({
    status: 200,
    body: await Disclosures.list(query),
    headers: { ...CORS, 'Cache-Control': 'public, max-age=30' },
  }),
  getDisclosure: async ({ params, query }) => {
    const { disclosure, bytes, snapshots } = await Disclosures.read(params.slug);
    if (query.format === 'raw') {
      return {
        status: 200,
        raw: bytes,
        contentType: disclosure.contentType,
        headers: {
          ...IMMUTABLE,
          ETag: `"${disclosure.contentHash}"`,
          'X-Content-Hash': disclosure.contentHash,
          // The name the .sha256/.sha512 files list, so `sha256sum -c` finds the download.
          'Content-Disposition': contentDisposition(rawFileName(disclosure.slug)),
          ...(disclosure.signature
            ? { 'X-Content-Signature': disclosure.signature, 'X-Signature-Key-Id': disclosure.signingKeyId ?? '' }
            : {}),
        },
      };
    }
    const view = toDisclosureView(disclosure);
    const providerMetadata =
      disclosure.format === 'csaf' && disclosure.teamId
        ? await CsafProvider.metadataPath(disclosure.teamId)
        : undefined;
    return {
      status: 200,
      headers: { ...CORS, 'Cache-Control': 'public, max-age=60' },
      body: {
        data: {
          ...view,
          links: { ...view.links, ...(providerMetadata ? { provider_metadata: providerMetadata } : {}) },
          signing_key_id: disclosure.signingKeyId,
          public_key_fingerprint: disclosure.publicKeyFingerprint ?? null,
          snapshots,
          // The published bytes are a VEX document: a JSON object in every format.
          content: JSON.parse(bytes.toString('utf8')) as Record<string, unknown>,
        },
      },
    };
  },
  verifyDisclosure: async ({ params }) => ({
    status: 200,
    body: await Disclosures.verify(params.slug),
    headers: { ...CORS, 'Cache-Control': 'no-store' },
  }),
  getWellKnownCsafProviderMetadata: async () => providerFile(await CsafProvider.wellKnownProviderMetadata()),
  getCsafProviderMetadata: async ({ params }) => providerFile(await CsafProvider.providerMetadata(params.directory)),
  getCsafRolieService: async ({ params }) => providerFile(await CsafProvider.service(params.directory)),
  getCsafPublicKey: async ({ params }) => providerFile(await CsafProvider.publicKey(params.directory, params.file)),
  listCsafWhiteDirectory: async ({ params }) => providerFile(await CsafProvider.directoryListing(params.directory)),
  getCsafIndex: async ({ params }) => providerFile(await CsafProvider.index(params.directory)),
  getCsafChanges: async ({ params }) => providerFile(await CsafProvider.changes(params.directory)),
  getCsafRolieFeed: async ({ params }) => providerFile(await CsafProvider.feed(params.directory)),
  getCsafRolieCategory: async ({ params }) => providerFile(await CsafProvider.category(params.directory)),
  listCsafYear: async ({ params }) => providerFile(await CsafProvider.yearListing(params.directory, params.year)),
  getCsafFile: async ({ params }) => providerFile(await CsafProvider.file(params.directory, params.year, params.file)),
  getDisclosureSignature: async ({ params }) => fileResponse(params.slug, 'signature'),
  getDisclosureSha256: async ({ params }) => fileResponse(params.slug, 'sha256'),
  getDisclosureSha512: async ({ params }) => fileResponse(params.slug, 'sha512'),
  getDisclosureAttestation: async ({ params }) => fileResponse(params.slug, 'attestation'),
  getPublisherKeys: async ({ params, query }) => {
    // Short cache: a rotation must show up soon, and old keys never leave the list.
    const headers = { ...CORS, 'Cache-Control': 'public, max-age=300' };
    if (query.format === 'asc') {
      const armored = await PublisherKeys.armoredPublicKeys(params.teamId);
      if (armored === null) throw new NotFoundError('Publisher');
      return {
        status: 200,
        raw: Buffer.from(armored, 'utf8'),
        contentType: 'application/pgp-keys',
        headers: { ...headers, 'Content-Disposition': contentDisposition(`${params.teamId}.asc`) },
      };
    }
    const keys = await PublisherKeys.publicKeys(params.teamId);
    if (keys.length === 0) throw new NotFoundError('Publisher');
    if (query.format === 'jwks')
      return {
        status: 200,
        raw: JSON.stringify({ keys: keys.map((key) => key.jwk) }),
        contentType: 'application/jwk-set+json',
        headers,
      };
    return { status: 200, body: { data: keys.map(toPublisherKeyView) }, headers };
  },
});
