/** Keys of a team's audit log: the shard of an entry, its partitions and the GSI keys of its filters. */
import { hash } from 'node:crypto';
import type { Key } from './partitions';

/**
 * Write shards of a team's audit log. DynamoDB serves about 1,000 writes per second
 * per partition (base table and each GSI); eight shards carry 8,000, and an export
 * reads eight sorted ranges and merges them. Changing the number re-homes existing
 * entries: it needs a migration like shared/service/data/key-layout-migration.ts.
 */
export const AUDIT_SHARDS = 8;

/** The shard of an audit entry: stable for its id, uniform over AUDIT_SHARDS. */
export function auditShardOf(auditId: string): number {
  return hash('sha256', auditId, 'buffer').readUInt32BE(0) % AUDIT_SHARDS;
}

const auditShards = Array.from({ length: AUDIT_SHARDS }, (_, shard) => shard);

const auditPk = (teamId: string, shard: number) => `TEAM#${teamId}#AUDIT#${shard}`;

export const auditKeys = {
  audit: (teamId: string, at: string, auditId: string): Key => ({
    pk: auditPk(teamId, auditShardOf(auditId)),
    sk: `${at}#${auditId}`,
  }),
  /** Every shard of the team's audit log (a reader merges them in sort-key order). */
  auditPartitions: (teamId: string) => auditShards.map((shard) => ({ pk: auditPk(teamId, shard) })),
  auditByEntityType: (teamId: string, entityType: string, shard: number) => ({
    gsi1pk: `${auditPk(teamId, shard)}#ENTITY#${entityType}`,
  }),
  auditByAction: (teamId: string, action: string, shard: number) => ({
    gsi2pk: `${auditPk(teamId, shard)}#ACTION#${action}`,
  }),
  auditByEntityTypeAndAction: (teamId: string, entityType: string, action: string, shard: number) => ({
    gsi3pk: `${auditPk(teamId, shard)}#ENTITY#${entityType}#ACTION#${action}`,
  }),
} as const;
