/**
 * Audit entries: one per mutation, written in the same transaction as the
 * change wherever the change is a single transaction. Keys support export by
 * time range, by entity type, by action, and by both (GSIs 1-3). Each entry
 * goes to one of the team's AUDIT_SHARDS partitions (by its id), in the table
 * and in each GSI, so a busy team's stream is not one hot partition; readers
 * merge the shards (shared/service/audit/audit-read.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../identity/actor';
import { keys } from '../data/keys';
import { auditShardOf } from '../data/keys/audit';
import { batchWrite, tx, type Item, type TransactItem } from '../data/table-client';

export interface AuditEvent {
  action: string;
  entityType: string;
  entityId: string;
  entityName: string;
  /** JSON summary of changed fields, e.g. `{ name: { from, to } }`. */
  changes: Record<string, unknown>;
}

export interface AuditEntry extends AuditEvent {
  id: string;
  timestamp: string;
  actorId: string;
  actorEmail: string | null;
  actorName: string;
}

/** The table and GSI keys of an entry; every one carries the entry's shard. */
export function auditKeys(
  teamId: string,
  entry: { id: string; timestamp: string; entityType: string; action: string },
): Item {
  const shard = auditShardOf(entry.id);
  const { pk, sk } = keys.audit(teamId, entry.timestamp, entry.id);
  return {
    pk,
    sk,
    ...keys.auditByEntityType(teamId, entry.entityType, shard),
    gsi1sk: sk,
    ...keys.auditByAction(teamId, entry.action, shard),
    gsi2sk: sk,
    ...keys.auditByEntityTypeAndAction(teamId, entry.entityType, entry.action, shard),
    gsi3sk: sk,
  };
}

export function auditItem(teamId: string, actor: Actor, event: AuditEvent, at = new Date().toISOString()): Item {
  const id = randomUUID();
  return {
    ...auditKeys(teamId, { id, timestamp: at, entityType: event.entityType, action: event.action }),
    entity: 'AuditEntry',
    id,
    timestamp: at,
    action: event.action,
    entityType: event.entityType,
    entityId: event.entityId,
    entityName: event.entityName,
    actorId: actor.id,
    actorEmail: actor.email,
    actorName: actor.name,
    changes: event.changes,
  };
}

/** The audit entry as a transaction item, to commit with the change it records. */
export function auditPut(teamId: string, actor: Actor, event: AuditEvent, at?: string): TransactItem {
  return tx.create(auditItem(teamId, actor, event, at));
}

/** For changes that are not one transaction (bulk writes), recorded after they succeed. */
export async function recordAudit(teamId: string, actor: Actor, events: AuditEvent[]): Promise<void> {
  await batchWrite(events.map((event) => auditItem(teamId, actor, event)));
}

export function toAuditEntry(item: Item): AuditEntry {
  return {
    id: String(item.id),
    timestamp: String(item.timestamp),
    action: String(item.action),
    entityType: String(item.entityType),
    entityId: String(item.entityId),
    entityName: typeof item.entityName === 'string' ? item.entityName : '',
    actorId: String(item.actorId),
    actorEmail: (item.actorEmail as string | null | undefined) ?? null,
    actorName: String(item.actorName),
    changes: (item.changes as Record<string, unknown> | undefined) ?? {},
  };
}

/** `{ field: { from, to } }` for the fields whose values differ. */
export function diffChanges(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const from = before[field] ?? null;
    const to = after[field] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
  }
  return changes;
}
