/**
 * Puts SBOMs stored before the team's index of SBOMs (`keys.sbomOfTeam`, gsi2) into it: every SBOM item without
 * `gsi2pk` gets its index keys. Until then the dashboard would not count their findings.
 *
 * Runs before anything serves requests: at every local start (one GetItem once done) and, on AWS, in
 * `npm run -s admin -- table migrate --stack NAME` right after the deploy. Idempotent (`addIndexKeys`), and the
 * marker is written only after a complete run.
 */
import { keys } from '../data/keys';
import { addIndexKeys, runOnce } from '../data/table-maintenance';

/** Bump when SBOMs need indexing again (and extend the migration). */
export const SBOM_INDEX_VERSION = 1;

/** Indexes every SBOM item that has no index keys yet; answers how many it indexed. */
export async function migrateSbomIndex(): Promise<{ sboms: number }> {
  const sboms = await addIndexKeys('Sbom', 'gsi2', (item) => {
    const [teamId, productId, releaseId, sbomId] = [item.teamId, item.productId, item.releaseId, item.id].map(
      String,
    ) as [string, string, string, string];
    return {
      key: keys.sbom(teamId, productId, releaseId, sbomId),
      index: keys.sbomOfTeam(teamId, productId, releaseId, sbomId),
    };
  });
  return { sboms };
}

/** Indexes the SBOMs stored before the index; once per table (a marker records it). */
export function ensureSbomIndex(): Promise<{ sboms: number } | undefined> {
  return runOnce(keys.sbomIndexMigration(SBOM_INDEX_VERSION), migrateSbomIndex);
}
