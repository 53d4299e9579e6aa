/**
 * Puts releases made before the team's index of releases (`keys.releaseOfTeam`, gsi1) into it: every release item
 * without `gsi1pk` gets its index keys. Until then the dashboard would not see them.
 *
 * Runs before anything serves requests: at every local start (one GetItem once done) and, on AWS, in
 * `npm run -s admin -- table migrate --stack NAME` right after the deploy. Idempotent (`addIndexKeys`), and the
 * marker is written only after a complete run.
 */
import { keys } from '../data/keys';
import { addIndexKeys, runOnce } from '../data/table-maintenance';

/** Bump when releases need indexing again (and extend the migration). */
export const RELEASE_INDEX_VERSION = 1;

/** Indexes every release item that has no index keys yet; answers how many it indexed. */
export async function migrateReleaseIndex(): Promise<{ releases: number }> {
  const releases = await addIndexKeys('Release', 'gsi1', (item) => {
    const [teamId, productId, releaseId] = [item.teamId, item.productId, item.id].map(String) as [
      string,
      string,
      string,
    ];
    return { key: keys.release(teamId, productId, releaseId), index: keys.releaseOfTeam(teamId, productId, releaseId) };
  });
  return { releases };
}

/** Indexes the releases made before the index; once per table (a marker records it). */
export function ensureReleaseIndex(): Promise<{ releases: number } | undefined> {
  return runOnce(keys.releaseIndexMigration(RELEASE_INDEX_VERSION), migrateReleaseIndex);
}
