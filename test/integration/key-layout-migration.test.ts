/**
 * Items written under the old key layout (id pointers in the team partition, one
 * unsharded audit partition per team) are moved by shared/service/data/key-layout-migration.ts,
 * which the local start and `admin table migrate` run. The old layout is written here
 * by hand, as the code before the change wrote it.
 *
 * @whole-table-scan: its migrations scan the whole table, so it runs first (test/support/test-sequencer.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { auditItem, toAuditEntry, type AuditEvent } from '../../shared/service/audit/audit-log';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { auditCsvChunks } from '../../shared/service/audit/csv';
import { keys } from '../../shared/service/data/keys';
import { migrateKeyLayout } from '../../shared/service/data/key-layout-migration';
import { batchWrite, getItem, queryAll, type Item } from '../../shared/service/data/table-client';
import type { Actor } from '../../shared/service/identity/actor';
import { adminBundle } from '../support/server-bundle';
import { createTeamWithKey, uniqueSlug } from '../support/factories';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

/** The admin CLI against the test server's data directory (it joins the running engines). */
async function admin(...args: string[]): Promise<unknown> {
  const env = { ...process.env, DATA_DIR: process.env.VEXDESK_TEST_DATA_DIR };
  const { stdout } = await run(process.execPath, [await adminBundle(), ...args], {
    cwd: root,
    env,
  });
  return JSON.parse(stdout) as unknown;
}

const SEEDER: Actor = { id: 'seeder', name: 'seeder', email: 'seeder@example.test', kind: 'operator' };

/** An audit item as the old layout stored it: one partition per team, GSI keys without a shard. */
function legacyAuditItem(teamId: string, item: Item): Item {
  const partition = keys.legacyAuditPartition(teamId).pk;
  return {
    ...item,
    pk: partition,
    gsi1pk: `${partition}#ENTITY#${String(item.entityType)}`,
    gsi2pk: `${partition}#ACTION#${String(item.action)}`,
    gsi3pk: `${partition}#ENTITY#${String(item.entityType)}#ACTION#${String(item.action)}`,
  };
}

/** The CSV the old code returned for these items: its single partition's Query is sort-key order. */
async function csvOf(items: Item[]): Promise<string> {
  const entries = [...items].sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1)).map(toAuditEntry);
  const chunks: string[] = [];
  for await (const chunk of auditCsvChunks(entries)) chunks.push(chunk);
  return chunks.join('');
}

describe('key layout migration', () => {
  it('moves old-layout pointers and audit entries, resumes after a stop, is a no-op when repeated, and keeps the export byte for byte', async () => {
    const { api, teamId } = await createTeamWithKey();
    const product = (
      await api.post<{ data: { id: string } }>('/api/products', { name: 'Migrated', slug: uniqueSlug('migrated') })
    ).body.data;
    const release = (
      await api.post<{ data: { id: string } }>(`/api/products/${product.id}/releases`, { version: '1.0.0' })
    ).body.data;

    // The release's pointer as the old layout held it: the release is unreachable until migrated.
    const pointer = await getItem(keys.idPointer(teamId, release.id));
    expect(pointer).toBeDefined();
    await batchWrite(
      [{ ...pointer, ...keys.legacyIdPointer(teamId, release.id) }],
      [keys.idPointer(teamId, release.id)],
    );
    expect((await api.get(`/api/releases/${release.id}`)).status).toBe(404);

    // 300 old-layout entries over three days and two entity types; 10 of them also already
    // copied, as a run that crashed between its puts and its deletes leaves them.
    const events = Array.from({ length: 300 }, (_, index) => {
      const event: AuditEvent = {
        action: index % 3 === 0 ? 'create' : 'update',
        entityType: index % 2 === 0 ? 'product' : 'disposition',
        entityId: randomUUID(),
        entityName: `entity ${index}`,
        changes: { index },
      };
      return auditItem(teamId, SEEDER, event, new Date(Date.UTC(2025, 0, 1 + (index % 3), 0, 0, index)).toISOString());
    });
    await batchWrite([...events.map((item) => legacyAuditItem(teamId, item)), ...events.slice(0, 10)]);
    const current = await readAuditLog(teamId); // the team's own entries, already sharded (and the 10 copies)
    const expected = await csvOf([
      ...current.filter((item) => !events.slice(0, 10).some((event) => event.sk === item.sk)),
      ...events,
    ]);
    const expectedDispositions = await csvOf(events.filter((item) => item.entityType === 'disposition'));

    const stopped = await migrateKeyLayout({ maxItems: 50 });
    expect(stopped).toMatchObject({ complete: false });
    expect(stopped.pointers + stopped.auditEntries).toBe(50);
    const resumed = await migrateKeyLayout();
    expect(resumed).toMatchObject({ complete: true });
    expect(stopped.pointers + resumed.pointers).toBe(1);
    expect(stopped.auditEntries + resumed.auditEntries).toBe(300);
    expect(await migrateKeyLayout()).toEqual({ pointers: 0, auditEntries: 0, complete: true });

    expect(await queryAll(keys.legacyAuditPartition(teamId))).toEqual([]);
    expect(await getItem(keys.legacyIdPointer(teamId, release.id))).toBeUndefined();
    expect((await api.get(`/api/releases/${release.id}`)).status).toBe(200);
    const all = await api.get<string>(`/api/audit/export?accountId=${teamId}`);
    expect(all.status).toBe(200);
    expect(all.text).toBe(expected);
    // The GSI keys moved with their shard: a filtered export (gsi1) finds the same entries.
    const dispositions = await api.get<string>(`/api/audit/export?accountId=${teamId}&entityType=disposition`);
    expect(dispositions.text).toBe(expectedDispositions);
  });

  it('runs as the admin command: the start already migrated this table, and --max-items moves what old keys remain', async () => {
    const { api, teamId } = await createTeamWithKey();
    const product = (
      await api.post<{ data: { id: string } }>('/api/products', { name: 'Admin migrated', slug: uniqueSlug('admin') })
    ).body.data;
    const release = (
      await api.post<{ data: { id: string } }>(`/api/products/${product.id}/releases`, { version: '2.0.0' })
    ).body.data;
    const pointer = await getItem(keys.idPointer(teamId, release.id));
    await batchWrite(
      [{ ...pointer, ...keys.legacyIdPointer(teamId, release.id) }],
      [keys.idPointer(teamId, release.id)],
    );

    // The server's start wrote the marker after migrating its (empty) table.
    expect(await admin('table', 'migrate')).toEqual({
      apiKeyExpiryIndex: 'already done',
      migrated: 'already done',
      decisions: 'already done',
      credentialOwners: 'already done',
      watchIndex: 'already done',
      releaseIndex: 'already done',
      sbomIndex: 'already done',
    });
    expect(await admin('table', 'migrate', '--max-items', '10')).toEqual({
      migrated: { pointers: 1, auditEntries: 0, complete: true },
      // SBOMs of other tests not yet scanned have no package-index entries yet: up to 10 of them are indexed.
      watchIndex: expect.objectContaining({ complete: expect.any(Boolean) }),
    });
    expect((await api.get(`/api/releases/${release.id}`)).status).toBe(200);
    await expect(admin('table', 'migrate', '--max-items', '0')).rejects.toMatchObject({ code: 2 });
  }, 60_000);
});
