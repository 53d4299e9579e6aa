/** Release items: conversion, resolution by id, and the lock the VEX workflow sets. */
import type { ReleaseView } from '../schemas/releases';
import { keys } from '../data/keys';
import { getItem, getItems, onIndex, queryAll, tx, type Item, type TransactItem } from '../data/table-client';
import { resolvePointer, type PointerEntity } from '../data/id-pointers';
import { toProduct, type Product } from '../products/product-store';

export type ReleaseStatus = 'active' | 'deprecated' | 'end-of-life';

export interface Release {
  id: string;
  teamId: string;
  productId: string;
  version: string;
  name: string | null;
  releaseDate: string | null;
  endOfLifeDate: string | null;
  notes: string | null;
  status: ReleaseStatus;
  /** Package URL of the released artifact, used as the product identity in VEX documents. */
  purl: string | null;
  createdAt: string;
  updatedAt: string;
  revision: number;
  /** Id of the VEX document holding the release chain locked (spec "States and transitions" rule 2). */
  lockedBy: string | null;
  lockedAt: string | null;
}

export const RELEASE_FIELDS = ['version', 'name', 'releaseDate', 'endOfLifeDate', 'notes', 'status', 'purl'] as const;

export function toRelease(item: Item): Release {
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    productId: String(item.productId),
    version: String(item.version),
    name: (item.name as string | undefined) ?? null,
    releaseDate: (item.releaseDate as string | undefined) ?? null,
    endOfLifeDate: (item.endOfLifeDate as string | undefined) ?? null,
    notes: (item.notes as string | undefined) ?? null,
    status: (item.status as ReleaseStatus | undefined) ?? 'active',
    purl: (item.purl as string | undefined) ?? null,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    revision: Number(item.revision ?? 0),
    lockedBy: (item.lockedBy as string | undefined) ?? null,
    lockedAt: (item.lockedAt as string | undefined) ?? null,
  };
}

export function releaseItem(release: Release): Item {
  const { lockedBy: _lockedBy, lockedAt: _lockedAt, ...fields } = release;
  const item: Item = {
    ...keys.release(release.teamId, release.productId, release.id),
    ...keys.releaseOfTeam(release.teamId, release.productId, release.id),
    entity: 'Release',
  };
  for (const [field, value] of Object.entries(fields)) if (value !== null) item[field] = value;
  return item;
}

/** Releases whose SBOMs corpus changes re-evaluate: those still supported. */
export function isWatched(release: Pick<Release, 'status'>): boolean {
  return release.status !== 'end-of-life';
}

export function toReleaseView(release: Release): ReleaseView {
  return {
    id: release.id,
    productId: release.productId,
    version: release.version,
    name: release.name,
    releaseDate: release.releaseDate,
    endOfLifeDate: release.endOfLifeDate,
    notes: release.notes,
    status: release.status,
    watched: isWatched(release),
    purl: release.purl,
    is_locked: release.lockedBy !== null,
    locked_by_vex_id: release.lockedBy,
    created_at: release.createdAt,
    updated_at: release.updatedAt,
  };
}

export interface ResolvedRelease {
  release: Release;
  product: Product;
}

/** Transaction condition: the release is not locked (used by every write under the release chain). */
export const RELEASE_UNLOCKED_CONDITION = 'attribute_exists(pk) AND attribute_not_exists(#lockedBy)';

/**
 * Resolves a public id of an entity under a release (SBOM, VEX document…)
 * through the team's id pointer, reading the item, its release and its
 * product in one consistent read. Undefined for another team's id, and for
 * anything under a product whose cascading delete has started.
 */
export async function resolveUnderRelease(
  teamId: string,
  entityId: string,
  entityType: PointerEntity,
): Promise<(ResolvedRelease & { item: Item }) | undefined> {
  const pointer = await resolvePointer(teamId, entityId, entityType);
  if (!pointer) return undefined;
  const releaseKey = keys.release(teamId, pointer.productId, pointer.releaseId);
  // A transactional read may name each item once: a release is its own target.
  const isRelease = entityType === 'release';
  const found = await getItems(
    isRelease
      ? [releaseKey, keys.product(teamId, pointer.productId)]
      : [pointer.target, releaseKey, keys.product(teamId, pointer.productId)],
  );
  const [item, releaseFound, productFound] = isRelease ? [found[0], found[0], found[1]] : found;
  if (!item || !releaseFound || !productFound) return undefined;
  const product = toProduct(productFound);
  // A product or release whose cascading delete has started is gone for readers.
  if (product.deletingAt || releaseFound.deletingAt) return undefined;
  return { item, release: toRelease(releaseFound), product };
}

export const releaseStore = {
  /** By public id; undefined for another team's id or a product being deleted. */
  async resolve(teamId: string, releaseId: string): Promise<ResolvedRelease | undefined> {
    const resolved = await resolveUnderRelease(teamId, releaseId, 'release');
    return resolved && { release: resolved.release, product: resolved.product };
  },

  async listByProduct(teamId: string, productId: string): Promise<Release[]> {
    const { pk, skPrefix } = keys.releasePrefix(teamId, productId);
    return (await queryAll({ pk, skPrefix })).filter((item) => !item.deletingAt).map(toRelease);
  },

  /**
   * Every release of the team, through the team's index of releases (gsi1; eventually consistent on AWS, so a
   * release made a moment ago may be missing). Products being deleted are the caller's to leave out.
   */
  async listAllOfTeam(teamId: string): Promise<Release[]> {
    const items = await queryAll(onIndex('gsi1', keys.releasesOfTeamPartition(teamId).gsi1pk));
    return items.filter((item) => !item.deletingAt).map(toRelease);
  },

  /** The release holding `version` in its product (through the version claim), if any. */
  async findByVersion(teamId: string, productId: string, version: string): Promise<Release | undefined> {
    const claim = await getItem(keys.releaseVersionClaim(teamId, productId, version));
    if (!claim) return undefined;
    const item = await getItem(keys.release(teamId, productId, String(claim.releaseId)));
    return item && !item.deletingAt ? toRelease(item) : undefined;
  },

  /**
   * A release by id for its own delete: also while its delete is under way (a DELETE that was cut off
   * is finished by calling it again). `deleting` says whether the delete has started.
   */
  async findForDelete(
    teamId: string,
    releaseId: string,
  ): Promise<(ResolvedRelease & { deleting: boolean }) | undefined> {
    const pointer = await resolvePointer(teamId, releaseId, 'release');
    if (!pointer) return undefined;
    const [releaseFound, productFound] = await getItems([
      keys.release(teamId, pointer.productId, pointer.releaseId),
      keys.product(teamId, pointer.productId),
    ]);
    if (!releaseFound || !productFound) return undefined;
    const product = toProduct(productFound);
    if (product.deletingAt) return undefined;
    return { release: toRelease(releaseFound), product, deleting: typeof releaseFound.deletingAt === 'string' };
  },

  /** Marks a release deleted for readers (the first step of its cascading delete); fails when it is locked or already marked. */
  markDeleting(release: Pick<Release, 'teamId' | 'productId' | 'id'>, at: string): TransactItem {
    return tx.update(
      keys.release(release.teamId, release.productId, release.id),
      'SET #deletingAt = :at',
      { '#deletingAt': 'deletingAt', '#lockedBy': 'lockedBy' },
      { ':at': at },
      'attribute_exists(pk) AND attribute_not_exists(#lockedBy) AND attribute_not_exists(#deletingAt)',
    );
  },

  /** ConditionCheck that keeps a write out of a locked release chain, in the same transaction as the write. */
  unlockedCheck(release: Pick<Release, 'teamId' | 'productId' | 'id'>): TransactItem {
    return tx.check(keys.release(release.teamId, release.productId, release.id), RELEASE_UNLOCKED_CONDITION, {
      '#lockedBy': 'lockedBy',
    });
  },

  /** Sets the lock (submit); fails when another document already holds it. */
  lockItem(release: Pick<Release, 'teamId' | 'productId' | 'id'>, vexId: string, at: string): TransactItem {
    return tx.update(
      keys.release(release.teamId, release.productId, release.id),
      'SET #lockedBy = :vexId, #lockedAt = :at',
      { '#lockedBy': 'lockedBy', '#lockedAt': 'lockedAt' },
      { ':vexId': vexId, ':at': at },
      RELEASE_UNLOCKED_CONDITION,
    );
  },

  /** Clears the lock (reject, unlock); only the holder's id clears it. */
  unlockItem(release: Pick<Release, 'teamId' | 'productId' | 'id'>, vexId: string): TransactItem {
    return tx.update(
      keys.release(release.teamId, release.productId, release.id),
      'REMOVE #lockedBy, #lockedAt',
      { '#lockedBy': 'lockedBy', '#lockedAt': 'lockedAt' },
      { ':vexId': vexId },
      'attribute_exists(pk) AND #lockedBy = :vexId',
    );
  },
};
