/**
 * A re-import of an OSV archive skips the buckets whose fingerprint is unchanged since its last
 * complete import: nothing of them is read or written, a changed, a new and a withdrawn record are
 * still imported (the API's findings show it), an unreadable entry is reported every time, and an
 * import that stops before the archive's end records no fingerprint.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { importCorpusFiles } from '../../shared/service/corpus/import';
import { importOsvArchive } from '../../shared/service/corpus/osv-import';
import {
  archiveBuckets,
  BUCKETS,
  recordArchiveBuckets,
  unchangedBuckets,
} from '../../shared/service/corpus/archive-fingerprints';
import { fileSource } from '../../shared/service/corpus/parse/zip-entries';
import { batchGet, getItem } from '../../shared/service/data/table-client';
import { keys } from '../../shared/service/data/keys';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import type { client } from '../support/http-client';
import { cycloneDxSbom } from '../support/seed';

const RECORDS = 300;
const suffix = randomUUID().replace(/-/g, '').slice(0, 8);
const digits = (index: number) => String(index).padStart(5, '0');

function record(index: number, fixed = '1.5.0', extra: Record<string, unknown> = {}) {
  return {
    schema_version: '1.6.0',
    id: `GHSA-fp${suffix.slice(0, 2)}-${suffix.slice(2, 6)}-${digits(index)}`,
    modified: '2026-12-01T00:00:00Z',
    aliases: [`CVE-2097-${digits(index)}${suffix.replace(/\D/g, '').padEnd(2, '7').slice(0, 2)}`],
    summary: `Issue ${index}`,
    details: 'Details',
    affected: [
      {
        package: { ecosystem: 'npm', name: `vexdesk-fp-${suffix}-${index}` },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed }] }],
      },
    ],
    database_specific: { severity: 'HIGH' },
    ...extra,
  };
}

function writeZip(dir: string, entries: Record<string, unknown>): string {
  const path = join(dir, 'all.zip');
  writeFileSync(
    path,
    zipSync(
      Object.fromEntries(
        Object.entries(entries).map(([name, content]) => [
          name,
          strToU8(typeof content === 'string' ? content : JSON.stringify(content)),
        ]),
      ),
    ),
  );
  return path;
}

const entriesOf = (records: ReturnType<typeof record>[]) =>
  Object.fromEntries(records.map((advisory) => [`${advisory.id}.json`, advisory]));

async function scanFindings(api: ReturnType<typeof client>, indexes: number[]): Promise<string[]> {
  const product = (await api.post('/api/products', { name: 'Fingerprints', slug: uniqueSlug('fp') })).body.data;
  const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;
  const components = indexes.map((index) => {
    const name = `vexdesk-fp-${suffix}-${index}`;
    return { name, version: '1.4.9', purl: `pkg:npm/${name}@1.4.9` };
  });
  const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content: cycloneDxSbom(components) })).body
    .data;
  await api.post('/api/cve-scan', { sbomId: sbom.id });
  const findings = (await api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).body.data as { cve_id: string }[];
  return findings.map((finding) => finding.cve_id).sort();
}

const cveOf = (index: number) => record(index).aliases[0]!;

describe('skipping the unchanged buckets of an OSV archive', () => {
  it('skips an unchanged archive whole and imports exactly a changed, a new and a withdrawn record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'osv-fp-'));
    const records = Array.from({ length: RECORDS }, (_, index) => record(index));
    const path = writeZip(dir, { ...entriesOf(records), 'broken.json': '{ not json' });

    const first = (await importCorpusFiles([path])).imported[0];
    expect(first).toMatchObject({ read: RECORDS, written: RECORDS, errors: 1, unchangedByFingerprint: 0 });
    const version = await getItem(keys.corpusVersion());

    // Nothing changed: every record is skipped but the broken entry's bucket, which has no fingerprint.
    const again = (await importCorpusFiles([path])).imported[0] as Record<string, number>;
    expect(again).toMatchObject({ read: RECORDS, written: 0, unchanged: RECORDS, withdrawn: 0, errors: 1 });
    expect(again.unchangedByFingerprint).toBeGreaterThanOrEqual(RECORDS - 5);
    expect(await getItem(keys.corpusVersion())).toEqual(version);

    const { api } = await createTeamWithKey();
    expect(await scanFindings(api, [1, 2, 3, RECORDS])).toEqual([cveOf(1), cveOf(2), cveOf(3)].sort());

    // Record 1 now fixed before 1.4.9, record 2 withdrawn, a new record RECORDS.
    const changed = [
      ...records.slice(0, 1),
      record(1, '1.4.0'),
      record(2, '1.5.0', { withdrawn: '2026-12-02T00:00:00Z' }),
      ...records.slice(3),
      record(RECORDS),
    ];
    writeZip(dir, { ...entriesOf(changed), 'broken.json': '{ not json' });
    const delta = (await importCorpusFiles([path])).imported[0] as Record<string, number>;
    expect(delta).toMatchObject({ read: RECORDS + 1, written: 2, withdrawn: 1, unchanged: RECORDS - 2, errors: 1 });
    // Only the few buckets holding a changed entry were read.
    expect(delta.unchangedByFingerprint).toBeGreaterThanOrEqual(RECORDS - 20);
    expect(await scanFindings(api, [1, 2, 3, RECORDS])).toEqual([cveOf(3), cveOf(RECORDS)].sort());
    const withdrawn = await getItem(keys.corpusAdvisory(record(2).id));
    expect(withdrawn).toBeUndefined();
  });

  it('records no fingerprint for an import that stopped before the archive ended, and all once it completes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'osv-fp-stop-'));
    const records = Array.from({ length: 50 }, (_, index) => record(1000 + index));
    const path = writeZip(dir, entriesOf(records));
    const scope = `test:${randomUUID()}`;
    const fingerprintKeys = Array.from({ length: BUCKETS / 512 }, (_, part) =>
      keys.corpusArchiveFingerprints(scope, part),
    );
    const source = await fileSource(path);
    try {
      const stopped = await importOsvArchive(source, { scope, checkpointRecords: 10, shouldStop: () => true });
      expect(stopped).toMatchObject({ done: false, next: 10 });
      expect(await batchGet(fingerprintKeys)).toHaveLength(0);

      const rest = await importOsvArchive(source, { scope, from: stopped.next });
      expect(rest).toMatchObject({ done: true, read: 40, unchangedByFingerprint: 0 });
      expect(await batchGet(fingerprintKeys)).toHaveLength(fingerprintKeys.length);
      const again = await importOsvArchive(source, { scope });
      expect(again).toMatchObject({ done: true, read: 50, written: 0, unchangedByFingerprint: 50 });
    } finally {
      await source.close?.();
    }

    // A later version revising the first record, interrupted after that record was written: importing the
    // archive as it was again reads that record's bucket (its fingerprint was dropped) and sets it back.
    writeZip(dir, entriesOf([record(1000, '1.4.0'), ...records.slice(1)]));
    const revised = await fileSource(path);
    try {
      const stopped = await importOsvArchive(revised, { scope, checkpointRecords: 1, shouldStop: () => true });
      expect(stopped).toMatchObject({ done: false, written: 1 });
    } finally {
      await revised.close?.();
    }
    writeZip(dir, entriesOf(records));
    const original = await fileSource(path);
    try {
      const restored = await importOsvArchive(original, { scope });
      expect(restored).toMatchObject({ done: true, read: 50, written: 1 });
      expect(restored.unchangedByFingerprint).toBeGreaterThanOrEqual(45);
    } finally {
      await original.close?.();
    }
  });

  it('fingerprints recorded without the package filter let only an unfiltered import skip', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'osv-fp-filter-'));
    const path = resolve(writeZip(dir, entriesOf([record(2000), record(2001)])));
    const source = await fileSource(path);
    try {
      const buckets = await archiveBuckets(source, 2);
      const scope = `test:${randomUUID()}`;
      await recordArchiveBuckets(scope, buckets, false, new Set());
      const count = (flags: Uint8Array) => flags.reduce((sum, flag) => sum + flag, 0);
      expect(count(await unchangedBuckets(scope, buckets, true))).toBe(0);
      expect(count(await unchangedBuckets(scope, buckets, false))).toBe(BUCKETS);
      await recordArchiveBuckets(scope, buckets, true, new Set([buckets.bucketOf[0]!]));
      expect(count(await unchangedBuckets(scope, buckets, true))).toBe(BUCKETS - 1);
    } finally {
      await source.close?.();
    }
  });
});
