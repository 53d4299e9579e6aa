/**
 * Keys of products and releases: the product items and slug claims in the team partition, the
 * product's own collection and list index, the id pointers and the release items.
 */
import { productPk, releasePrefix, teamPk, type Key } from './partitions';

const productListPk = (teamId: string) => `TEAM#${teamId}#PRODUCTS`;

export const productKeys = {
  product: (teamId: string, productId: string): Key => ({ pk: teamPk(teamId), sk: `PRODUCT#${productId}` }),
  productPrefix: (teamId: string) => ({ pk: teamPk(teamId), skPrefix: 'PRODUCT#' }),
  productSlugClaim: (teamId: string, slug: string): Key => ({ pk: teamPk(teamId), sk: `PRODUCT_SLUG#${slug}` }),
  /** The partition holding everything under a product (walked by the cascading delete). */
  productCollection: (teamId: string, productId: string) => ({ pk: productPk(teamId, productId) }),
  /**
   * Live products of a team and whether its list index is built (docs/architecture/lists-and-caches.md "Product list at scale").
   * At the head of the index partition: `~` sorts after every timestamp, so the descending Query of a
   * page returns the count first and the total costs no extra request.
   */
  productCount: (teamId: string): Key => ({ pk: productListPk(teamId), sk: '~COUNT' }),
  /** The list's ordered index: one small entry per live product, sorted by creation time (the list reads it newest first). */
  productListEntry: (teamId: string, createdAt: string, productId: string): Key => ({
    pk: productListPk(teamId),
    sk: `${createdAt}#${productId}`,
  }),
  productListPartition: (teamId: string) => ({ pk: productListPk(teamId) }),
  /** The product id an index entry's sort key names. */
  productIdOfListEntry: (sk: string): string => sk.slice(sk.lastIndexOf('#') + 1),

  /**
   * Resolves a public uuid (release, SBOM, finding, disposition, VEX document) to its item.
   * Its own partition, under the team's prefix (tenant guard and LeadingKeys still apply).
   */
  idPointer: (teamId: string, entityId: string): Key => ({ pk: `${teamPk(teamId)}#ID#${entityId}`, sk: 'ID' }),

  release: (teamId: string, productId: string, releaseId: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `RELEASE#${releaseId}`,
  }),
  releasePrefix: (teamId: string, productId: string) => ({ pk: productPk(teamId, productId), skPrefix: 'RELEASE#' }),
  /**
   * A release item's entry in the team's index of releases (gsi1): the dashboard reads every release of the team in
   * one query instead of one per product. On the release item itself, so a status change or a delete needs no
   * second write.
   */
  releaseOfTeam: (teamId: string, productId: string, releaseId: string) => ({
    gsi1pk: `${teamPk(teamId)}#RELEASES`,
    gsi1sk: `${productId}#${releaseId}`,
  }),
  releasesOfTeamPartition: (teamId: string) => ({ gsi1pk: `${teamPk(teamId)}#RELEASES` }),
  releaseVersionClaim: (teamId: string, productId: string, version: string): Key => ({
    pk: productPk(teamId, productId),
    sk: `RELEASE_VERSION#${version}`,
  }),
  /** Everything that belongs to one release (SBOMs, findings, dispositions, VEX documents). */
  releaseChildrenPrefix: (teamId: string, productId: string, releaseId: string) => ({
    pk: productPk(teamId, productId),
    skPrefix: releasePrefix(releaseId),
  }),
  productObjectsPrefix: (teamId: string, productId: string) => `teams/${teamId}/products/${productId}/`,
  releaseObjectsPrefix: (teamId: string, productId: string, releaseId: string) =>
    `teams/${teamId}/products/${productId}/releases/${releaseId}/`,
} as const;
