/**
 * A package with more entries than its package item holds keeps the rest in sealed segments
 * (shared/service/corpus/package-segments.ts): a scan finds every advisory of it; a revised or withdrawn
 * record whose entry sits in a sealed segment is dropped there (the revised one matched by its new
 * version only); a package item of the layout before segments reads as one with none and seals on its
 * next write; what a run cut off mid-window leaves (a segment not yet counted, an entry sealed for a
 * record not marked done) neither shows nor duplicates.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { importCorpusFiles } from '../../shared/service/corpus/import';
import { corpusStore, type MatchData } from '../../shared/service/corpus/corpus-store';
import { keys } from '../../shared/service/data/keys';
import { batchWrite, getItem, putItem } from '../../shared/service/data/table-client';
import { packageKey } from '../../shared/service/matching/component-identity';
import { createTeamWithKey } from '../support/factories';
import type { client } from '../support/http-client';
import { scannedPackageSbom } from '../support/sbom-uploads';
import { osvRecord, writeRecords } from '../support/corpus-records';

type Api = ReturnType<typeof client>;

/** A fixture corpus of its own: records of about 1 KB, so that ten of them outgrow a package item. */
function fixture() {
  const suffix = randomUUID().slice(0, 8);
  const digits = String(parseInt(suffix.slice(0, 6), 16) % 1_000_000).padStart(6, '0');
  const id = (n: number) => `GHSA-seg${n}-${suffix}`;
  const cve = (n: number) => `CVE-2095-${digits}${String(n).padStart(3, '0')}`;
  const pkg = `vexdesk-seg-${suffix}`;
  const record = (n: number, options: { pkg?: string; fixed?: string; extra?: Record<string, unknown> } = {}) =>
    osvRecord(id(n), cve(n), options.pkg ?? pkg, {
      summary: `Segment fixture ${n} ${'s'.repeat(900)}`,
      events: [{ introduced: '0' }, { fixed: options.fixed ?? '2.0.0' }],
      extra: options.extra,
    });
  /** Imports the records as one directory (each import is one window). */
  const importRecords = async (records: ReturnType<typeof record>[]) => {
    const paths = writeRecords(Object.fromEntries(records.map((item) => [`${item.id}.json`, item])));
    return (await importCorpusFiles([dirname(Object.values(paths)[0]!)])).imported[0];
  };
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);
  return { suffix, id, cve, pkg, record, importRecords, range };
}

async function scannedSbom(api: Api, pkg: string, version: string): Promise<string> {
  return (await scannedPackageSbom(api, pkg, version)).id;
}

async function findings(api: Api, sbomId: string): Promise<{ cve_id: string; fixed_versions: string[] }[]> {
  const response = await api.get(`/api/sboms/${sbomId}/vulnerabilities?perPage=500`);
  expect(response.status).toBe(200);
  return response.body.data as { cve_id: string; fixed_versions: string[] }[];
}

const packageItem = (pkg: string) => getItem(keys.corpusPackage('npm', pkg));
const segmentIds = async (pkg: string, segment: number) => {
  const item = await getItem(keys.corpusPackageSegment('npm', pkg, segment));
  return item ? (JSON.parse(String(item.entriesJson)) as MatchData[]).map((entry) => entry.id) : undefined;
};

describe('package entries in sealed segments', () => {
  it('a scan finds every advisory of a package whose entries outgrew its item', async () => {
    const { cve, pkg, record, importRecords, range } = fixture();
    await importRecords(range(0, 10).map((n) => record(n)));
    await importRecords(range(10, 20).map((n) => record(n)));
    await importRecords(range(20, 22).map((n) => record(n)));
    expect(await packageItem(pkg)).toMatchObject({ sealedSegments: 2, sealedEntries: 20, advisoryCount: 22 });
    expect(await segmentIds(pkg, 1)).toHaveLength(10);

    const { api } = await createTeamWithKey();
    const sbomId = await scannedSbom(api, pkg, '1.0.0');
    expect((await findings(api, sbomId)).map((finding) => finding.cve_id).sort()).toEqual(range(0, 22).map(cve));
  });

  it('drops a revised or withdrawn record from the sealed segment holding it', async () => {
    const { id, cve, pkg, record, importRecords, range } = fixture();
    const elsewhere = `${pkg}-elsewhere`;
    await importRecords(range(0, 10).map((n) => record(n)));
    await importRecords(range(10, 20).map((n) => record(n)));
    const { api } = await createTeamWithKey();
    const sbomId = await scannedSbom(api, pkg, '1.0.0');
    expect(await findings(api, sbomId)).toHaveLength(20);

    // 3 no longer affects 1.0.0, 5 has a new fix, 7 moved to another package, 12 is withdrawn.
    const delta = await importRecords([
      record(3, { fixed: '0.5.0' }),
      record(5, { fixed: '3.0.0' }),
      record(7, { pkg: elsewhere }),
      record(12, { extra: { withdrawn: new Date().toISOString() } }),
    ]);
    expect(delta).toMatchObject({ written: 3, withdrawn: 1 });
    expect(await segmentIds(pkg, 0)).toEqual(
      range(0, 10)
        .filter((n) => ![3, 5, 7].includes(n))
        .map(id),
    );
    expect(await segmentIds(pkg, 1)).toEqual(
      range(10, 20)
        .filter((n) => n !== 12)
        .map(id),
    );
    expect(await packageItem(pkg)).toMatchObject({ sealedSegments: 2, sealedEntries: 16, advisoryCount: 18 });

    await api.post('/api/cve-scan', { sbomId });
    const after = await findings(api, sbomId);
    expect(after.map((finding) => finding.cve_id).sort()).toEqual(
      range(0, 20)
        .filter((n) => ![3, 7, 12].includes(n))
        .map(cve),
    );
    expect(after.find((finding) => finding.cve_id === cve(5))?.fixed_versions).toEqual(['3.0.0']);
    const moved = await scannedSbom(api, elsewhere, '1.0.0');
    expect((await findings(api, moved)).map((finding) => finding.cve_id)).toEqual([cve(7)]);
  });

  it('reads a package item of the layout before segments, and seals it on its next write', async () => {
    const { cve, pkg, record, importRecords, range } = fixture();
    await importRecords(range(0, 12).map((n) => record(n)));
    // The same entries as one item with no segment count, as imports before segments wrote it.
    const sealed = await getItem(keys.corpusPackageSegment('npm', pkg, 0));
    await batchWrite([], [keys.corpusPackageSegment('npm', pkg, 0)]);
    await putItem({
      ...keys.corpusPackage('npm', pkg),
      entity: 'CorpusPackage',
      packageKey: packageKey('npm', pkg),
      advisoryCount: 12,
      entriesJson: String(sealed?.entriesJson),
    });
    const { api } = await createTeamWithKey();
    const sbomId = await scannedSbom(api, pkg, '1.0.0');
    expect(await findings(api, sbomId)).toHaveLength(12);

    await importRecords([record(12)]);
    expect(await packageItem(pkg)).toMatchObject({ sealedSegments: 1, entriesJson: '[]', advisoryCount: 13 });
    await api.post('/api/cve-scan', { sbomId });
    expect((await findings(api, sbomId)).map((finding) => finding.cve_id).sort()).toEqual(range(0, 13).map(cve));
  });

  it('a run cut off mid-window leaves nothing a read shows twice or wrongly', async () => {
    const { id, pkg, record, importRecords, range } = fixture();
    const key = packageKey('npm', pkg);
    const readIds = async () => ((await corpusStore.packages([key])).get(key) ?? []).map((entry) => entry.id).sort();
    await importRecords(range(0, 10).map((n) => record(n)));

    // Cut between a segment and the package item counting it: the segment is not read, and the next seal replaces it.
    await putItem({
      ...keys.corpusPackageSegment('npm', pkg, 1),
      entity: 'CorpusPackageSegment',
      packageKey: key,
      segment: 1,
      entriesJson: JSON.stringify([{ ...record(99), affected: [] }]),
    });
    expect(await readIds()).toEqual(range(0, 10).map(id).sort());

    // Cut after the package items, before the advisory items marked the records done: the rerun adds them again.
    await importRecords(range(10, 20).map((n) => record(n)));
    await batchWrite(
      [],
      range(10, 20).map((n) => keys.corpusAdvisory(id(n))),
    );
    expect(await importRecords(range(10, 20).map((n) => record(n)))).toMatchObject({ written: 10 });
    expect(await segmentIds(pkg, 1)).toEqual(range(10, 20).map(id));
    expect(await readIds()).toEqual(range(0, 20).map(id).sort());
  });
});
