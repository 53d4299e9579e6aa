/**
 * Dispositions written one per finding (the layout before issue 13) are moved to one
 * per (release, package, advisory) by shared/service/dispositions/decision-migration.ts, which
 * the local start and `admin table migrate` run. The old layout is written here by
 * hand, as the code before the change wrote it.
 *
 * @whole-table-scan: its migration scans the whole table, so it runs first (test/support/test-sequencer.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { keys } from '../../shared/service/data/keys';
import { batchWrite, getItem, queryAll, type Item } from '../../shared/service/data/table-client';
import { migrateDecisionKeys } from '../../shared/service/dispositions/decision-migration';
import { createTeamWithKey } from '../support/factories';
import { cycloneDxSbom, seedReleaseWithFindings } from '../support/seed';

const IDENTITY_FIELDS = ['decisionKey', 'advisoryId', 'packageIdentity', 'packageWithoutVersion'];

/** Rewrites a disposition (and its history and pointer) as the old layout stored it, under `findingId`. */
async function toLegacy(item: Item, findingId: string, overrides: Item = {}): Promise<Item> {
  const { teamId, productId, releaseId } = item as { teamId: string; productId: string; releaseId: string };
  const legacy: Item = {
    ...Object.fromEntries(Object.entries(item).filter(([field]) => !IDENTITY_FIELDS.includes(field))),
    ...overrides,
    vulnerabilityId: findingId,
    ...keys.disposition(teamId, productId, releaseId, findingId),
  };
  const history = await queryAll(keys.dispositionHistoryPrefix(teamId, productId, releaseId, String(item.decisionKey)));
  const pointer = await getItem(keys.idPointer(teamId, String(item.id)));
  await batchWrite(
    [
      legacy,
      ...history.map((entry) => ({
        ...entry,
        ...keys.dispositionHistory(teamId, productId, releaseId, findingId, String(entry.at), String(entry.changeId)),
      })),
      ...(pointer ? [{ ...pointer, target: { pk: legacy.pk, sk: legacy.sk }, vulnerabilityId: findingId }] : []),
    ],
    [
      { pk: String(item.pk), sk: String(item.sk) },
      keys.decisionCarry(teamId, productId, String(item.decisionKey)),
      ...history.map((entry) => ({ pk: String(entry.pk), sk: String(entry.sk) })),
    ],
  );
  return legacy;
}

describe('decision-key migration', () => {
  it('re-keys old dispositions, merges two that name one package and advisory (the latest wins, audited), moves history and pointers, and is a no-op when repeated', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { product, release, sbom, findings } = await seedReleaseWithFindings(api, teamId, 2);
    // A second SBOM of the release with the first package: its finding names the same decision.
    const content = cycloneDxSbom([
      { name: findings[0]!.componentName, version: '1.0.0', purl: `pkg:npm/${findings[0]!.componentName}@1.0.0` },
    ]);
    const second = (await api.post('/api/sboms/upload', { releaseId: release.id, content, fileName: 'second.json' }))
      .body.data;
    expect((await api.post('/api/cve-scan', { sbomId: second.id })).status).toBe(202);
    const secondFinding = (await api.get(`/api/sboms/${second.id}/vulnerabilities`)).body.data[0].id as string;

    const older = (
      await api.post('/api/dispositions', {
        vulnerabilityId: findings[0]!.id,
        status: 'not_affected',
        justification: 'component_not_present',
      })
    ).body.data;
    const other = (await api.post('/api/dispositions', { vulnerabilityId: findings[1]!.id, status: 'fixed' })).body
      .data;
    const stored = await queryAll(keys.dispositionPrefix(teamId, product.id, release.id));
    expect(stored).toHaveLength(2);
    const olderItem = stored.find((item) => item.id === older.id)!;
    await toLegacy(olderItem, findings[0]!.id);
    await toLegacy(
      stored.find((item) => item.id === other.id)!,
      findings[1]!.id,
    );
    // The old layout allowed a second disposition on the other SBOM's finding; it was updated later.
    const newerId = randomUUID();
    const later = new Date(Date.now() + 1000).toISOString();
    const { justification: _justification, ...withoutJustification } = olderItem;
    await toLegacy(
      { ...withoutJustification, id: newerId, status: 'affected', response: 'update', updatedAt: later, revision: 1 },
      secondFinding,
    );
    await batchWrite([
      {
        ...keys.idPointer(teamId, newerId),
        entity: 'IdPointer',
        entityType: 'disposition',
        target: keys.disposition(teamId, product.id, release.id, secondFinding),
        productId: product.id,
        releaseId: release.id,
        vulnerabilityId: secondFinding,
      },
    ]);
    // Before the migration the old items are not found by decision.
    expect((await api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).body.summary.withoutDisposition).toBe(2);

    const result = await migrateDecisionKeys();
    expect(result).toMatchObject({ dispositions: 2, merged: 1, orphans: 0, complete: true });
    expect(result.releases).toBeGreaterThanOrEqual(1);
    expect(await migrateDecisionKeys()).toEqual({
      releases: 0,
      dispositions: 0,
      merged: 0,
      orphans: 0,
      complete: true,
    });

    const after = await queryAll(keys.dispositionPrefix(teamId, product.id, release.id));
    expect(after.map((item) => item.id).sort()).toEqual([newerId, other.id].sort());
    expect(
      after.every((item) => typeof item.decisionKey === 'string' && String(item.sk).endsWith(String(item.decisionKey))),
    ).toBe(true);
    const first = (await api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).body;
    expect(first.summary).toMatchObject({ withoutDisposition: 0, affected: 1, fixed: 1 });
    expect((await api.get(`/api/sboms/${second.id}/vulnerabilities`)).body.data[0].disposition).toMatchObject({
      id: newerId,
      status: 'affected',
    });
    // The merged disposition's id leads to the one kept; its history came along.
    const merged = await api.get(`/api/dispositions/${older.id}`);
    expect(merged.status).toBe(200);
    expect(merged.body.data.id).toBe(newerId);
    expect(merged.body.data.history).toHaveLength(1); // the merged one's creation (the kept one was written without history here)
    expect((await api.get(`/api/dispositions/${other.id}`)).body.data.history).toHaveLength(1);
    const audit = await readAuditLog(teamId);
    expect(audit.find((entry) => entry.action === 'merge' && entry.entityId === older.id)?.changes).toMatchObject({
      mergedInto: { to: newerId },
    });

    // The carry-over index was rebuilt: the product's next release takes the migrated decisions.
    const next = (await api.post(`/api/products/${product.id}/releases`, { version: '2.0.0' })).body.data;
    const reupload = cycloneDxSbom(
      findings.map((finding, index) => ({
        name: finding.componentName,
        version: `1.${index}.0`,
        purl: `pkg:npm/${finding.componentName}@1.${index}.0`,
      })),
    );
    const nextSbom = (
      await api.post('/api/sboms/upload', { releaseId: next.id, content: reupload, fileName: 'next.json' })
    ).body.data;
    await api.post('/api/cve-scan', { sbomId: nextSbom.id });
    expect((await api.get(`/api/sboms/${nextSbom.id}/vulnerabilities`)).body.summary).toMatchObject({
      withoutDisposition: 0,
      fixed: 1,
    });
  });
});
