/**
 * Puts SBOMs stored before the package index (shared/service/watch/watch-index.ts) into it: every SBOM
 * item without `watchIndexedAt` gets its entries from its stored inventory, then the attribute. The
 * scan does the same for the SBOMs it scans; this covers the ones nobody rescans, so a corpus change
 * reaches them too.
 *
 * Runs before anything serves requests: at every local start (one GetItem once done) and, on AWS, in
 * `npm run -s admin -- table migrate --stack NAME` right after the deploy. Idempotent and resumable:
 * entries are plain puts, and an SBOM is marked only after its entries are written, so a run cut off
 * leaves the rest (and at worst rewrites one SBOM's entries) for the next.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { isNoSuchKey } from '../aws-s3';
import { dynamo, tableName } from '../aws-clients';
import { keys } from '../data/keys';
import { batchWrite, getItem, transactWrite, TransactionFailedError, tx } from '../data/table-client';
import { sbomStore, toSbom, type Sbom } from '../sboms/sbom-store';
import { removeSbom, watchIndexWrites } from './watch-index';

/** Bump when SBOMs need indexing again (and extend the migration). */
export const WATCH_INDEX_VERSION = 1;

export interface WatchIndexMigration {
  sboms: number;
  entries: number;
  /** False when the run stopped at `maxItems` with SBOMs possibly left unindexed. */
  complete: boolean;
}

/** Indexes one SBOM; one deleted meanwhile is skipped (whatever was written for it is removed again). */
async function indexSbom(sbom: Sbom, result: WatchIndexMigration): Promise<void> {
  let components;
  try {
    components = await sbomStore.readInventory(sbom);
  } catch (error) {
    if (isNoSuchKey(error)) return; // deleted since the Scan read it: its leftovers go with it
    throw error;
  }
  const items = await watchIndexWrites(sbom, components);
  await batchWrite(items);
  try {
    await transactWrite([
      tx.update(
        keys.sbom(sbom.teamId, sbom.productId, sbom.releaseId, sbom.id),
        'SET #watchIndexedAt = if_not_exists(#watchIndexedAt, :now)',
        { '#watchIndexedAt': 'watchIndexedAt' },
        { ':now': new Date().toISOString() },
        'attribute_exists(pk)',
      ),
    ]);
  } catch (error) {
    if (!(error instanceof TransactionFailedError)) throw error;
    await removeSbom(sbom, components);
    return;
  }
  result.sboms += 1;
  result.entries += items.length;
}

/** One pass over the table's SBOM items; `maxItems` stops early (tests of resumption, operators spreading the work). */
export async function migrateWatchIndex(options: { maxItems?: number } = {}): Promise<WatchIndexMigration> {
  const result: WatchIndexMigration = { sboms: 0, entries: 0, complete: true };
  const limit = options.maxItems ?? Number.POSITIVE_INFINITY;
  let startKey: Record<string, unknown> | undefined;
  let attempted = 0;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#entity = :sbom AND attribute_not_exists(#watchIndexedAt)',
        ExpressionAttributeNames: { '#entity': 'entity', '#watchIndexedAt': 'watchIndexedAt' },
        ExpressionAttributeValues: { ':sbom': 'Sbom' },
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      if (attempted >= limit) {
        result.complete = false;
        break;
      }
      attempted += 1;
      await indexSbom(toSbom(item), result);
    }
    startKey = result.complete ? page.LastEvaluatedKey : undefined;
  } while (startKey);
  return result;
}

/** Runs the migration unless this table's marker says it is done; writes the marker after a complete run. */
export async function ensureWatchIndex(): Promise<WatchIndexMigration | undefined> {
  const marker = keys.watchIndexMigration(WATCH_INDEX_VERSION);
  if (await getItem(marker)) return undefined;
  const result = await migrateWatchIndex();
  await batchWrite([{ ...marker, entity: 'Migration', completedAt: new Date().toISOString(), ...result }]);
  return result;
}
