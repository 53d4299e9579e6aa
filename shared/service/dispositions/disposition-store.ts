/**
 * Disposition items, one per (release, package at version, advisory) — keyed by
 * `decisionKey` (decision-identity.ts) — and their change history.
 */
import { keys, type Key } from '../data/keys';
import { getItem, queryAll, tx, type Item, type TransactItem } from '../data/table-client';
import { resolvePointer } from '../data/id-pointers';
import { RELEASE_UNLOCKED_CONDITION } from '../releases/release-store';
import { dispositionCache, type CachedDispositions } from './disposition-cache';
import type { VexFormat } from '../schemas/vex';
import type { Decision, DispositionResponse, DispositionStatus, Justification } from './vocabulary';

/** The fields a member writes (and history and audit diff); `expiresAt` included. */
export const DISPOSITION_FIELDS = [
  'status',
  'justification',
  'response',
  'detail',
  'actionStatement',
  'impactStatement',
  'assignedTo',
  'expiresAt',
] as const;
export type DispositionField = (typeof DISPOSITION_FIELDS)[number];

export interface Disposition extends Decision {
  id: string;
  teamId: string;
  productId: string;
  releaseId: string;
  /** The finding named when the decision was created (spec field); the decision itself is on `decisionKey`. */
  vulnerabilityId: string;
  /** What the decision is about: (package at version, advisory) within the release. */
  decisionKey: string;
  advisoryId: string;
  packageIdentity: string;
  /** The package without its version: what `any_version` carry-over matches on. */
  packageWithoutVersion: string;
  assignedTo: string | null;
  /** When the disposition first became final (the SLA clock stops here); null while it is not final. */
  decidedAt: string | null;
  createdAt: string;
  updatedAt: string;
  updatedBy: { id: string; name: string };
  revision: number;
  /** After this instant the decision counts as undecided; null = no expiry. */
  expiresAt: string | null;
  /** A decision carried from another package version waits for a member's confirmation; it counts as undecided until then. */
  reviewRequired: boolean;
  /** Where a carried decision came from; null for a decision made in this release. */
  carriedFrom: CarriedFrom | null;
  /** The VEX document an import took this decision from; null once a member changes the decision. */
  importedFrom: ImportedFrom | null;
}

export interface ImportedFrom {
  documentSha256: string;
  author: string | null;
  format: VexFormat;
  importedAt: string;
}

export interface CarriedFrom {
  releaseId: string;
  releaseVersion: string;
  dispositionId: string;
  decidedBy: { id: string; name: string };
  decidedAt: string;
}

export interface DispositionChange {
  changeId: string;
  at: string;
  actor: { id: string; name: string; email: string | null };
  changes: Record<string, { from: unknown; to: unknown }>;
}

/** Not exported: a disposition item is written only through `DispositionTransaction`, which moves its release's dispositions version. */
function dispositionItem(disposition: Disposition): Item {
  const item: Item = {
    ...keys.disposition(disposition.teamId, disposition.productId, disposition.releaseId, disposition.decisionKey),
    entity: 'Disposition',
  };
  for (const [field, value] of Object.entries(disposition)) if (value !== null) item[field] = value;
  return item;
}

export function toDisposition(item: Item): Disposition {
  const nullable = (field: string) => (item[field] as string | undefined) ?? null;
  const text = (field: string) => nullable(field) ?? '';
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    productId: String(item.productId),
    releaseId: String(item.releaseId),
    vulnerabilityId: String(item.vulnerabilityId),
    // Absent only on an item the decision-key migration has not moved yet.
    decisionKey: text('decisionKey'),
    advisoryId: text('advisoryId'),
    packageIdentity: text('packageIdentity'),
    packageWithoutVersion: text('packageWithoutVersion'),
    status: item.status as DispositionStatus,
    justification: nullable('justification') as Justification | null,
    response: nullable('response') as DispositionResponse | null,
    detail: nullable('detail'),
    actionStatement: nullable('actionStatement'),
    impactStatement: nullable('impactStatement'),
    assignedTo: nullable('assignedTo'),
    decidedAt: nullable('decidedAt'),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    updatedBy: item.updatedBy as Disposition['updatedBy'],
    revision: Number(item.revision ?? 1),
    expiresAt: nullable('expiresAt'),
    reviewRequired: item.reviewRequired === true,
    carriedFrom: (item.carriedFrom as CarriedFrom | undefined) ?? null,
    importedFrom: (item.importedFrom as ImportedFrom | undefined) ?? null,
  };
}

export interface ReleaseRef {
  teamId: string;
  productId: string;
  releaseId: string;
}

/**
 * The release item's attributes that version its dispositions (docs/architecture/lists-and-caches.md "Reading a
 * release's findings"): `dispositionsVersion` moves in the same transaction as every disposition
 * write; `dispositionsBulk_<id>` marks a bulk writer (carry-over) in flight until the time it holds.
 */
const VERSION_ATTRIBUTE = 'dispositionsVersion';
const BULK_PREFIX = 'dispositionsBulk_';

const refKey = (ref: ReleaseRef) => `${ref.teamId}/${ref.releaseId}`;

/**
 * The items of one transaction that writes dispositions. Every disposition item is written
 * through it (the item builder is private to this module), and `items()` refuses a transaction
 * that writes a disposition of a release whose version it does not move: a write path cannot
 * forget the move that keeps the per-process cache of the release's dispositions current.
 */
export class DispositionTransaction {
  private readonly list: TransactItem[] = [];
  private readonly moved = new Set<string>();
  private readonly written = new Set<string>();

  /** Index of the next item added (callers map cancellation reasons to their items). */
  get length(): number {
    return this.list.length;
  }

  /**
   * Moves the release's dispositions version. `unlocked` conditions it on the release being
   * unlocked (spec rules 2-3: every member, batch or import write); without it (a batch's
   * rollback, a migration) it only requires the release to exist. Returns the item's index.
   */
  moveVersion(ref: ReleaseRef, options: { unlocked: boolean }): number {
    if (this.moved.has(refKey(ref)))
      throw new Error(`release ${ref.releaseId}: its dispositions version is already moved in this transaction`);
    this.moved.add(refKey(ref));
    this.list.push(
      tx.update(
        keys.release(ref.teamId, ref.productId, ref.releaseId),
        'ADD #version :one',
        { '#version': VERSION_ATTRIBUTE, ...(options.unlocked ? { '#lockedBy': 'lockedBy' } : {}) },
        { ':one': 1 },
        options.unlocked ? RELEASE_UNLOCKED_CONDITION : 'attribute_exists(pk)',
      ),
    );
    return this.list.length - 1;
  }

  /**
   * Instead of a version move, for a bulk writer's transaction: the release is unlocked and the
   * writer's bracket (`dispositionBulk.start`) is still open, so `bulkEnd` moves the version after
   * this commits. A check, not a write: parallel bulk transactions do not conflict on the release.
   */
  underBulk(ref: ReleaseRef, writerId: string): number {
    if (this.moved.has(refKey(ref))) throw new Error(`release ${ref.releaseId}: already covered in this transaction`);
    this.moved.add(refKey(ref));
    this.list.push(
      tx.check(
        keys.release(ref.teamId, ref.productId, ref.releaseId),
        `${RELEASE_UNLOCKED_CONDITION} AND attribute_exists(#bulk)`,
        { '#lockedBy': 'lockedBy', '#bulk': `${BULK_PREFIX}${writerId}` },
      ),
    );
    return this.list.length - 1;
  }

  /** Writes the whole disposition, optionally conditioned. */
  put(
    disposition: Disposition,
    extra: Item = {},
    condition?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> },
  ): number {
    this.written.add(refKey(disposition));
    this.list.push(
      tx.put({ ...dispositionItem(disposition), ...extra }, condition?.expression, condition?.names, condition?.values),
    );
    return this.list.length - 1;
  }

  /** Creates the disposition; fails when the pair already has one. */
  create(disposition: Disposition): number {
    return this.put(disposition, {}, { expression: 'attribute_not_exists(pk)' });
  }

  /** Moves a stored item as it is (the decision-key migration) onto its decision's key. */
  putStored(ref: ReleaseRef, decisionKey: string, fields: Item): number {
    this.written.add(refKey(ref));
    this.list.push(tx.put({ ...fields, ...keys.disposition(ref.teamId, ref.productId, ref.releaseId, decisionKey) }));
    return this.list.length - 1;
  }

  delete(
    ref: ReleaseRef,
    key: Key,
    condition?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> },
  ): number {
    this.written.add(refKey(ref));
    this.list.push(tx.delete(key, condition?.expression, condition?.names, condition?.values));
    return this.list.length - 1;
  }

  /** Any other item of the transaction (history, audit, pointer, index, batch marks). */
  add(...items: TransactItem[]): this {
    this.list.push(...items);
    return this;
  }

  items(): TransactItem[] {
    const unmoved = [...this.written].filter((release) => !this.moved.has(release));
    if (unmoved.length > 0)
      throw new Error(`disposition write without its release's dispositions version move (${unmoved.join(', ')})`);
    return this.list;
  }
}

/** The key of a stored disposition item (reads and conditions; writes go through DispositionTransaction). */
export function dispositionKey(ref: ReleaseRef, decisionKey: string): Key {
  return keys.disposition(ref.teamId, ref.productId, ref.releaseId, decisionKey);
}

/**
 * Bulk writers (carry-over) write many dispositions outside one transaction. They bracket the
 * writes: `bulkStart` moves the version and marks the release while they run (readers do not
 * cache then), `bulkEnd` moves it again and clears the mark. A writer that dies leaves its mark,
 * which lapses at `until` (after which nothing of that writer can still be running).
 */
export const dispositionBulk = {
  /** Whether a writer of this id left its bracket open (it died: the same id is only reused by its retry). */
  leftOpen(release: Item | undefined, writerId: string): boolean {
    return release !== undefined && release[`${BULK_PREFIX}${writerId}`] !== undefined;
  },
  start(ref: ReleaseRef, writerId: string, until: string): TransactItem {
    return tx.update(
      keys.release(ref.teamId, ref.productId, ref.releaseId),
      'ADD #version :one SET #bulk = :until',
      { '#version': VERSION_ATTRIBUTE, '#bulk': `${BULK_PREFIX}${writerId}`, '#lockedBy': 'lockedBy' },
      { ':one': 1, ':until': until },
      RELEASE_UNLOCKED_CONDITION,
    );
  },
  end(ref: ReleaseRef, writerId: string): TransactItem {
    return tx.update(
      keys.release(ref.teamId, ref.productId, ref.releaseId),
      'ADD #version :one REMOVE #bulk',
      { '#version': VERSION_ATTRIBUTE, '#bulk': `${BULK_PREFIX}${writerId}` },
      { ':one': 1 },
      'attribute_exists(pk)',
    );
  },
};

/** The version to cache the release's dispositions under, or undefined when they must be read fresh (a bulk writer in flight, the release gone or being deleted). */
function cacheVersion(release: Item | undefined, now: string): number | undefined {
  if (!release || release.deletingAt !== undefined) return undefined;
  for (const [attribute, value] of Object.entries(release)) {
    if (attribute.startsWith(BULK_PREFIX) && typeof value === 'string' && value > now) return undefined;
  }
  return Number(release[VERSION_ATTRIBUTE] ?? 0);
}

async function readByRelease(ref: ReleaseRef): Promise<Disposition[]> {
  const { pk, skPrefix } = keys.dispositionPrefix(ref.teamId, ref.productId, ref.releaseId);
  return (await queryAll({ pk, skPrefix })).map(toDisposition);
}

export const dispositionStore = {
  async findByDecision(
    teamId: string,
    productId: string,
    releaseId: string,
    decisionKey: string,
  ): Promise<Disposition | undefined> {
    const item = await getItem(dispositionKey({ teamId, productId, releaseId }, decisionKey));
    return item ? toDisposition(item) : undefined;
  },

  async resolve(teamId: string, dispositionId: string): Promise<Disposition | undefined> {
    const pointer = await resolvePointer(teamId, dispositionId, 'disposition');
    if (!pointer) return undefined;
    const item = await getItem(pointer.target);
    return item ? toDisposition(item) : undefined;
  },

  /**
   * Every disposition of the release. The release item is read first (strongly consistent) and
   * the set is kept per process under its dispositions version, so the answer is never older
   * than the last disposition write committed before this call. Callers must not mutate it.
   */
  async listByRelease(teamId: string, productId: string, releaseId: string): Promise<CachedDispositions> {
    return dispositionStore.listByReleaseAt(
      { teamId, productId, releaseId },
      await getItem(keys.release(teamId, productId, releaseId)),
    );
  },

  /**
   * As `listByRelease`, given the release item the caller read strongly consistent (one batched read for many
   * releases): the set is never older than the last disposition write committed before that read.
   */
  async listByReleaseAt(ref: ReleaseRef, release: Item | undefined): Promise<CachedDispositions> {
    const version = cacheVersion(release, new Date().toISOString());
    if (version === undefined) return readByRelease(ref);
    return dispositionCache.get(ref.teamId, ref.releaseId, version, () => readByRelease(ref));
  },

  /** Stored items of the release's dispositions as they are (the decision-key migration reads the old layout). */
  async itemsByRelease(ref: ReleaseRef): Promise<Item[]> {
    return queryAll(keys.dispositionPrefix(ref.teamId, ref.productId, ref.releaseId));
  },

  async history(disposition: Disposition): Promise<DispositionChange[]> {
    const { pk, skPrefix } = keys.dispositionHistoryPrefix(
      disposition.teamId,
      disposition.productId,
      disposition.releaseId,
      disposition.decisionKey,
    );
    return (await queryAll({ pk, skPrefix })).map((item) => ({
      changeId: String(item.changeId),
      at: String(item.at),
      actor: item.actor as DispositionChange['actor'],
      changes: item.changes as DispositionChange['changes'],
    }));
  },
};
