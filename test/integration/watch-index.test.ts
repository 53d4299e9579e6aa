/**
 * The package index (shared/service/watch/watch-index.ts): a scanned SBOM is found under its packages
 * (a purl component, a component known only by name) and not under others; a deleted SBOM's entries
 * go; SBOMs stored before the index are put into it by `table migrate`, resumably and idempotently.
 *
 * @whole-table-scan: its migration scans the whole table, so it runs first (test/support/test-sequencer.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { randomInt, randomUUID } from 'node:crypto';
import { keys } from '../../shared/service/data/keys';
import { getItem, transactWrite, tx } from '../../shared/service/data/table-client';
import { packageKey } from '../../shared/service/matching/component-identity';
import { sbomStore } from '../../shared/service/sboms/sbom-store';
import { removeSbom, sbomsContaining, watchKeysForPackage } from '../../shared/service/watch/watch-index';
import { migrateWatchIndex } from '../../shared/service/watch/watch-index-migration';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { cycloneDxSbom } from '../support/seed';

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

async function scannedSbom(team: Team, content: string): Promise<{ id: string; productId: string; releaseId: string }> {
  const product = (await team.api.post('/api/products', { name: 'Watched', slug: uniqueSlug('watched') })).body.data;
  const release = (await team.api.post(`/api/products/${product.id}/releases`, { version: `1.${randomInt(1, 1e6)}` }))
    .body.data;
  const upload = await team.api.post('/api/sboms/upload', { releaseId: release.id, content });
  expect(upload.status).toBe(201);
  expect((await team.api.post('/api/cve-scan', { sbomId: upload.body.data.id })).status).toBe(202);
  return { id: upload.body.data.id as string, productId: product.id as string, releaseId: release.id as string };
}

const names = () => {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  return { lib: `watch-${suffix}-lib`, bare: `watch-${suffix}-bare`, absent: `watch-${suffix}-absent` };
};

const ids = async (indexKeys: string[]) => (await sbomsContaining(indexKeys)).map((watched) => watched.sbomId);

describe('the package index', () => {
  it('finds a scanned SBOM under its packages, and not under others', async () => {
    const team = await createTeamWithKey();
    const { lib, bare, absent } = names();
    const scanned = await scannedSbom(
      team,
      cycloneDxSbom([
        { name: lib, version: '1.0.0', purl: `pkg:npm/${lib}@1.0.0` },
        { name: bare, version: '2.0.0' },
      ]),
    );
    const byPurl = await sbomsContaining(watchKeysForPackage(packageKey('npm', lib)));
    expect(byPurl).toEqual([
      {
        teamId: team.teamId,
        productId: scanned.productId,
        releaseId: scanned.releaseId,
        sbomId: scanned.id,
        indexKeys: [packageKey('npm', lib)],
      },
    ]);
    // A component without a purl is found by name from any ecosystem's package of that name.
    expect(await ids(watchKeysForPackage(packageKey('PyPI', bare)))).toEqual([scanned.id]);
    expect(await ids(watchKeysForPackage(packageKey('npm', absent)))).toEqual([]);
    expect(await ids(watchKeysForPackage(packageKey('PyPI', lib)))).toEqual([]);
    const resolved = await sbomStore.resolve(team.teamId, scanned.id);
    expect(resolved?.sbom.watchIndexedAt).toEqual(expect.any(String));
  });

  it('drops a deleted SBOM', async () => {
    const team = await createTeamWithKey();
    const { lib, bare } = names();
    const scanned = await scannedSbom(
      team,
      cycloneDxSbom([
        { name: lib, version: '1.0.0', purl: `pkg:npm/${lib}@1.0.0` },
        { name: bare, version: '2.0.0' },
      ]),
    );
    expect(await ids([packageKey('npm', lib), `name:${bare}`])).toEqual([scanned.id]);
    expect((await team.api.delete(`/api/sboms/${scanned.id}`)).status).toBe(204);
    expect(await ids([packageKey('npm', lib), `name:${bare}`])).toEqual([]);
  });
});

/** An SBOM as stored before the index: scanned, no entries, no `watchIndexedAt`. */
async function unindexedSbom(team: Team, lib: string) {
  const scanned = await scannedSbom(
    team,
    cycloneDxSbom([{ name: lib, version: '1.0.0', purl: `pkg:npm/${lib}@1.0.0` }]),
  );
  const { sbom: stored } = (await sbomStore.resolve(team.teamId, scanned.id))!;
  await removeSbom(stored, await sbomStore.readInventory(stored));
  await transactWrite([
    tx.update(
      keys.sbom(team.teamId, stored.productId, stored.releaseId, stored.id),
      'REMOVE #at',
      { '#at': 'watchIndexedAt' },
      undefined,
    ),
  ]);
  return scanned;
}

describe('the scan', () => {
  it('indexes an SBOM not yet indexed, once', async () => {
    const team = await createTeamWithKey();
    const { lib } = names();
    const scanned = await unindexedSbom(team, lib);
    // Run by the scans function itself (the upload's scan was the worker's). No check that the entries are
    // gone first: another test file's `table migrate` may index this SBOM at any moment.
    expect((await team.api.post('/api/cve-scan', { sbomId: scanned.id })).status).toBe(202);
    expect(await ids([packageKey('npm', lib)])).toEqual([scanned.id]);
    const indexedAt = (await sbomStore.resolve(team.teamId, scanned.id))?.sbom.watchIndexedAt;
    expect(indexedAt).toEqual(expect.any(String));
    expect((await team.api.post('/api/cve-scan', { sbomId: scanned.id })).status).toBe(202);
    expect((await sbomStore.resolve(team.teamId, scanned.id))?.sbom.watchIndexedAt).toBe(indexedAt);
  });
});

describe('table migrate', () => {
  it('indexes SBOMs stored before the index, resumably and idempotently', async () => {
    const team = await createTeamWithKey();
    const { lib } = names();
    const [one, two] = [await unindexedSbom(team, lib), await unindexedSbom(team, lib)];

    // Other test files' SBOMs (and their migrations) share the table: only this run's bound is certain.
    const cutOff = await migrateWatchIndex({ maxItems: 1 });
    expect(cutOff.sboms).toBeLessThanOrEqual(1);
    const rest = await migrateWatchIndex();
    expect(rest.complete).toBe(true);
    expect((await ids([packageKey('npm', lib)])).sort()).toEqual([one.id, two.id].sort());
    const item = await getItem(keys.sbom(team.teamId, one.productId, one.releaseId, one.id));
    expect(item?.watchIndexedAt).toEqual(expect.any(String));

    // Done is done: a second run finds none of them.
    const again = await migrateWatchIndex();
    expect(again.complete).toBe(true);
    expect((await ids([packageKey('npm', lib)])).sort()).toEqual([one.id, two.id].sort());
  });
});
