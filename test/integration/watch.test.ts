/**
 * The watch (docs/watch.md): releases left alone follow the corpus. An advisory imported after the
 * scan becomes a finding of every watched release containing its package, with its event; a KEV
 * listing updates it; a withdrawal resolves it; end-of-life releases and other teams are untouched.
 * The first import goes through the admin CLI against the running server, as an operator would.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { importCorpusFiles } from '../../shared/service/corpus/import';
import { applyCorpusChanges } from '../../shared/service/watch/watch';
import { corpusChanges } from '../../shared/service/watch/corpus-changes';
import { packageFilterStore } from '../../shared/service/corpus/package-filter';
import { keys } from '../../shared/service/data/keys';
import { getItem, putItem } from '../../shared/service/data/table-client';
import { scanLease } from '../../shared/service/scans/scan-lease';
import { adminBundle } from '../support/server-bundle';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { cycloneDxSbom } from '../support/seed';
import { kevCatalog, osvRecord } from '../support/corpus-records';

const run = promisify(execFile);
type Api = Awaited<ReturnType<typeof createTeamWithKey>>['api'];

async function adminImport(path: string): Promise<Record<string, unknown>> {
  const root = resolve(import.meta.dirname, '../..');
  const { stdout } = await run(process.execPath, [await adminBundle(), 'corpus', 'import', path], {
    cwd: root,
    env: { ...process.env, DATA_DIR: process.env.VEXDESK_TEST_DATA_DIR },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** A product and a release with one scanned SBOM holding the package (and an unrelated one). */
async function shippedRelease(api: Api, pkg: string, version: string, status = 'active') {
  const product = (
    await api.post('/api/products', { name: `Watch ${pkg}`, slug: uniqueSlug('watch'), vendor: 'ACME Corp' })
  ).body.data;
  const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0', status })).body.data;
  const upload = await api.post('/api/sboms/upload', {
    releaseId: release.id,
    content: cycloneDxSbom([
      { name: pkg, version, purl: `pkg:npm/${pkg}@${version}` },
      { name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' },
    ]),
  });
  expect(upload.status).toBe(201);
  expect((await api.post('/api/cve-scan', { sbomId: upload.body.data.id })).status).toBeLessThan(300);
  return { product, release, sbomId: upload.body.data.id as string };
}

async function findings(api: Api, sbomId: string, state = 'open') {
  const response = await api.get(`/api/sboms/${sbomId}/vulnerabilities?state=${state}`);
  expect(response.status).toBe(200);
  return response.body.data as Record<string, unknown>[];
}

describe('the watch: findings follow the corpus without a rescan', () => {
  it('detects, KEV-lists and resolves findings of watched releases, with their events', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-watch-${suffix}`;
    const cve = `CVE-2096-${String(Date.now()).slice(-7)}`;
    const advisoryId = `GHSA-watch-${suffix}`;
    const { api } = await createTeamWithKey();
    const other = await createTeamWithKey();
    const first = await shippedRelease(api, pkg, '1.2.0');
    const second = await shippedRelease(api, pkg, '1.4.0', 'deprecated');
    const retired = await shippedRelease(api, pkg, '1.2.0', 'end-of-life');
    const fixed = await shippedRelease(api, pkg, '2.1.0');
    const elsewhere = await shippedRelease(other.api, pkg, '1.2.0');
    expect(await findings(api, first.sbomId)).toHaveLength(0);
    const before = new Date().toISOString();

    // An advisory for the package arrives: the admin CLI imports it and re-evaluates what it touches.
    const dir = mkdtempSync(join(tmpdir(), 'watch-'));
    writeFileSync(join(dir, 'advisory.json'), JSON.stringify(osvRecord(advisoryId, cve, pkg)));
    const imported = await adminImport(join(dir, 'advisory.json'));
    expect(imported.reevaluation).toMatchObject({ complete: true });

    for (const { sbomId } of [first, second]) {
      const [finding] = await findings(api, sbomId);
      expect(finding).toMatchObject({
        advisory_id: advisoryId,
        cve_id: cve,
        detected_by: 'corpus_update',
        state: 'open',
        resolved_at: null,
        is_kev: false,
        kev_added_at: null,
      });
      expect(String(finding!.first_detected_at) >= before).toBe(true);
    }
    expect(await findings(api, retired.sbomId)).toHaveLength(0);
    expect(await findings(api, fixed.sbomId)).toHaveLength(0);
    expect((await api.get(`/api/releases/${retired.release.id}`)).body.data).toMatchObject({ watched: false });
    expect((await api.get(`/api/releases/${first.release.id}`)).body.data).toMatchObject({ watched: true });
    const sbomView = (await api.get(`/api/sboms/${first.sbomId}`)).body.data;
    expect(sbomView.scan.corpus_version).toEqual(expect.any(String));
    expect(sbomView.scan.last_evaluated_at >= before).toBe(true);

    const detected = (await api.get(`/api/events?type=finding.detected&since=${encodeURIComponent(before)}`)).body
      .data as Record<string, unknown>[];
    expect(detected.map((event) => event.sbom_id).sort()).toEqual([first.sbomId, second.sbomId].sort());
    expect(detected[0]).toMatchObject({ advisory_id: advisoryId, data: { cve_id: cve, component_name: pkg } });
    // Another team's SBOM was re-evaluated too, and only it sees its finding and event.
    expect(await findings(other.api, elsewhere.sbomId)).toHaveLength(1);
    const theirs = (await other.api.get(`/api/events?type=finding.detected&since=${encodeURIComponent(before)}`)).body
      .data as Record<string, unknown>[];
    expect(theirs.map((event) => event.sbom_id)).toEqual([elsewhere.sbomId]);

    // CISA lists the CVE as exploited.
    writeFileSync(join(dir, 'kev.json'), JSON.stringify(kevCatalog([cve], '2099-02-01')));
    const beforeKev = new Date().toISOString();
    await importCorpusFiles([join(dir, 'kev.json')]);
    expect(await applyCorpusChanges()).toMatchObject({ complete: true });
    const [listed] = await findings(api, first.sbomId);
    expect(listed).toMatchObject({ is_kev: true, kev: { dateAdded: '2099-02-01' } });
    expect(String(listed!.kev_added_at) >= beforeKev).toBe(true);
    const kevEvents = (await api.get(`/api/events?type=finding.kev_added&since=${encodeURIComponent(beforeKev)}`)).body
      .data as Record<string, unknown>[];
    expect(kevEvents.map((event) => event.sbom_id).sort()).toEqual([first.sbomId, second.sbomId].sort());

    // The advisory is withdrawn: the findings are resolved, kept, and out of the default lists.
    writeFileSync(
      join(dir, 'advisory.json'),
      JSON.stringify(osvRecord(advisoryId, cve, pkg, { extra: { withdrawn: new Date().toISOString() } })),
    );
    const beforeWithdrawal = new Date().toISOString();
    await importCorpusFiles([join(dir, 'advisory.json')]);
    expect(await applyCorpusChanges()).toMatchObject({ complete: true });
    expect(await findings(api, first.sbomId)).toHaveLength(0);
    const [resolvedFinding] = await findings(api, first.sbomId, 'resolved');
    expect(resolvedFinding).toMatchObject({
      advisory_id: advisoryId,
      state: 'resolved',
      resolved_reason: 'advisory_withdrawn',
      no_longer_detected: true,
    });
    expect(String(resolvedFinding!.resolved_at) >= beforeWithdrawal).toBe(true);
    expect(await findings(api, first.sbomId, 'all')).toHaveLength(1);
    const resolvedEvents = (
      await api.get(`/api/events?type=finding.resolved&since=${encodeURIComponent(beforeWithdrawal)}`)
    ).body.data as Record<string, unknown>[];
    expect(resolvedEvents).toHaveLength(2);
    expect(resolvedEvents[0]).toMatchObject({ data: { reason: 'advisory_withdrawn' } });
  });

  it('KEV-lists the findings of every record naming the CVE: unscored, and stored before its packages went into alias items', async () => {
    const suffix = randomUUID().slice(0, 8);
    const cve = `CVE-2091-${String(Date.now()).slice(-7)}`;
    const { api } = await createTeamWithKey();
    const unscoredPkg = `vexdesk-unscored-${suffix}`;
    const oldPkg = `vexdesk-old-layout-${suffix}`;
    const unscoredSbom = await shippedRelease(api, unscoredPkg, '1.0.0');
    const oldSbom = await shippedRelease(api, oldPkg, '1.0.0');
    // No scores at all, and the CVE only as `upstream` (as Ubuntu's and Debian's CVE records name it).
    const unscored = osvRecord(`UBUNTU-CVE-watch-${suffix}`, cve, unscoredPkg, {
      extra: { aliases: [], upstream: [cve], database_specific: {} },
    });
    const old = osvRecord(`GHSA-old-${suffix}`, cve, oldPkg);
    const dir = mkdtempSync(join(tmpdir(), 'watch-'));
    const importRecord = async (record: Record<string, unknown>) => {
      writeFileSync(join(dir, 'advisory.json'), JSON.stringify(record));
      await importCorpusFiles([join(dir, 'advisory.json')]);
      expect(await applyCorpusChanges()).toMatchObject({ complete: true });
    };
    await importRecord(unscored);
    await importRecord(old);
    // Every record naming the CVE is in its alias item with its package keys; no CVE index item is written.
    const filedUnder = async (identifier: string) => {
      const item = await getItem(keys.corpusAlias(identifier));
      return Object.keys(
        typeof item?.packagesJson === 'string' ? (JSON.parse(item.packagesJson) as object) : {},
      ).sort();
    };
    expect(await filedUnder(cve)).toEqual([old.id, unscored.id].sort());
    expect(await getItem(keys.corpusCveAdvisory(cve, unscored.id))).toBeUndefined();

    // The GHSA record as a store written before this layout holds it: a CVE index item, not in the alias item.
    const stored = await getItem(keys.corpusAdvisory(old.id));
    const { packagesInAlias, ...oldItem } = stored!;
    expect(packagesInAlias).toBe(true);
    await putItem(oldItem);
    const alias = (await getItem(keys.corpusAlias(cve)))!;
    const { [old.id]: oldEntry, ...others } = JSON.parse(String(alias.packagesJson)) as Record<string, string[]>;
    expect(oldEntry).toEqual(stored!.packageKeys);
    await putItem({ ...alias, packagesJson: JSON.stringify(others) });
    await putItem({
      ...keys.corpusCveAdvisory(cve, old.id),
      entity: 'CorpusCveAdvisory',
      cveId: cve,
      advisoryId: old.id,
      packageKeys: stored!.packageKeys,
    });

    for (const { sbomId } of [unscoredSbom, oldSbom])
      expect(await findings(api, sbomId)).toMatchObject([{ cve_id: cve, is_kev: false }]);
    writeFileSync(join(dir, 'kev.json'), JSON.stringify(kevCatalog([cve], '2099-03-01')));
    await importCorpusFiles([join(dir, 'kev.json')]);
    expect(await applyCorpusChanges()).toMatchObject({ complete: true });
    for (const { sbomId } of [unscoredSbom, oldSbom])
      expect(await findings(api, sbomId)).toMatchObject([{ cve_id: cve, is_kev: true }]);

    // Revised without the CVE: the GHSA record's CVE index item and the unscored record's entry are gone.
    const otherCve = `CVE-2090-${String(Date.now()).slice(-7)}`;
    await importRecord(osvRecord(old.id, otherCve, oldPkg));
    expect(await getItem(keys.corpusCveAdvisory(cve, old.id))).toBeUndefined();
    expect(await filedUnder(cve)).toEqual([unscored.id]);
    await importRecord({ ...unscored, modified: new Date().toISOString(), upstream: [otherCve] });
    expect(await getItem(keys.corpusAlias(cve))).toBeUndefined();
    expect(await filedUnder(otherCve)).toEqual([old.id, unscored.id].sort());
  });

  it('leaves SBOMs without the changed packages untouched', async () => {
    const suffix = randomUUID().slice(0, 8);
    const { api } = await createTeamWithKey();
    const unrelated = await shippedRelease(api, `vexdesk-unrelated-${suffix}`, '1.0.0');
    const evaluatedAt = (await api.get(`/api/sboms/${unrelated.sbomId}`)).body.data.scan.last_evaluated_at;
    const dir = mkdtempSync(join(tmpdir(), 'watch-'));
    writeFileSync(
      join(dir, 'advisory.json'),
      JSON.stringify(osvRecord(`GHSA-other-${suffix}`, `CVE-2095-${String(Date.now()).slice(-7)}`, `x-${suffix}`)),
    );
    await importCorpusFiles([join(dir, 'advisory.json')]);
    expect(await applyCorpusChanges()).toMatchObject({ complete: true });
    expect((await api.get(`/api/sboms/${unrelated.sbomId}`)).body.data.scan.last_evaluated_at).toBe(evaluatedAt);
  });

  it('leaves a change for the next run while a scan holds an SBOM, and applies it once the scan is done', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-busy-${suffix}`;
    const { api, teamId } = await createTeamWithKey();
    const { product, release, sbomId } = await shippedRelease(api, pkg, '1.0.0');
    const taken = await scanLease.take(keys.scanLease(teamId, product.id, release.id, sbomId), sbomId);
    if (!('held' in taken)) throw new Error('the SBOM should be free to lease');
    const dir = mkdtempSync(join(tmpdir(), 'watch-'));
    writeFileSync(
      join(dir, 'advisory.json'),
      JSON.stringify(osvRecord(`GHSA-busy-${suffix}`, `CVE-2094-${String(Date.now()).slice(-7)}`, pkg)),
    );
    try {
      await importCorpusFiles([join(dir, 'advisory.json')]);
      const cutOff = await applyCorpusChanges({ deadline: Date.now() + 1500 });
      expect(cutOff).toMatchObject({ complete: false });
      expect(cutOff.outcomes.busy).toBeGreaterThanOrEqual(1);
      expect(await findings(api, sbomId)).toHaveLength(0);
    } finally {
      await taken.held.release();
    }
    // The journal kept the change: this run (or the server's own poll, whichever comes first) applies it.
    expect(await applyCorpusChanges()).toMatchObject({ complete: true });
    expect(await findings(api, sbomId)).toMatchObject([{ detected_by: 'corpus_update' }]);
  });

  it('finds a new package at once: a re-evaluation started the moment its change is recorded detects it', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-first-${suffix}`;
    const { api } = await createTeamWithKey();
    const { sbomId } = await shippedRelease(api, pkg, '1.0.0');
    // Scans consult the package filter; without one they read every package and this race cannot happen.
    expect(await packageFilterStore.exists()).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'watch-'));
    writeFileSync(
      join(dir, 'advisory.json'),
      JSON.stringify(osvRecord(`GHSA-first-${suffix}`, `CVE-2092-${String(Date.now()).slice(-7)}`, pkg)),
    );
    // The local poll (or another refresh) may read the journal as soon as an import writes to it.
    const record = corpusChanges.record.bind(corpusChanges);
    const raced: unknown[] = [];
    const recorded = jest.spyOn(corpusChanges, 'record').mockImplementation(async (source, packageKeys, cveIds) => {
      await record(source, packageKeys, cveIds);
      raced.push(await applyCorpusChanges());
    });
    try {
      await importCorpusFiles([join(dir, 'advisory.json')]);
    } finally {
      recorded.mockRestore();
    }
    expect(raced).toMatchObject([{ complete: true }]);
    expect(await findings(api, sbomId)).toMatchObject([{ detected_by: 'corpus_update' }]);
  });

  it('says a published disclosure went stale when the release gains a finding nobody decided on', async () => {
    const suffix = randomUUID().slice(0, 8);
    const pkg = `vexdesk-stale-${suffix}`;
    const { api } = await createTeamWithKey();
    const { release, sbomId } = await shippedRelease(api, pkg, '1.0.0');
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'cyclonedx_vex', author: 'PSIRT' }))
      .body.data as { id: string };
    for (const step of ['submit', 'approve', 'publish'])
      expect((await api.post(`/api/vex/${document.id}/${step}`, {})).status).toBe(200);
    const before = new Date().toISOString();
    const dir = mkdtempSync(join(tmpdir(), 'watch-'));
    writeFileSync(
      join(dir, 'advisory.json'),
      JSON.stringify(osvRecord(`GHSA-stale-${suffix}`, `CVE-2093-${String(Date.now()).slice(-7)}`, pkg)),
    );
    await importCorpusFiles([join(dir, 'advisory.json')]);
    expect(await applyCorpusChanges()).toMatchObject({ complete: true });
    const [finding] = await findings(api, sbomId);
    const stale = (await api.get(`/api/events?type=disclosure.stale&since=${encodeURIComponent(before)}`)).body
      .data as Record<string, unknown>[];
    expect(stale).toMatchObject([
      {
        release_id: release.id,
        sbom_id: sbomId,
        data: { vex_document_ids: [document.id], undecided_finding_ids: [finding!.id], undecided_count: 1 },
      },
    ]);
  });
});
