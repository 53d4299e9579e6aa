/**
 * Keys of the watch: the package index (shared/service/watch/watch-index.ts), the finding indexes by
 * advisory and CVE (sparse entries on finding items, gsi2 and gsi3) and the team's daily dashboard
 * snapshots.
 */
import { teamPk, type Key } from './partitions';

/** `<ecosystem>\u0000<name>` package keys read as `<ecosystem>#<name>` in a partition key. */
const printable = (indexKey: string) => indexKey.split('\u0000').join('#');

export const watchKeys = {
  /**
   * One SBOM's entry for one package identity. The partition is global (every team's SBOMs with the
   * package) and sharded by SBOM, so a package in most SBOMs is not one hot partition; the team id
   * leads the sort key, so one team's entries are one key condition.
   */
  watchEntry: (indexKey: string, shard: number, teamId: string, sbomId: string): Key => ({
    pk: `WATCH#PKG#${printable(indexKey)}#${shard}`,
    sk: `${teamId}#${sbomId}`,
  }),
  watchShard: (indexKey: string, shard: number) => ({ pk: `WATCH#PKG#${printable(indexKey)}#${shard}` }),
  /**
   * That some SBOM (of any team) was indexed under the key in this shard: a large corpus change names
   * thousands of packages, most in no SBOM, and a package in few SBOMs has entries in few shards, so one
   * batched read of these spares the shard queries that would find nothing.
   */
  watchShardPresence: (indexKey: string, shard: number): Key => ({
    pk: `WATCH#KEY#${printable(indexKey)}`,
    sk: `SHARD#${shard}`,
  }),
  /**
   * The presence item of the layout before shard presence: some SBOM was indexed under the key, in any
   * shard. No longer written; where one is stored, every shard of the key is read.
   */
  watchKeyPresence: (indexKey: string): Key => ({ pk: `WATCH#KEY#${printable(indexKey)}`, sk: 'KEY' }),
  /** That any SBOM was ever indexed: until then (a first start loading its corpus) a change re-evaluates nothing. */
  watchAnySbom: (): Key => ({ pk: 'WATCH#ANY', sk: 'ANY' }),
  watchTeamPrefix: (teamId: string) => ({ skPrefix: `${teamId}#` }),
  /** A finding's entry in the index by advisory (gsi2), sorted by product, release, SBOM. */
  findingByAdvisory: (teamId: string, advisoryId: string, productId: string, sortKey: string) => ({
    gsi2pk: `${teamPk(teamId)}#FINDING_ADV#${advisoryId}`,
    gsi2sk: `${productId}#${sortKey}`,
  }),
  /** A finding's entry in the index by CVE (gsi3), when its CVE is not its advisory id. */
  findingByCve: (teamId: string, cveId: string, productId: string, sortKey: string) => ({
    gsi3pk: `${teamPk(teamId)}#FINDING_CVE#${cveId}`,
    gsi3sk: `${productId}#${sortKey}`,
  }),
  findingByAdvisoryPartition: (teamId: string, advisoryId: string) => ({
    gsi2pk: `${teamPk(teamId)}#FINDING_ADV#${advisoryId}`,
  }),
  findingByCvePartition: (teamId: string, cveId: string) => ({ gsi3pk: `${teamPk(teamId)}#FINDING_CVE#${cveId}` }),
  /** The team's open-finding counts of one UTC day (`YYYY-MM-DD`), written once that day. */
  dashboardSnapshot: (teamId: string, day: string): Key => ({ pk: `${teamPk(teamId)}#DASHBOARD`, sk: `DAY#${day}` }),
  dashboardSnapshotRange: (teamId: string, fromDay: string, toDay: string) => ({
    pk: `${teamPk(teamId)}#DASHBOARD`,
    skBetween: [`DAY#${fromDay}`, `DAY#${toDay}`] as [string, string],
  }),
} as const;
