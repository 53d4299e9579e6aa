/**
 * The table's one-off migrations, in the order they run: before a local start serves (bin/start.ts) and, on AWS, by
 * `admin table migrate` right after a deploy. Each records a marker when done and answers undefined from then on.
 * One list, so a new migration cannot run in one place and be forgotten in the other.
 */
import { ensureKeyLayout } from './data/key-layout-migration';
import { ensureDecisionKeys } from './dispositions/decision-migration';
import { ensureApiKeyExpiryIndex } from './identity/key-expiry';
import { ensureCredentialOwners } from './identity/credential-owner-migration';
import { ensureReleaseIndex } from './releases/release-index-migration';
import { ensureSbomIndex } from './sboms/sbom-index-migration';
import { ensureWatchIndex } from './watch/watch-index-migration';

export interface TableMigration {
  /** Its key in `admin table migrate`'s answer. */
  name: string;
  /** What a local start logs when the run changed something. */
  message: string;
  /** The run's result (undefined: done before) and how many items it changed. */
  run(): Promise<{ result: object | undefined; changed: number }>;
}

function migration<R extends object>(
  name: string,
  message: string,
  ensure: () => Promise<R | undefined>,
  changed: (result: R) => number,
): TableMigration {
  return {
    name,
    message,
    async run() {
      const result = await ensure();
      return { result, changed: result ? changed(result) : 0 };
    },
  };
}

export const TABLE_MIGRATIONS: readonly TableMigration[] = [
  // Items under the old key layout move before anything reads the table.
  migration(
    'migrated',
    'id pointers and audit entries moved to the spread key layout before serving',
    ensureKeyLayout,
    (result) => result.pointers + result.auditEntries,
  ),
  migration(
    'decisions',
    'dispositions moved to one per release, package and advisory before serving',
    ensureDecisionKeys,
    (result) => result.releases,
  ),
  migration(
    'credentialOwners',
    'API keys and trust policies made before owners were recorded got their owner before serving',
    ensureCredentialOwners,
    (result) => result.keys + result.policies + result.revokedKeys + result.deletedPolicies,
  ),
  migration(
    'apiKeyExpiryIndex',
    'API keys made before the expiry index put into it',
    ensureApiKeyExpiryIndex,
    (result) => result.keys,
  ),
  migration(
    'watchIndex',
    'SBOMs stored before the package index put into it before serving',
    ensureWatchIndex,
    (result) => result.sboms,
  ),
  migration(
    'releaseIndex',
    "releases made before the team's release index put into it",
    ensureReleaseIndex,
    (result) => result.releases,
  ),
  migration(
    'sbomIndex',
    "SBOMs stored before the team's SBOM index put into it",
    ensureSbomIndex,
    (result) => result.sboms,
  ),
];
