/** Keys of the migrations: the old layout they read and the markers that record them done. */
import { teamPk, type Key } from './partitions';

export const migrationKeys = {
  /**
   * The key layout before id pointers and audit entries were spread (read only by the
   * migration, shared/service/data/key-layout-migration.ts): pointers in the team partition,
   * one audit partition per team (its GSI keys had no shard either).
   */
  legacyIdPointer: (teamId: string, entityId: string): Key => ({ pk: teamPk(teamId), sk: `ID#${entityId}` }),
  legacyAuditPartition: (teamId: string) => ({ pk: `${teamPk(teamId)}#AUDIT` }),
  /** Marks the key-layout migration done for this table (global; no team owns it). */
  keyLayoutMigration: (version: number): Key => ({ pk: 'MIGRATION', sk: `KEY_LAYOUT#${version}` }),
  /** Marks the move of dispositions from finding-id keys to decision keys done (shared/service/dispositions/decision-migration.ts). */
  decisionKeyMigration: (version: number): Key => ({ pk: 'MIGRATION', sk: `DECISION_KEYS#${version}` }),
  /** Marks the recording of owners on older API keys and trust policies done (shared/service/identity/credential-owner-migration.ts). */
  credentialOwnerMigration: (version: number): Key => ({ pk: 'MIGRATION', sk: `CREDENTIAL_OWNERS#${version}` }),
  /** Marks the indexing of SBOMs stored before the watch index done (shared/service/watch/watch-index-migration.ts). */
  watchIndexMigration: (version: number): Key => ({ pk: 'MIGRATION', sk: `WATCH_INDEX#${version}` }),
  /** Marks the indexing of API keys made before the expiry index done (shared/service/identity/key-expiry.ts). */
  apiKeyExpiryIndexMigration: (version: number): Key => ({ pk: 'MIGRATION', sk: `APIKEY_EXPIRY_INDEX#${version}` }),
  /** Marks the indexing of releases made before the team's release index done (shared/service/releases/release-index-migration.ts). */
  releaseIndexMigration: (version: number): Key => ({ pk: 'MIGRATION', sk: `RELEASE_INDEX#${version}` }),
  /** Marks the indexing of SBOMs stored before the team's SBOM index done (shared/service/sboms/sbom-index-migration.ts). */
  sbomIndexMigration: (version: number): Key => ({ pk: 'MIGRATION', sk: `SBOM_INDEX#${version}` }),
} as const;
