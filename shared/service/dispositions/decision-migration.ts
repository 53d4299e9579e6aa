/**
 * Moves dispositions written one per finding (`R#<r>#DISPOSITION#<findingId>`) to
 * one per decision (`R#<r>#DISPOSITION#<decisionKey>`, docs/triage-continuity.md):
 * - each gets its decision identity (from the finding it names) and its new key;
 *   its id pointer is re-targeted and its history moved along;
 * - dispositions of one release that name the same package and advisory (the same
 *   finding in two SBOMs) collapse onto one key: the most recently updated one is
 *   kept; each other one is recorded in the audit log (`merge`), its history joins
 *   the kept one's and its id pointer leads to the kept one;
 * - the product's carry-over index gets each kept decision (the latest per pair wins).
 *
 * The code reads only the new layout, so this runs before anything serves requests:
 * at every local start (one GetItem once done) and, on AWS, in
 * `npm run -s admin -- table migrate --stack NAME` right after the deploy.
 *
 * Idempotent and resumable: a release is worked off one decision at a time; the
 * history moves first (puts, then deletes), then one transaction writes the new item
 * and pointer and deletes the old item. A run cut off anywhere leaves old-layout
 * items that the next run finds and finishes. A disposition whose finding is gone
 * (it cannot be placed) is left where it is and counted as an orphan.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../aws-clients';
import { auditPut, diffChanges } from '../audit/audit-log';
import { resolvePointer } from '../data/id-pointers';
import { pointerItem } from '../data/id-pointers';
import { keys } from '../data/keys';
import {
  batchWrite,
  getItem,
  queryAll,
  transactWrite,
  TransactionFailedError,
  tx,
  type Item,
} from '../data/table-client';
import type { Actor } from '../identity/actor';
import { toFinding } from '../scans/finding-store';
import { carryIndexItem } from './carry-index';
import { decisionIdentity, type DecisionIdentity } from './decision-identity';
import { DispositionTransaction, dispositionStore, toDisposition, type Disposition } from './disposition-store';
import { dispositionPointer, fieldsOf } from './disposition-writes';

/** Bump when decisions move again (and extend the migration). */
export const DECISION_KEY_VERSION = 1;

const MIGRATION_ACTOR: Actor = { id: 'migration', name: 'decision-key migration', email: null, kind: 'operator' };

export interface DecisionKeyMigration {
  releases: number;
  dispositions: number;
  merged: number;
  orphans: number;
  /** False when the run stopped at `maxReleases` with releases possibly left. */
  complete: boolean;
}

interface ReleaseRef {
  teamId: string;
  productId: string;
  releaseId: string;
}

/** Releases holding at least one disposition without a decision key. */
async function releasesToMigrate(): Promise<ReleaseRef[]> {
  const found = new Map<string, ReleaseRef>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#entity = :disposition AND attribute_not_exists(#decisionKey)',
        ExpressionAttributeNames: {
          '#entity': 'entity',
          '#decisionKey': 'decisionKey',
          '#teamId': 'teamId',
          '#productId': 'productId',
          '#releaseId': 'releaseId',
        },
        ExpressionAttributeValues: { ':disposition': 'Disposition' },
        ProjectionExpression: '#teamId, #productId, #releaseId',
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const ref = { teamId: String(item.teamId), productId: String(item.productId), releaseId: String(item.releaseId) };
      found.set(`${ref.teamId}#${ref.releaseId}`, ref);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return [...found.values()];
}

async function identityOfLegacy(disposition: Disposition): Promise<DecisionIdentity | undefined> {
  const pointer = await resolvePointer(disposition.teamId, disposition.vulnerabilityId, 'finding');
  const item = pointer ? await getItem(pointer.target) : undefined;
  return item ? decisionIdentity(toFinding(item)) : undefined;
}

/** Moves a disposition's history entries under `decisionKey` (new copies first). */
async function moveHistory(ref: ReleaseRef, fromSegment: string, decisionKey: string): Promise<void> {
  const entries = await queryAll(keys.dispositionHistoryPrefix(ref.teamId, ref.productId, ref.releaseId, fromSegment));
  if (entries.length === 0) return;
  await batchWrite(
    entries.map((entry) => ({
      ...entry,
      ...keys.dispositionHistory(
        ref.teamId,
        ref.productId,
        ref.releaseId,
        decisionKey,
        String(entry.at),
        String(entry.changeId),
      ),
    })),
  );
  await batchWrite(
    [],
    entries.map((entry) => ({ pk: String(entry.pk), sk: String(entry.sk) })),
  );
}

/** The carry-over index keeps the latest decision of the product on each pair. */
async function indexLatest(disposition: Disposition): Promise<void> {
  if (disposition.reviewRequired) return;
  try {
    await transactWrite([
      tx.put(
        carryIndexItem(disposition),
        'attribute_not_exists(pk) OR #entry.#decidedAt < :decidedAt',
        { '#entry': 'entry', '#decidedAt': 'decidedAt' },
        { ':decidedAt': disposition.carriedFrom?.decidedAt ?? disposition.updatedAt },
      ),
    ]);
  } catch (error) {
    if (!(error instanceof TransactionFailedError)) throw error; // a later decision is indexed already
  }
}

async function migrateRelease(ref: ReleaseRef, result: DecisionKeyMigration): Promise<void> {
  const items = await dispositionStore.itemsByRelease(ref);
  const groups = new Map<
    string,
    { identity: DecisionIdentity; members: { disposition: Disposition; item: Item; legacy: boolean }[] }
  >();
  for (const item of items) {
    const disposition = toDisposition(item);
    const legacy = typeof item.decisionKey !== 'string';
    const identity = legacy
      ? await identityOfLegacy(disposition)
      : {
          decisionKey: disposition.decisionKey,
          advisoryId: disposition.advisoryId,
          packageIdentity: disposition.packageIdentity,
          packageWithoutVersion: disposition.packageWithoutVersion,
        };
    if (!identity) {
      result.orphans += 1;
      continue;
    }
    const group = groups.get(identity.decisionKey) ?? { identity, members: [] };
    group.members.push({ disposition: { ...disposition, ...identity }, item, legacy });
    groups.set(identity.decisionKey, group);
  }
  for (const { identity, members } of groups.values()) {
    if (!members.some((member) => member.legacy)) continue;
    // The most recently updated decision stands; on a tie the one already moved.
    const [kept, ...dropped] = [...members].sort(
      (a, b) => b.disposition.updatedAt.localeCompare(a.disposition.updatedAt) || Number(a.legacy) - Number(b.legacy),
    );
    if (!kept) continue;
    const survivor = kept.disposition;
    if (kept.legacy) {
      await moveHistory(ref, survivor.vulnerabilityId, identity.decisionKey);
      const { pk: _pk, sk: _sk, ...fields } = kept.item;
      // Readers keep a release's dispositions by its version: the move moves it too.
      const transaction = new DispositionTransaction();
      transaction.moveVersion(ref, { unlocked: false });
      transaction.putStored(ref, identity.decisionKey, { ...fields, ...identity });
      transaction.add(tx.put(pointerItem(ref.teamId, survivor.id, dispositionPointer(survivor))));
      transaction.delete(ref, { pk: String(kept.item.pk), sk: String(kept.item.sk) });
      await transactWrite(transaction.items());
      result.dispositions += 1;
    }
    await indexLatest(survivor);
    for (const other of dropped) {
      if (!other.legacy) continue; // only old-layout items can collide with the kept one
      await moveHistory(ref, other.disposition.vulnerabilityId, identity.decisionKey);
      const transaction = new DispositionTransaction();
      transaction.moveVersion(ref, { unlocked: false });
      transaction.add(
        tx.put(pointerItem(ref.teamId, other.disposition.id, dispositionPointer(survivor))),
        auditPut(ref.teamId, MIGRATION_ACTOR, {
          action: 'merge',
          entityType: 'disposition',
          entityId: other.disposition.id,
          entityName: `${identity.advisoryId} in ${identity.packageIdentity}`,
          changes: {
            mergedInto: { from: null, to: survivor.id },
            vulnerabilityId: other.disposition.vulnerabilityId,
            ...diffChanges(fieldsOf(other.disposition), {}),
          },
        }),
      );
      transaction.delete(ref, { pk: String(other.item.pk), sk: String(other.item.sk) });
      await transactWrite(transaction.items());
      result.merged += 1;
    }
  }
  result.releases += 1;
}

/** One pass: every release with old-layout dispositions is migrated; `maxReleases` stops early (tests of resumption, operators). */
export async function migrateDecisionKeys(options: { maxReleases?: number } = {}): Promise<DecisionKeyMigration> {
  const result: DecisionKeyMigration = { releases: 0, dispositions: 0, merged: 0, orphans: 0, complete: true };
  const releases = await releasesToMigrate();
  for (const [index, ref] of releases.entries()) {
    if (index >= (options.maxReleases ?? Number.POSITIVE_INFINITY)) {
      result.complete = false;
      break;
    }
    await migrateRelease(ref, result);
  }
  return result;
}

/** Runs the migration unless this table's marker says it is done; the marker is written after a complete run. */
export async function ensureDecisionKeys(): Promise<DecisionKeyMigration | undefined> {
  const marker = keys.decisionKeyMigration(DECISION_KEY_VERSION);
  if (await getItem(marker)) return undefined;
  const result = await migrateDecisionKeys();
  await batchWrite([{ ...marker, entity: 'Migration', completedAt: new Date().toISOString(), ...result }]);
  return result;
}
