/**
 * EPSS scores in bucket items (shared/service/corpus/epss-buckets.ts): what an import writes, what a later score
 * date replaces, and a store written before buckets (per-CVE items, an import record naming no layout), which
 * scans still score and the next import rewrites as buckets even for the same score date.
 */
import { describe, expect, it } from '@jest/globals';
import { randomInt, randomUUID } from 'node:crypto';
import { corpusStore } from '../../shared/service/corpus/corpus-store';
import { EPSS_LAYOUT, epssBucketOf } from '../../shared/service/corpus/epss-buckets';
import { importAdvisories, importEpss } from '../../shared/service/corpus/import';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { recordImport } from '../../shared/service/corpus/source-imports';
import { keys } from '../../shared/service/data/keys';
import { batchWrite, getItem } from '../../shared/service/data/table-client';
import { createTeamWithKey } from '../support/factories';
import { osvRecord } from '../support/corpus-records';
import { scannedPackageSbom } from '../support/sbom-uploads';

/** `count` CVE ids of this run, each in a bucket of its own. */
function cvesInDistinctBuckets(count: number): string[] {
  const ids = new Map<number, string>();
  while (ids.size < count) {
    const id = `CVE-2095-${randomInt(1_000_000, 9_999_999)}`;
    ids.set(epssBucketOf(id), id);
  }
  return [...ids.values()];
}

const bucketOf = (cveId: string) => getItem(keys.corpusEpssBucket(epssBucketOf(cveId)));

function epssFile(scoreDate: string, modelVersion: string, rows: Record<string, [number, number]>) {
  const scores = new Map(Object.entries(rows).map(([cveId, [epss, percentile]]) => [cveId, { epss, percentile }]));
  return { scoreDate, modelVersion, skipped: 0, scores };
}

describe('EPSS scores in buckets', () => {
  it('are read through their buckets; a later score date replaces them, and drops a CVE the file no longer lists', async () => {
    const [kept, dropped, unscored] = cvesInDistinctBuckets(3) as [string, string, string];
    const model = `v-test-${randomUUID().slice(0, 8)}`;
    const first = await importEpss(
      epssFile('2095-01-01T00:00:00+0000', model, { [kept]: [0.5, 0.6], [dropped]: [0.1, 0.2] }),
    );
    expect(first).toMatchObject({ rows: 2, written: 2, skipped: false });
    expect(await bucketOf(kept)).toMatchObject({ entity: 'CorpusEpssBucket', scoreDate: '2095-01-01T00:00:00+0000' });
    expect(await getItem(keys.corpusEpss(kept))).toBeUndefined();
    expect(await corpusStore.scores([kept, dropped, unscored])).toEqual(
      new Map([
        [kept, { kev: null, epss: { score: 0.5, percentile: 0.6, date: '2095-01-01T00:00:00+0000' } }],
        [dropped, { kev: null, epss: { score: 0.1, percentile: 0.2, date: '2095-01-01T00:00:00+0000' } }],
        [unscored, { kev: null, epss: null }],
      ]),
    );

    const second = await importEpss(epssFile('2095-01-02T00:00:00+0000', model, { [kept]: [0.7, 0.8] }));
    expect(second).toMatchObject({ rows: 1, written: 1, skipped: false });
    expect(second.deleted).toBeGreaterThanOrEqual(1);
    expect(await bucketOf(dropped)).toBeUndefined();
    expect(await corpusStore.scores([kept, dropped])).toEqual(
      new Map([
        [kept, { kev: null, epss: { score: 0.7, percentile: 0.8, date: '2095-01-02T00:00:00+0000' } }],
        [dropped, { kev: null, epss: null }],
      ]),
    );
    expect(await importEpss(epssFile('2095-01-02T00:00:00+0000', model, { [kept]: [0.7, 0.8] }))).toMatchObject({
      written: 0,
      skipped: true,
    });
  });

  it('a store of per-CVE items still scores findings, and the next import rewrites it as buckets, same score date or not', async () => {
    const [cve, unlisted] = cvesInDistinctBuckets(2) as [string, string];
    const pkg = `vexdesk-test-epss-layout-${randomUUID().slice(0, 8)}`;
    const [scoreDate, model] = ['2095-02-01T00:00:00+0000', `v-test-${randomUUID().slice(0, 8)}`];
    await importAdvisories([{ source: 'test', advisory: parseOsvAdvisory(osvRecord(`GHSA-epss-${pkg}`, cve, pkg)) }]);
    // What an import before buckets left: one item per CVE, no bucket of theirs, a record naming no layout.
    const perCve = (cveId: string, epss: number) => ({
      ...keys.corpusEpss(cveId),
      entity: 'CorpusEpss',
      cveId,
      epss,
      percentile: 0.84,
      scoreDate,
      modelVersion: model,
    });
    await batchWrite(
      [perCve(cve, 0.42), perCve(unlisted, 0.33)],
      [cve, unlisted].map((cveId) => keys.corpusEpssBucket(epssBucketOf(cveId))),
    );
    await recordImport('epss', { scoreDate, modelVersion: model, importedAt: new Date().toISOString() });

    const { api } = await createTeamWithKey();
    const before = await scannedPackageSbom(api, pkg, '1.0.0');
    expect((await api.get(`/api/sboms/${before.id}/vulnerabilities`)).body.data).toEqual([
      expect.objectContaining({ cve_id: cve, epss_score: 0.42, epss_percentile: 0.84 }),
    ]);

    const imported = await importEpss(epssFile(scoreDate, model, { [cve]: [0.42, 0.84] }));
    expect(imported).toMatchObject({ written: 1, skipped: false });
    expect(await getItem(keys.corpusSourceImport('epss'))).toMatchObject({ scoreDate, layout: EPSS_LAYOUT });
    expect(await bucketOf(cve)).toMatchObject({ scoreDate, modelVersion: model });
    // The per-CVE items stay, unread: a CVE the file does not list has no score.
    expect(await getItem(keys.corpusEpss(unlisted))).toMatchObject({ epss: 0.33 });
    expect(await corpusStore.scores([cve, unlisted])).toEqual(
      new Map([
        [cve, { kev: null, epss: { score: 0.42, percentile: 0.84, date: scoreDate } }],
        [unlisted, { kev: null, epss: null }],
      ]),
    );
    const after = await scannedPackageSbom(api, pkg, '1.0.0');
    expect((await api.get(`/api/sboms/${after.id}/vulnerabilities`)).body.data).toEqual([
      expect.objectContaining({ cve_id: cve, epss_score: 0.42, epss_percentile: 0.84 }),
    ]);
  });
});
