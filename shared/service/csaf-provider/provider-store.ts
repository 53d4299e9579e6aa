/**
 * Items of a team's CSAF provider (keys in shared/service/data/keys.ts, `CSAF_PROVIDER#<teamId>`):
 * the provider settings, one entry per release whose CSAF was published (its current
 * revision and the revisions before it) and the release → entry pointer; plus the
 * deployment-wide directory-name claim.
 */
import { keys } from '../data/keys';
import { getItem, queryAll, tx, type Item, type TransactItem } from '../data/table-client';
import type { CsafPublisher } from '../schemas/csaf-provider';

export interface CsafProviderSettings {
  teamId: string;
  directory: string;
  publisher: CsafPublisher;
  updatedAt: string;
}

/** One published revision of a release's CSAF; each stays at its own immutable disclosure. */
export interface CsafRevisionEntry {
  number: number;
  date: string;
  summary: string;
  slug: string;
}

/** The current revision of a release's CSAF, as the directory serves it. */
export interface CsafDocumentEntry {
  teamId: string;
  releaseId: string;
  trackingId: string;
  /** CSAF 5.1 file name without `.json`. */
  fileBase: string;
  year: string;
  title: string;
  /** For the ROLIE category document (requirement 17). */
  productName: string;
  initialReleaseDate: string;
  currentReleaseDate: string;
  version: number;
  revisions: CsafRevisionEntry[];
  currentSlug: string;
  /** When the current revision was published (the feed's `updated`). */
  publishedAt: string;
  firstPublishedAt: string;
}

function strip<T>(item: Item): T {
  const { pk: _pk, sk: _sk, entity: _entity, ...fields } = item;
  return fields as T; // written only by this module
}

export const csafProviderStore = {
  async settings(teamId: string): Promise<CsafProviderSettings | undefined> {
    const item = await getItem(keys.csafProvider(teamId));
    return item ? strip<CsafProviderSettings>(item) : undefined;
  },

  async teamOfDirectory(directory: string): Promise<string | undefined> {
    const claim = await getItem(keys.csafDirectoryClaim(directory));
    return claim ? String(claim.teamId) : undefined;
  },

  async documents(teamId: string): Promise<CsafDocumentEntry[]> {
    return (await queryAll(keys.csafDocumentPrefix(teamId))).map((item) => strip<CsafDocumentEntry>(item));
  },

  async document(teamId: string, fileBase: string): Promise<CsafDocumentEntry | undefined> {
    const item = await getItem(keys.csafDocument(teamId, fileBase));
    return item ? strip<CsafDocumentEntry>(item) : undefined;
  },

  async documentOfRelease(teamId: string, releaseId: string): Promise<CsafDocumentEntry | undefined> {
    const pointer = await getItem(keys.csafReleaseDocument(teamId, releaseId));
    return pointer ? csafProviderStore.document(teamId, String(pointer.fileBase)) : undefined;
  },

  /**
   * Settings change: the provider item, and the directory claim moved when the name changes
   * (created only if free or already the team's; the old one released). Index 0 of the
   * returned items is the new claim when there is one, so a failed transaction names it.
   */
  settingsItems(
    teamId: string,
    current: CsafProviderSettings | undefined,
    next: Omit<CsafProviderSettings, 'teamId'> | null,
  ): { items: TransactItem[]; claimIndex: number | null } {
    const items: TransactItem[] = [];
    let claimIndex: number | null = null;
    if (next && next.directory !== current?.directory) {
      claimIndex = items.length;
      items.push(
        tx.put(
          {
            ...keys.csafDirectoryClaim(next.directory),
            entity: 'CsafDirectoryClaim',
            teamId,
            directory: next.directory,
          },
          'attribute_not_exists(pk) OR #teamId = :teamId',
          { '#teamId': 'teamId' },
          { ':teamId': teamId },
        ),
      );
    }
    if (current && current.directory !== next?.directory) {
      items.push(
        tx.delete(
          keys.csafDirectoryClaim(current.directory),
          '#teamId = :teamId',
          { '#teamId': 'teamId' },
          { ':teamId': teamId },
        ),
      );
    }
    items.push(
      next
        ? tx.put({ ...keys.csafProvider(teamId), entity: 'CsafProvider', teamId, ...next })
        : tx.delete(keys.csafProvider(teamId)),
    );
    return { items, claimIndex };
  },

  /**
   * Publication: the entry of the release's CSAF, created with its first revision or replaced
   * only if still at the version read (a concurrent publication of the same release fails the
   * transaction), and the release pointer on the first one.
   */
  publicationItems(entry: CsafDocumentEntry, previousVersion: number | null): TransactItem[] {
    const item = { ...keys.csafDocument(entry.teamId, entry.fileBase), entity: 'CsafDocument', ...entry };
    if (previousVersion === null) {
      return [
        tx.create(item),
        tx.create({
          ...keys.csafReleaseDocument(entry.teamId, entry.releaseId),
          entity: 'CsafReleaseDocument',
          fileBase: entry.fileBase,
        }),
      ];
    }
    return [tx.put(item, '#version = :previous', { '#version': 'version' }, { ':previous': previousVersion })];
  },
};
