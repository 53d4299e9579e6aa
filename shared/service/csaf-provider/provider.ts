/**
 * The public, read-only CSAF trusted provider of a team (CSAF 2.0 section 7; docs/csaf-provider.md):
 * provider-metadata.json, the ROLIE feed, service and category documents, the TLP:WHITE directory
 * (year folders, index.txt, changes.csv, listings) and each document's current revision with its
 * hash files. Everything is built from the provider partition (one GetItem of the directory claim,
 * one of the settings, one Query of the team's entries: no scan) and the stored disclosure bytes.
 */
import { config } from '../config';
import { Disclosures } from '../disclosures/disclosures';
import { NotFoundError } from '../errors';
import { checksumFile } from '../disclosures/disclosure-files';
import { csafProviderStore, type CsafDocumentEntry, type CsafProviderSettings } from './provider-store';
import { detachedSignature, providerKeys, publishesSignatures } from './signatures';
import { CSAF_PROVIDER_PATH, csafDocumentUrl, providerBaseUrl, whiteDirectoryUrl } from './urls';

const ROLIE_CSAF_CATEGORY = { scheme: 'urn:ietf:params:rolie:category:information-type', term: 'csaf' } as const;
const CSAF_SCHEMA_URL = 'https://docs.oasis-open.org/csaf/csaf/v2.0/csaf_json_schema.json';
export const FEED_FILE = 'feed-tlp-white.json';
/** `category-<tlp label lower-case>.json` beside the feed: where csaf_checker looks for it. */
export const CATEGORY_FILE = 'category-white.json';

export interface ProviderFile {
  body: string | Buffer;
  contentType: string;
}

/** The document, its hash files (requirement 18) and its signature (requirement 19). */
const FILE_SUFFIXES = ['', '.sha256', '.sha512', '.asc'] as const;

async function provider(directory: string): Promise<CsafProviderSettings> {
  const teamId = await csafProviderStore.teamOfDirectory(directory);
  const settings = teamId ? await csafProviderStore.settings(teamId) : undefined;
  if (!settings || settings.directory !== directory) throw new NotFoundError('CSAF provider');
  return settings;
}

function json(value: unknown): ProviderFile {
  return { body: `${JSON.stringify(value, null, 2)}\n`, contentType: 'application/json' };
}

/** Newest publication first; ties by path, so every listing has one order. */
function newestFirst(entries: CsafDocumentEntry[]): CsafDocumentEntry[] {
  return [...entries].sort(
    (a, b) => b.currentReleaseDate.localeCompare(a.currentReleaseDate) || pathOf(a).localeCompare(pathOf(b)),
  );
}

function pathOf(entry: CsafDocumentEntry): string {
  return `${entry.year}/${entry.fileBase}.json`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Requirement 14: a server-side listing with one link per entry (absolute URLs, whatever the trailing slash). */
function listing(title: string, links: { href: string; label: string }[]): ProviderFile {
  const items = links
    .map((link) => `<li><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></li>`)
    .join('\n');
  return {
    body: `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body><h1>${escapeHtml(title)}</h1>\n<ul>\n${items}\n</ul></body></html>\n`,
    contentType: 'text/html; charset=utf-8',
  };
}

function feedUrl(directory: string): string {
  return `${whiteDirectoryUrl(directory)}/${FEED_FILE}`;
}

async function metadata(settings: CsafProviderSettings): Promise<ProviderFile> {
  const base = providerBaseUrl(settings.directory);
  const keys = await providerKeys(settings.teamId);
  return json({
    canonical_url: `${base}/provider-metadata.json`,
    distributions: [
      {
        directory_url: `${whiteDirectoryUrl(settings.directory)}/`,
        rolie: {
          categories: [`${whiteDirectoryUrl(settings.directory)}/${CATEGORY_FILE}`],
          feeds: [
            {
              summary: `All TLP:WHITE CSAF documents of ${settings.publisher.name}.`,
              tlp_label: 'WHITE',
              url: feedUrl(settings.directory),
            },
          ],
          services: [`${base}/service.json`],
        },
      },
    ],
    last_updated: settings.updatedAt,
    list_on_CSAF_aggregators: true,
    metadata_version: '2.0',
    mirror_on_CSAF_aggregators: true,
    public_openpgp_keys: keys.map((key) => ({
      fingerprint: key.fingerprint,
      url: `${base}/openpgp/${key.fingerprint}.asc`,
    })),
    publisher: settings.publisher,
    role: 'csaf_trusted_provider',
  });
}

export const CsafProvider = {
  /** A CSAF disclosure's `links.provider_metadata`: the team's provider-metadata.json, relative like `self` (none without a directory). */
  async metadataPath(teamId: string): Promise<string | undefined> {
    const settings = await csafProviderStore.settings(teamId);
    return settings ? `${CSAF_PROVIDER_PATH}/${settings.directory}/provider-metadata.json` : undefined;
  },

  async providerMetadata(directory: string): Promise<ProviderFile> {
    return metadata(await provider(directory));
  },

  /** Requirement 9 for the deployment's default publisher (configuration): the same bytes as its own provider-metadata.json. */
  async wellKnownProviderMetadata(): Promise<ProviderFile> {
    const directory = config().csafDefaultProvider;
    if (directory === undefined) throw new NotFoundError('CSAF provider');
    return metadata(await provider(directory));
  },

  /** Requirement 16: next to provider-metadata.json, listing exactly the provider's feeds. */
  async service(directory: string): Promise<ProviderFile> {
    const settings = await provider(directory);
    return json({
      service: {
        workspace: [
          {
            title: `${settings.publisher.name} CSAF documents`,
            collection: [
              {
                title: `${settings.publisher.name} CSAF feed (TLP:WHITE)`,
                href: feedUrl(directory),
                categories: { category: [ROLIE_CSAF_CATEGORY] },
              },
            ],
          },
        ],
      },
    });
  },

  /** Requirement 15: one entry per document (its current revision), with its hash (and, once wired, signature) links. */
  async feed(directory: string): Promise<ProviderFile> {
    const settings = await provider(directory);
    const entries = newestFirst(await csafProviderStore.documents(settings.teamId));
    const signed = publishesSignatures();
    return json({
      feed: {
        id: `${directory}-csaf-feed-tlp-white`,
        title: `${settings.publisher.name} CSAF feed (TLP:WHITE)`,
        link: [{ rel: 'self', href: feedUrl(directory) }],
        category: [ROLIE_CSAF_CATEGORY],
        updated: entries[0]?.publishedAt ?? settings.updatedAt,
        entry: entries.map((entry) => {
          const url = csafDocumentUrl(directory, entry.year, entry.fileBase);
          return {
            id: entry.trackingId,
            title: entry.title,
            link: [
              { rel: 'self', href: url },
              { rel: 'hash', href: `${url}.sha256` },
              { rel: 'hash', href: `${url}.sha512` },
              ...(signed ? [{ rel: 'signature', href: `${url}.asc` }] : []),
            ],
            published: entry.firstPublishedAt,
            updated: entry.publishedAt,
            summary: { content: `${entry.title}, revision ${entry.version}` },
            content: { type: 'application/json', src: url },
            format: { schema: CSAF_SCHEMA_URL, version: '2.0' },
          };
        }),
      },
    });
  },

  /** Requirement 17: document category, language and the products the documents cover. */
  async category(directory: string): Promise<ProviderFile> {
    const settings = await provider(directory);
    const products = [
      ...new Set((await csafProviderStore.documents(settings.teamId)).map((entry) => entry.productName)),
    ].sort();
    return json({
      categories: {
        category: [ROLIE_CSAF_CATEGORY, { term: 'csaf_vex' }, { term: 'en' }, ...products.map((term) => ({ term }))],
      },
    });
  },

  /** Requirement 12: every document's path below the directory, one a line. */
  async index(directory: string): Promise<ProviderFile> {
    const settings = await provider(directory);
    const paths = (await csafProviderStore.documents(settings.teamId)).map(pathOf).sort((a, b) => b.localeCompare(a));
    return { body: paths.map((path) => `${path}\n`).join(''), contentType: 'text/plain; charset=utf-8' };
  },

  /** Requirement 13 (CSAF 2.0 example form): `"<path>","<current_release_date>"`, latest first, no heading. */
  async changes(directory: string): Promise<ProviderFile> {
    const settings = await provider(directory);
    const entries = newestFirst(await csafProviderStore.documents(settings.teamId));
    return {
      body: entries.map((entry) => `"${pathOf(entry)}","${entry.currentReleaseDate}"\n`).join(''),
      contentType: 'text/csv; charset=utf-8',
    };
  },

  async directoryListing(directory: string): Promise<ProviderFile> {
    const settings = await provider(directory);
    const white = whiteDirectoryUrl(directory);
    const years = [...new Set((await csafProviderStore.documents(settings.teamId)).map((entry) => entry.year))]
      .sort()
      .reverse();
    return listing(`${settings.publisher.name}: TLP:WHITE CSAF documents`, [
      ...years.map((year) => ({ href: `${white}/${year}/`, label: `${year}/` })),
      ...['index.txt', 'changes.csv', FEED_FILE, CATEGORY_FILE].map((name) => ({
        href: `${white}/${name}`,
        label: name,
      })),
    ]);
  },

  async yearListing(directory: string, year: string): Promise<ProviderFile> {
    const settings = await provider(directory);
    const entries = (await csafProviderStore.documents(settings.teamId)).filter((entry) => entry.year === year);
    if (entries.length === 0) throw new NotFoundError('CSAF year folder');
    const signed = publishesSignatures();
    const names = entries
      .map((entry) => `${entry.fileBase}.json`)
      .sort()
      .flatMap((name) => [name, `${name}.sha256`, `${name}.sha512`, ...(signed ? [`${name}.asc`] : [])]);
    return listing(
      `${settings.publisher.name}: TLP:WHITE CSAF documents of ${year}`,
      names.map((name) => ({ href: `${whiteDirectoryUrl(directory)}/${year}/${name}`, label: name })),
    );
  },

  /** `<file base>.json` (the current revision's exact bytes), `.sha256`, `.sha512` or `.asc`. */
  async file(directory: string, year: string, file: string): Promise<ProviderFile> {
    const settings = await provider(directory);
    const suffix = FILE_SUFFIXES.find((candidate) => file.endsWith(`.json${candidate}`));
    const fileBase = suffix === undefined ? undefined : file.slice(0, file.length - `.json${suffix}`.length);
    const entry = fileBase ? await csafProviderStore.document(settings.teamId, fileBase) : undefined;
    if (suffix === undefined || !entry || entry.year !== year) throw new NotFoundError('CSAF document');
    const bytes = await Disclosures.readBytes(await Disclosures.get(entry.currentSlug));
    if (suffix === '') return { body: bytes, contentType: 'application/json' };
    if (suffix === '.asc') {
      const signature = await detachedSignature(entry.currentSlug);
      if (signature === null) throw new NotFoundError('Signature');
      return { body: signature, contentType: 'application/pgp-signature' };
    }
    return {
      body: checksumFile(suffix === '.sha256' ? 'sha256' : 'sha512', bytes, `${entry.fileBase}.json`),
      contentType: 'text/plain; charset=utf-8',
    };
  },

  /** Requirement 20: the team's public OpenPGP keys beside provider-metadata.json. */
  async publicKey(directory: string, file: string): Promise<ProviderFile> {
    const settings = await provider(directory);
    const key = (await providerKeys(settings.teamId)).find((candidate) => `${candidate.fingerprint}.asc` === file);
    if (!key) throw new NotFoundError('OpenPGP key');
    return { body: key.armored, contentType: 'application/pgp-keys' };
  },
};
