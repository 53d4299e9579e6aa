/**
 * Puts releases made before the team's index of releases (`keys.releaseOfTeam`, gsi1) into it: every release item
 * without `gsi1pk` gets its index keys. Until then the dashboard would not see them.
 *
 * Runs before anything serves requests: at every local start (one GetItem once done) and, on AWS, in
 * `npm run -s admin -- table migrate --stack NAME` right after the deploy. Idempotent: a plain SET on items that
 * still exist, and the marker is written only after a complete run.
 */
import { keys } from '../data/keys';
import { updateItem } from '../data/table-client';
import { runOnce, scanPages } from '../data/table-maintenance';

/** Bump when releases need indexing again (and extend the migration). */
export const RELEASE_INDEX_VERSION = 1;

/** Indexes every release item that has no index keys yet; answers how many it indexed. */
export async function migrateReleaseIndex(): Promise<{ releases: number }> {
  let releases = 0;
  const unindexed = scanPages({
    expression: '#entity = :release AND attribute_not_exists(#gsi1pk)',
    names: { '#entity': 'entity', '#gsi1pk': 'gsi1pk' },
    values: { ':release': 'Release' },
  });
  for await (const page of unindexed) {
    for (const item of page) {
      const teamId = String(item.teamId);
      const productId = String(item.productId);
      const releaseId = String(item.id);
      const index = keys.releaseOfTeam(teamId, productId, releaseId);
      const updated = await updateItem(
        keys.release(teamId, productId, releaseId),
        'SET gsi1pk = :pk, gsi1sk = :sk',
        undefined,
        { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
        // A release deleted meanwhile is skipped (the condition fails quietly).
        'attribute_exists(pk)',
      );
      if (updated) releases += 1;
    }
  }
  return { releases };
}

/** Indexes the releases made before the index; once per table (a marker records it). */
export function ensureReleaseIndex(): Promise<{ releases: number } | undefined> {
  return runOnce(keys.releaseIndexMigration(RELEASE_INDEX_VERSION), migrateReleaseIndex);
}
