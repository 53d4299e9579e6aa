/**
 * Releases: the verbs behind /api/products/{productId}/releases and
 * /api/releases/{releaseId}. Versions are unique per product (a claim item),
 * and a locked release rejects updates inside the same transaction.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import { transactWrite, TransactionFailedError, tx, patchExpression } from '../data/table-client';
import { deleteRangeWithPointers, pointerPut } from '../data/id-pointers';
import { paginate } from '../data/paging';
import { changedFields, lostRace, retryLostRaces, RETRY, unchangedCondition } from '../data/write-races';
import { auditPut, diffChanges } from '../audit/audit-log';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { releaseLockedError } from './release-lock';
import { canonicalPurl } from '../sbom/purl';
import type { Actor } from '../identity/actor';
import type { CreateReleaseInput, ReleaseListQuery, UpdateReleaseInput } from '../schemas/releases';
// Not the Products service: its cascading delete walks a whole product, which releases never need.
import { productStore, type Product } from '../products/product-store';
import { RELEASE_FIELDS, releaseItem, releaseStore, type Release, type ResolvedRelease } from './release-store';

/** Names the release holding the version (`details[0]`: `{ path: "existing_id", message: <release id> }`), for CI's find-or-create. */
async function versionTaken(teamId: string, productId: string, version: string): Promise<ConflictError> {
  const holder = await releaseStore.findByVersion(teamId, productId, version);
  return new ConflictError(
    `Release ${version} already exists for this product${holder ? ` (release ${holder.id})` : ''}`,
    'version_taken',
    holder ? [{ path: 'existing_id', message: holder.id }] : undefined,
  );
}

function auditableFields(release: Release): Record<string, unknown> {
  return Object.fromEntries(RELEASE_FIELDS.map((field) => [field, release[field]]));
}

const PRODUCT_LIVE_CONDITION = 'attribute_exists(pk) AND attribute_not_exists(#deletingAt)';

function assertPurl(purl: string | null | undefined): void {
  if (purl && canonicalPurl(purl) === undefined) {
    throw new ValidationError('Request body failed validation', [
      { path: 'purl', message: 'must be a valid package URL (pkg:type/namespace/name@version)', code: 'invalid_purl' },
    ]);
  }
}

/** Everything under a release: its items (SBOMs, findings, dispositions and their history, VEX documents, approvals, claims, leases) with their id pointers, and its files. */
async function deleteReleaseContents(teamId: string, productId: string, releaseId: string): Promise<void> {
  await deleteRangeWithPointers(teamId, keys.releaseChildrenPrefix(teamId, productId, releaseId));
  // Loaded here, not at cold start: the S3 package is used by nothing else of the releases function.
  const { deleteSbomBucketPrefix } = await import('../data/object-prefix');
  await deleteSbomBucketPrefix(keys.releaseObjectsPrefix(teamId, productId, releaseId));
}

export const Releases = {
  async create(teamId: string, actor: Actor, productId: string, input: CreateReleaseInput): Promise<Release> {
    assertPurl(input.purl);
    const product = await productStore.getLive(teamId, productId);
    const now = new Date().toISOString();
    const release: Release = {
      id: randomUUID(),
      teamId,
      productId,
      version: input.version,
      name: input.name ?? null,
      releaseDate: input.releaseDate ?? null,
      endOfLifeDate: input.endOfLifeDate ?? null,
      notes: input.notes ?? null,
      status: input.status,
      purl: input.purl ?? null,
      createdAt: now,
      updatedAt: now,
      revision: 1,
      lockedBy: null,
      lockedAt: null,
    };
    try {
      await transactWrite([
        tx.check(keys.product(teamId, productId), PRODUCT_LIVE_CONDITION, { '#deletingAt': 'deletingAt' }),
        tx.create(releaseItem(release)),
        tx.create({
          ...keys.releaseVersionClaim(teamId, productId, release.version),
          entity: 'ReleaseVersionClaim',
          releaseId: release.id,
        }),
        pointerPut(teamId, release.id, {
          entityType: 'release',
          target: keys.release(teamId, productId, release.id),
          productId,
          releaseId: release.id,
        }),
        auditPut(
          teamId,
          actor,
          {
            action: 'create',
            entityType: 'release',
            entityId: release.id,
            entityName: `${product.name} ${release.version}`,
            changes: auditableFields(release),
          },
          now,
        ),
      ]);
    } catch (error) {
      if (error instanceof TransactionFailedError) {
        if (error.failedAt(0)) throw new NotFoundError('Product');
        if (error.failedAt(2)) throw await versionTaken(teamId, productId, release.version);
      }
      throw error;
    }
    return release;
  },

  async resolve(teamId: string, releaseId: string): Promise<ResolvedRelease> {
    const resolved = await releaseStore.resolve(teamId, releaseId);
    if (!resolved) throw new NotFoundError('Release');
    return resolved;
  },

  async get(teamId: string, releaseId: string): Promise<Release> {
    return (await Releases.resolve(teamId, releaseId)).release;
  },

  async list(teamId: string, productId: string, query: ReleaseListQuery) {
    await productStore.getLive(teamId, productId);
    if (query.version !== undefined) {
      // Exact lookup through the version claim: the page holds that one release, or nothing.
      const found = await releaseStore.findByVersion(teamId, productId, query.version);
      return paginate(found ? [found] : [], query.page, query.perPage);
    }
    const releases = (await releaseStore.listByProduct(teamId, productId)).sort(
      (a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id),
    );
    return paginate(releases, query.page, query.perPage);
  },

  /**
   * Cascading delete, like a product's (docs/api.md "Deleting releases and SBOMs"): 409 while the
   * release is locked. The first step marks the release (hiding it and everything under it from
   * readers), frees its version and writes the audit entry, in one transaction whose condition is
   * the lock; then the release's items and files go, and the release item last. A delete cut off
   * midway is finished by calling DELETE again.
   */
  async delete(teamId: string, actor: Actor, releaseId: string): Promise<void> {
    const found = await releaseStore.findForDelete(teamId, releaseId);
    if (!found) throw new NotFoundError('Release');
    const { release, product } = found;
    if (!found.deleting) {
      if (release.lockedBy) throw await releaseLockedError(teamId, release.lockedBy);
      const at = new Date().toISOString();
      try {
        await transactWrite([
          releaseStore.markDeleting(release, at),
          tx.delete(
            keys.releaseVersionClaim(teamId, product.id, release.version),
            'attribute_not_exists(pk) OR #releaseId = :releaseId',
            { '#releaseId': 'releaseId' },
            { ':releaseId': release.id },
          ),
          auditPut(
            teamId,
            actor,
            {
              action: 'delete',
              entityType: 'release',
              entityId: release.id,
              entityName: `${product.name} ${release.version}`,
              changes: auditableFields(release),
            },
            at,
          ),
        ]);
      } catch (error) {
        if (!(error instanceof TransactionFailedError)) throw error;
        // Locked, deleted or marked meanwhile: a fresh read says which.
        const now = await releaseStore.findForDelete(teamId, releaseId);
        if (!now) throw new NotFoundError('Release');
        if (!now.deleting) {
          if (now.release.lockedBy) throw await releaseLockedError(teamId, now.release.lockedBy);
          throw new ConflictError('The release changed under this delete; retry', 'concurrent_modification');
        }
      }
    }
    await deleteReleaseContents(teamId, product.id, release.id);
    await transactWrite([
      tx.delete(keys.release(teamId, product.id, release.id)),
      tx.delete(keys.idPointer(teamId, release.id)),
    ]);
    // Again: a write under the release that read it before the mark may have committed during the walk
    // (nothing commits after the release item is gone: every such write checks it exists).
    await deleteReleaseContents(teamId, product.id, release.id);
  },

  /**
   * Spec rule 3: while locked, PUT returns 409 — enforced by the write's own condition.
   * Like a product update (docs/architecture/request-path.md "Concurrent updates"): only the fields that
   * differ are written, conditioned on their values as read; a lost race is planned again.
   */
  async update(teamId: string, actor: Actor, releaseId: string, input: UpdateReleaseInput): Promise<Release> {
    assertPurl(input.purl);
    const concurrent = () =>
      new ConflictError('The release kept changing under this update; retry', 'concurrent_modification');
    let marketChange: { product: Product; before: Release; at: string } | null = null;
    const stored = await retryLostRaces(async () => {
      marketChange = null;
      const { release: current, product } = await Releases.resolve(teamId, releaseId);
      if (current.lockedBy) throw await releaseLockedError(teamId, current.lockedBy);
      const { patch, previous } = changedFields(current, input, RELEASE_FIELDS);
      if (Object.keys(patch).length === 0) return current;
      const next: Release = {
        ...current,
        ...patch,
        updatedAt: new Date().toISOString(),
        revision: current.revision + 1,
      };
      const changes = diffChanges(auditableFields(current), auditableFields(next));

      const update = patchExpression({ ...patch, updatedAt: next.updatedAt });
      const guard = unchangedCondition(previous);
      const items = [
        tx.update(
          keys.release(teamId, current.productId, releaseId),
          `${update.expression} ADD #revision :one`,
          { ...update.names, ...guard.names, '#revision': 'revision', '#lockedBy': 'lockedBy' },
          { ...update.values, ...guard.values, ':one': 1 },
          `attribute_exists(pk) AND attribute_not_exists(#lockedBy) AND ${guard.expression}`,
        ),
        tx.check(keys.product(teamId, current.productId), PRODUCT_LIVE_CONDITION, { '#deletingAt': 'deletingAt' }),
        auditPut(teamId, actor, {
          action: 'update',
          entityType: 'release',
          entityId: releaseId,
          entityName: `${product.name} ${next.version}`,
          changes,
        }),
      ];
      const versionChanged = patch.version !== undefined;
      if (versionChanged) {
        items.push(
          tx.create({
            ...keys.releaseVersionClaim(teamId, current.productId, next.version),
            entity: 'ReleaseVersionClaim',
            releaseId,
          }),
          tx.delete(keys.releaseVersionClaim(teamId, current.productId, current.version)),
        );
      }
      try {
        await transactWrite(items);
      } catch (error) {
        // Gone, locked or changed meanwhile (say, another request already set this version): a fresh read decides.
        if (lostRace(error, [0])) return RETRY;
        if (error instanceof TransactionFailedError) {
          if (error.failedAt(1)) throw new NotFoundError('Release');
          if (versionChanged && error.failedAt(3)) throw await versionTaken(teamId, current.productId, next.version);
        }
        throw error;
      }
      if (product.craInScope && (patch.status !== undefined || patch.releaseDate !== undefined))
        marketChange = { product, before: current, at: next.updatedAt };
      return (await releaseStore.resolve(teamId, releaseId))?.release ?? next;
    }, concurrent);
    const change = marketChange as { product: Product; before: Release; at: string } | null;
    if (change) {
      // Its status or date may have put it on the EU market now: its exploited findings open cases (loaded only then).
      const { CraMarketEntry } = await import('../cra/market-entry');
      await CraMarketEntry.releaseChanged(change.product, change.before, stored, change.at);
    }
    return stored;
  },
};
