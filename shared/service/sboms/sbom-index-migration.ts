/**
 * Puts SBOMs stored before the team's index of SBOMs (`keys.sbomOfTeam`, gsi2) into it: every SBOM item without
 * `gsi2pk` gets its index keys. Until then the dashboard would not count their findings.
 *
 * Runs before anything serves requests: at every local start (one GetItem once done) and, on AWS, in
 * `npm run -s admin -- table migrate --stack NAME` right after the deploy. Idempotent: a plain SET on items that
 * still exist, and the marker is written only after a complete run.
 */
import { keys } from '../data/keys';
import { updateItem } from '../data/table-client';
import { runOnce, scanPages } from '../data/table-maintenance';

/** Bump when SBOMs need indexing again (and extend the migration). */
export const SBOM_INDEX_VERSION = 1;

/** Indexes every SBOM item that has no index keys yet; answers how many it indexed. */
export async function migrateSbomIndex(): Promise<{ sboms: number }> {
  let sboms = 0;
  const unindexed = scanPages({
    expression: '#entity = :sbom AND attribute_not_exists(#gsi2pk)',
    names: { '#entity': 'entity', '#gsi2pk': 'gsi2pk' },
    values: { ':sbom': 'Sbom' },
  });
  for await (const page of unindexed) {
    for (const item of page) {
      const [teamId, productId, releaseId, sbomId] = [item.teamId, item.productId, item.releaseId, item.id].map(String);
      const index = keys.sbomOfTeam(teamId!, productId!, releaseId!, sbomId!);
      const updated = await updateItem(
        keys.sbom(teamId!, productId!, releaseId!, sbomId!),
        'SET gsi2pk = :pk, gsi2sk = :sk',
        undefined,
        { ':pk': index.gsi2pk, ':sk': index.gsi2sk },
        // An SBOM deleted meanwhile is skipped (the condition fails quietly).
        'attribute_exists(pk)',
      );
      if (updated) sboms += 1;
    }
  }
  return { sboms };
}

/** Indexes the SBOMs stored before the index; once per table (a marker records it). */
export function ensureSbomIndex(): Promise<{ sboms: number } | undefined> {
  return runOnce(keys.sbomIndexMigration(SBOM_INDEX_VERSION), migrateSbomIndex);
}
