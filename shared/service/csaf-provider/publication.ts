/**
 * What publishing a CSAF document adds for the team's CSAF provider (docs/csaf-provider.md).
 * Every CSAF publication of one release is a revision of one CSAF document: the same
 * `tracking.id`, `tracking.version` and `revision_history` one longer each time. The entry the
 * directory serves is written in the publish transaction itself, so the provider shows a
 * revision exactly when its disclosure exists, and a failed publish leaves nothing to repair.
 */
import type { TransactItem } from '../data/table-client';
import type { VexGenerationInput } from '../vex/model';
import type { CsafVexDocument } from '../vex/formats/csaf-types';
import { csafFileBase, csafYear, newTrackingId } from './naming';
import { csafProviderStore, type CsafDocumentEntry } from './provider-store';
import { csafDocumentUrl } from './urls';

type CsafTracking = NonNullable<VexGenerationInput['document']['csafTracking']>;
type CsafDocumentFields = Pick<VexGenerationInput['document'], 'csafTracking' | 'canonicalUrl'>;

export interface CsafPublication {
  /** The generation input's `csafTracking` for this publication. */
  tracking(generatedAt: string, documentId: string, documentVersion: number): CsafTracking;
  /**
   * The generation input's CSAF fields: the tracking, and the canonical URL (optional test 6.2.11)
   * when the team runs a provider directory; without one the document has no lasting URL of that form.
   */
  documentFields(generatedAt: string, documentId: string, documentVersion: number): CsafDocumentFields;
  /** Transaction items recording the rendered revision, published as the disclosure `slug`. */
  transactItems(rendered: CsafVexDocument, disclosure: { slug: string; publishedAt: string }): TransactItem[];
}

export async function prepareCsafPublication(
  teamId: string,
  product: { slug: string; name: string },
  release: { id: string; version: string },
): Promise<CsafPublication> {
  const [previous, settings] = await Promise.all([
    csafProviderStore.documentOfRelease(teamId, release.id),
    csafProviderStore.settings(teamId),
  ]);
  const trackingId = previous?.trackingId ?? newTrackingId(product.slug, release.version, release.id);
  const version = (previous?.version ?? 0) + 1;
  const publication: CsafPublication = {
    documentFields(generatedAt, documentId, documentVersion) {
      const tracking = publication.tracking(generatedAt, documentId, documentVersion);
      if (!settings) return { csafTracking: tracking };
      const initialReleaseDate = tracking.revisions[0]?.date ?? generatedAt;
      return {
        csafTracking: tracking,
        canonicalUrl: csafDocumentUrl(settings.directory, csafYear(initialReleaseDate), csafFileBase(tracking.id)),
      };
    },
    tracking(generatedAt, documentId, documentVersion) {
      const summary =
        version === 1
          ? `Initial publication (VEX document ${documentId}, version ${documentVersion}).`
          : `Republished from the release's current dispositions (VEX document ${documentId}, version ${documentVersion}).`;
      return {
        id: trackingId,
        version,
        revisions: [
          ...(previous?.revisions ?? []).map((r) => ({ version: r.number, date: r.date, summary: r.summary })),
          { version, date: generatedAt, summary },
        ],
        ...(settings ? { publisher: settings.publisher } : {}),
      };
    },
    transactItems(rendered, disclosure) {
      const { tracking, title } = rendered.document;
      const history = tracking.revision_history;
      const entry: CsafDocumentEntry = {
        teamId,
        releaseId: release.id,
        trackingId: tracking.id,
        fileBase: csafFileBase(tracking.id),
        year: csafYear(tracking.initial_release_date),
        title,
        productName: product.name,
        initialReleaseDate: tracking.initial_release_date,
        currentReleaseDate: tracking.current_release_date,
        version: Number(tracking.version),
        revisions: history.map((revision, index) => ({
          number: Number(revision.number),
          date: revision.date,
          summary: revision.summary,
          slug: index === history.length - 1 ? disclosure.slug : (previous?.revisions[index]?.slug ?? disclosure.slug),
        })),
        currentSlug: disclosure.slug,
        publishedAt: disclosure.publishedAt,
        firstPublishedAt: previous?.firstPublishedAt ?? disclosure.publishedAt,
      };
      return csafProviderStore.publicationItems(entry, previous ? previous.version : null);
    },
  };
  return publication;
}
