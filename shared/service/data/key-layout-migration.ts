/**
 * Moves items written under the old key layout to the spread one
 * (docs/architecture/data-layout.md "Partition load"):
 * - id pointers `TEAM#<t>` / `ID#<uuid>` → `TEAM#<t>#ID#<uuid>` / `ID`;
 * - audit entries `TEAM#<t>#AUDIT` (and their unsharded GSI keys) → their shard
 *   `TEAM#<t>#AUDIT#<n>`, same sort key, GSI keys with the shard.
 *
 * The code reads only the new layout, so this runs before anything serves
 * requests: at every local start (one GetItem once done) and, on AWS, as
 * `npm run -s admin -- table migrate --stack NAME` right after the deploy.
 *
 * Idempotent and resumable: each page of the Scan puts the new items first and
 * deletes the old ones after, so an interrupted run leaves at worst both copies of
 * some items (same content; the new one is what is read) and the next run finds
 * only what is still under an old key. The marker item is written when a run
 * found nothing left, so later starts skip the Scan.
 */
import { auditKeys } from '../audit/audit-log';
import { keys, type Key } from './keys';
import { batchWrite, type Item } from './table-client';
import { runOnce, scanPages } from './table-maintenance';

/** Bump when a later change moves keys again (and extend the migration). */
export const KEY_LAYOUT_VERSION = 2;

export interface KeyLayoutMigration {
  pointers: number;
  auditEntries: number;
  /** False when the run stopped at `maxItems` with items possibly left under old keys. */
  complete: boolean;
}

const TEAM_PREFIX = keys.teamOwned().partitionPrefix;
const LEGACY_POINTER_SK_PREFIX = keys.legacyIdPointer('', '').sk;

/** The team of an old-layout key (`TEAM#<t>` with an `ID#` sort key, or `TEAM#<t>#AUDIT`), else undefined. */
function legacyOwner(item: Item): { teamId: string; kind: 'pointer' | 'audit' } | undefined {
  const { pk, sk } = item;
  if (typeof pk !== 'string' || typeof sk !== 'string' || !pk.startsWith(TEAM_PREFIX)) return undefined;
  const rest = pk.slice(TEAM_PREFIX.length);
  if (item.entity === 'IdPointer' && !rest.includes('#') && sk.startsWith(LEGACY_POINTER_SK_PREFIX))
    return { teamId: rest, kind: 'pointer' };
  if (item.entity === 'AuditEntry') {
    const teamId = rest.slice(0, rest.indexOf('#'));
    if (teamId && pk === keys.legacyAuditPartition(teamId).pk) return { teamId, kind: 'audit' };
  }
  return undefined;
}

/** The item under its new key, every other attribute unchanged. */
function moved(item: Item, owner: { teamId: string; kind: 'pointer' | 'audit' }): Item {
  if (owner.kind === 'pointer') {
    const entityId = String(item.sk).slice(LEGACY_POINTER_SK_PREFIX.length);
    return { ...item, ...keys.idPointer(owner.teamId, entityId) };
  }
  // The sort key is `<timestamp>#<id>` under both layouts, so the time order is kept.
  const [timestamp, id] = [String(item.timestamp), String(item.id)];
  return {
    ...item,
    ...auditKeys(owner.teamId, { id, timestamp, entityType: String(item.entityType), action: String(item.action) }),
  };
}

/**
 * One pass over the table: every old-layout pointer and audit entry is re-put under
 * its new key and then deleted. `maxItems` stops early (for tests of resumption and
 * for operators who want to spread the work); the result says whether it finished.
 */
export async function migrateKeyLayout(options: { maxItems?: number } = {}): Promise<KeyLayoutMigration> {
  const result: KeyLayoutMigration = { pointers: 0, auditEntries: 0, complete: true };
  const limit = options.maxItems ?? Number.POSITIVE_INFINITY;
  const moving = scanPages({
    // Only the two entities that moved; the key test (legacyOwner) picks the old-layout ones.
    expression: '#entity IN (:pointer, :audit)',
    names: { '#entity': 'entity' },
    values: { ':pointer': 'IdPointer', ':audit': 'AuditEntry' },
  });
  for await (const page of moving) {
    const puts: Item[] = [];
    const deletes: Key[] = [];
    for (const item of page) {
      const owner = legacyOwner(item);
      if (!owner) continue;
      if (result.pointers + result.auditEntries >= limit) {
        result.complete = false;
        break;
      }
      puts.push(moved(item, owner));
      deletes.push({ pk: String(item.pk), sk: String(item.sk) });
      if (owner.kind === 'pointer') result.pointers += 1;
      else result.auditEntries += 1;
    }
    // New copies first: a crash between the two leaves duplicates, never a lost item.
    await batchWrite(puts);
    await batchWrite([], deletes);
    if (!result.complete) break;
  }
  return result;
}

/** Runs the migration unless this table's marker says it is done; writes the marker after a complete run. */
export function ensureKeyLayout(): Promise<KeyLayoutMigration | undefined> {
  return runOnce(keys.keyLayoutMigration(KEY_LAYOUT_VERSION), () => migrateKeyLayout());
}
