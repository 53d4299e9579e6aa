/**
 * A scan writes only what changed (docs/watch.md "Writes", docs/scanning.md): the package index's
 * presence items only when not yet stored, finding items only when new or changed. Each item under
 * test gets an extra attribute written straight into the table; a put of the item would drop it.
 * The watch still finds every release that names a changed package, and a scan cut off between its
 * index entries and their presence items leaves nothing missing once it runs again.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { importCorpusFiles } from '../../shared/service/corpus/import';
import { keys, type Key } from '../../shared/service/data/keys';
import { batchGet, batchWrite, getItem, transactWrite, tx } from '../../shared/service/data/table-client';
import { packageKey } from '../../shared/service/matching/component-identity';
import { applyCorpusChanges } from '../../shared/service/watch/watch';
import type { SbomComponent } from '../../shared/service/sbom/model';
import {
  nameKey,
  sbomsContaining,
  teamEntries,
  watchIndexWrites,
  watchShard,
  WATCH_SHARDS,
} from '../../shared/service/watch/watch-index';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { cycloneDxSbom } from '../support/seed';
import { osvRecord } from '../support/corpus-records';

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

const PROBE = 'written-by-the-test';

/** Adds the probe attribute to a stored item (the item must exist). */
async function probe(key: Key): Promise<void> {
  const item = await getItem(key);
  expect(item).toBeDefined();
  await batchWrite([{ ...item!, probe: PROBE }]);
}

const probed = async (key: Key) => (await getItem(key))?.probe === PROBE;

/** An SBOM with a package (purl) and a component known only by name. */
const sbomOf = (pkg: string, bare: string) =>
  cycloneDxSbom([
    { name: pkg, version: '1.2.0', purl: `pkg:npm/${pkg}@1.2.0` },
    { name: bare, version: '3.0.0' },
  ]);

async function scannedRelease(team: Team, productId: string, version: string, content: string) {
  const release = (await team.api.post(`/api/products/${productId}/releases`, { version })).body.data;
  const upload = await team.api.post('/api/sboms/upload', { releaseId: release.id, content });
  expect(upload.status).toBe(201);
  expect((await team.api.post('/api/cve-scan', { sbomId: upload.body.data.id })).status).toBe(202);
  return { releaseId: release.id as string, sbomId: upload.body.data.id as string };
}

async function newProduct(team: Team): Promise<string> {
  return (await team.api.post('/api/products', { name: 'Writes', slug: uniqueSlug('writes') })).body.data.id as string;
}

/** The components `sbomOf` describes, as the index reads them. */
const componentsOf = (pkg: string, bare: string): SbomComponent[] => [
  { ref: pkg, name: pkg, version: '1.2.0', purl: `pkg:npm/${pkg}@1.2.0`, cpes: [], licenses: [] },
  { ref: bare, name: bare, version: '3.0.0', cpes: [], licenses: [] },
];

/** An SBOM id (never uploaded) that the index puts in the given shard. */
function sbomIdInShard(shard: number): string {
  for (;;) {
    const id = randomUUID();
    if (watchShard(id) === shard) return id;
  }
}

function names() {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  return { suffix, pkg: `vexdesk-writes-${suffix}`, bare: `vexdesk-writes-${suffix}-bare` };
}

async function importAdvisory(id: string, pkg: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'scan-writes-'));
  writeFileSync(
    join(dir, 'advisory.json'),
    JSON.stringify(osvRecord(id, `CVE-2093-${String(Date.now()).slice(-7)}`, pkg)),
  );
  await importCorpusFiles([join(dir, 'advisory.json')]);
}

describe('the package index', () => {
  it('writes no presence item again for an SBOM whose shard has them, and the watch finds every release', async () => {
    const team = await createTeamWithKey();
    const { suffix, pkg, bare } = names();
    const productId = await newProduct(team);
    const first = await scannedRelease(team, productId, '1.0.0', sbomOf(pkg, bare));
    const shard = watchShard(first.sbomId);
    const presence = [
      keys.watchShardPresence(packageKey('npm', pkg), shard),
      keys.watchShardPresence(nameKey(bare), shard),
    ];
    for (const key of presence) await probe(key);
    // Another SBOM in the same shard with the same packages has no presence item (nor the marker) to write.
    const sibling = { teamId: team.teamId, productId, releaseId: first.releaseId, id: sbomIdInShard(shard) };
    const writes = await watchIndexWrites(sibling, componentsOf(pkg, bare));
    expect(writes.map((item) => item.entity)).toEqual(['WatchEntry', 'WatchEntry']);

    // A second release, in whichever shard: the first shard's presence items are not written again.
    const second = await scannedRelease(team, productId, '1.1.0', sbomOf(pkg, bare));
    for (const key of presence) expect(await probed(key)).toBe(true);
    const indexed = await sbomsContaining([packageKey('npm', pkg), nameKey(bare)]);
    expect(indexed.map((watched) => watched.sbomId).sort()).toEqual([first.sbomId, second.sbomId].sort());

    // An advisory for the package arrives: both releases gain the finding.
    await importAdvisory(`GHSA-writes-${suffix}`, pkg);
    expect(await applyCorpusChanges()).toMatchObject({ complete: true });
    for (const { sbomId } of [first, second]) {
      const listed = await team.api.get(`/api/sboms/${sbomId}/vulnerabilities`);
      expect(listed.body.data).toMatchObject([{ advisory_id: `GHSA-writes-${suffix}`, detected_by: 'corpus_update' }]);
    }
  });

  it("reads a large SBOM's presence items as well: the first release writes them all, a release in its shard none", async () => {
    const team = await createTeamWithKey();
    const { pkg } = names();
    const packages = Array.from({ length: 150 }, (_, index) => `${pkg}-${index}`);
    const content = cycloneDxSbom(packages.map((name) => ({ name, version: '1.0.0', purl: `pkg:npm/${name}@1.0.0` })));
    const productId = await newProduct(team);
    const first = await scannedRelease(team, productId, '1.0.0', content);
    const shard = watchShard(first.sbomId);
    const presence = packages.map((name) => keys.watchShardPresence(packageKey('npm', name), shard));
    const stored = await batchGet(presence);
    expect(stored).toHaveLength(packages.length);
    await batchWrite(stored.map((item) => ({ ...item, probe: PROBE })));

    const components = packages.map((name): SbomComponent => ({
      ref: name,
      name,
      version: '1.0.0',
      purl: `pkg:npm/${name}@1.0.0`,
      cpes: [],
      licenses: [],
    }));
    const sibling = { teamId: team.teamId, productId, releaseId: first.releaseId, id: sbomIdInShard(shard) };
    const writes = await watchIndexWrites(sibling, components);
    expect(writes.filter((item) => item.entity !== 'WatchEntry')).toEqual([]);
    expect(writes).toHaveLength(packages.length);

    const next = await scannedRelease(team, productId, '1.1.0', content);
    expect((await batchGet(presence)).filter((item) => item.probe === PROBE)).toHaveLength(packages.length);
    const last = packageKey('npm', packages.at(-1)!);
    expect((await sbomsContaining([last])).map((watched) => watched.sbomId)).toContain(next.sbomId);
  });

  it('writes the presence items a scan cut off before its result left missing, and only those', async () => {
    const team = await createTeamWithKey();
    const { pkg, bare } = names();
    const productId = await newProduct(team);
    const { releaseId, sbomId } = await scannedRelease(team, productId, '1.0.0', sbomOf(pkg, bare));
    // As a scan cut off after its entries: one presence item missing, no `watchIndexedAt`.
    const shard = watchShard(sbomId);
    const missing = keys.watchShardPresence(packageKey('npm', pkg), shard);
    const present = keys.watchShardPresence(nameKey(bare), shard);
    await batchWrite([], [missing]);
    await probe(present);
    await transactWrite([
      tx.update(
        keys.sbom(team.teamId, productId, releaseId, sbomId),
        'REMOVE #at',
        { '#at': 'watchIndexedAt' },
        undefined,
      ),
    ]);

    expect((await team.api.post('/api/cve-scan', { sbomId })).status).toBe(202);
    expect(await getItem(missing)).toMatchObject({ entity: 'WatchKey', indexKey: packageKey('npm', pkg), shard });
    expect(await probed(present)).toBe(true);
    expect((await sbomsContaining([packageKey('npm', pkg)])).map((watched) => watched.sbomId)).toEqual([sbomId]);
  });

  it('reads only the shards with a presence item, and every shard of a key indexed before shard presence', async () => {
    const team = await createTeamWithKey();
    const { pkg, bare } = names();
    const productId = await newProduct(team);
    const { sbomId } = await scannedRelease(team, productId, '1.0.0', sbomOf(pkg, bare));
    const key = packageKey('npm', pkg);
    const shard = watchShard(sbomId);
    const stored = await batchGet(
      Array.from({ length: WATCH_SHARDS }, (_, index) => keys.watchShardPresence(key, index)),
    );
    expect(stored.map((item) => item.shard)).toEqual([shard]);

    // Without its shard's presence item the entry is not read: the presence items are what readers go by.
    await batchWrite([], [keys.watchShardPresence(key, shard)]);
    expect(await sbomsContaining([key])).toEqual([]);
    expect(await teamEntries(team.teamId, key)).toEqual([]);

    // A key whose SBOMs were indexed before shard presence has only the one presence item of the key.
    await batchWrite([{ ...keys.watchKeyPresence(key), entity: 'WatchKey', indexKey: key }]);
    expect((await sbomsContaining([key])).map((watched) => watched.sbomId)).toEqual([sbomId]);
    expect((await teamEntries(team.teamId, key)).map((entry) => entry.sbomId)).toEqual([sbomId]);
  });
});

describe('a rescan', () => {
  it('rewrites only the findings that changed', async () => {
    const team = await createTeamWithKey();
    const { suffix, pkg, bare } = names();
    await importAdvisory(`GHSA-rescan-${suffix}`, pkg);
    const productId = await newProduct(team);
    const { releaseId, sbomId } = await scannedRelease(team, productId, '1.0.0', sbomOf(pkg, bare));
    const [listed] = (await team.api.get(`/api/sboms/${sbomId}/vulnerabilities`)).body.data as Record<string, string>[];
    expect(listed).toMatchObject({ advisory_id: `GHSA-rescan-${suffix}`, severity: 'HIGH' });
    const key = keys.finding(team.teamId, productId, releaseId, sbomId, listed!.id!);
    await probe(key);

    const scannedBefore = (await team.api.get(`/api/sboms/${sbomId}`)).body.data.scan.scanned_at as string;
    expect((await team.api.post('/api/cve-scan', { sbomId })).status).toBe(202);
    expect(await probed(key)).toBe(true);
    const rescanned = await team.api.get(`/api/sboms/${sbomId}/vulnerabilities`);
    expect(rescanned.body.data).toMatchObject([{ id: listed!.id, last_seen_at: listed!.last_seen_at }]);
    expect(rescanned.body.scan.scanned_at > scannedBefore).toBe(true);

    // A stored finding that differs from what the scan finds is rewritten.
    const item = (await getItem(key))!;
    const finding = JSON.parse(String(item.findingJson)) as Record<string, unknown>;
    await batchWrite([{ ...item, findingJson: JSON.stringify({ ...finding, severity: 'LOW' }) }]);
    expect((await team.api.post('/api/cve-scan', { sbomId })).status).toBe(202);
    expect(await probed(key)).toBe(false);
    expect(JSON.parse(String((await getItem(key))!.findingJson))).toMatchObject({ severity: 'HIGH' });
  });
});
