import { createGroupHandler } from '../../shared/http/group-handler';
import { Disclosures, toDisclosureView } from '../../shared/disclosures/disclosures';
import { CsafProvider, type ProviderFile } from '../../shared/csaf-provider/provider';

// Public, credential-free reads (spec "Disclosures (public)"): open CORS.
const CORS = { 'Access-Control-Allow-Origin': '*' };

/** A CSAF provider file: exact bytes and type; it changes with the next publication, so cached briefly. */
function providerFile(file: ProviderFile) {
  return { status: 200, raw: file.body, contentType: file.contentType, headers: { ...CORS, 'Cache-Control': 'public, max-age=60' } };
}

export const handler = createGroupHandler('disclosures', {
  listDisclosures: async ({ query }) => ({
    status: 200, body: await Disclosures.list(query), headers: { ...CORS, 'Cache-Control': 'public, max-age=30' },
  }),
  getDisclosure: async ({ params, query }) => {
    const { disclosure, bytes, snapshots } = await Disclosures.read(params.slug);
    if (query.format === 'raw') {
      // The snapshot never changes once published: cache it for good.
      return {
        status: 200, raw: bytes, contentType: disclosure.contentType,
        headers: {
          ...CORS, 'Cache-Control': 'public, max-age=31536000, immutable', ETag: `"${disclosure.contentHash}"`, 'X-Content-Hash': disclosure.contentHash,
          ...(disclosure.signature ? { 'X-Content-Signature': disclosure.signature, 'X-Signature-Key-Id': disclosure.signingKeyId ?? '' } : {}),
        },
      };
    }
    return {
      status: 200,
      headers: { ...CORS, 'Cache-Control': 'public, max-age=60' },
      body: { data: { ...toDisclosureView(disclosure), signing_key_id: disclosure.signingKeyId, snapshots, content: JSON.parse(bytes.toString('utf8')) as unknown } },
    };
  },
  verifyDisclosure: async ({ params }) => ({
    status: 200, body: await Disclosures.verify(params.slug), headers: { ...CORS, 'Cache-Control': 'no-store' },
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
});
