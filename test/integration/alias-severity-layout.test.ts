import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCorpusFiles } from '../../shared/service/corpus/import';
import { keys } from '../../shared/service/data/keys';
import { getItem, putItem } from '../../shared/service/data/table-client';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import type { client } from '../support/http-client';
import { goVulndbRecord, scoredGoRecord } from '../support/corpus-records';
import { cycloneDxSbom } from '../support/seed';

/**
 * The alias index files a record under its aliases only; a finding reads the records it lists from
 * their advisory items (docs/scanning.md "Severity from aliased records").
 */
type Api = ReturnType<typeof client>;
type Vulnerability = {
  advisory_id: string;
  severity: string;
  severity_source: string | null;
  severity_source_id: string | null;
  cvss_v3_score: number | null;
};

const CRITICAL = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const MEDIUM = 'CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:H/I:N/A:N';
const NO_SCORE = { severity: 'NONE', severity_source: null, severity_source_id: null, cvss_v3_score: null };

const suffix = randomUUID().replace(/-/g, '').slice(0, 8);
const digits = String(parseInt(suffix, 16) % 100000).padStart(5, '0');

const elsewhere = `example.com/elsewhere-${suffix}`;
const ghsaRecord = (id: string, aliases: string[], vector: string, extra: Record<string, unknown> = {}) =>
  scoredGoRecord(id, aliases, vector, elsewhere, extra);

async function importRecords(...records: Record<string, unknown>[]) {
  const dir = mkdtempSync(join(tmpdir(), 'osv-alias-layout-'));
  for (const record of records) writeFileSync(join(dir, `${String(record.id)}.json`), JSON.stringify(record));
  return (await importCorpusFiles([dir])).imported[0];
}

async function scannedSbom(api: Api, module: string): Promise<string> {
  const product = (await api.post('/api/products', { name: 'Alias layout', slug: uniqueSlug('alias-layout') })).body
    .data;
  const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;
  const content = cycloneDxSbom([{ name: module, version: 'v1.2.0', purl: `pkg:golang/${module}@v1.2.0` }]);
  const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content })).body.data as { id: string };
  return sbom.id;
}

async function rescan(api: Api, sbomId: string): Promise<Vulnerability[]> {
  expect((await api.post('/api/cve-scan', { sbomId })).status).toBe(202);
  const response = await api.get(`/api/sboms/${sbomId}/vulnerabilities`);
  expect(response.status).toBe(200);
  return response.body.data as Vulnerability[];
}

const aliasItem = (identifier: string) => getItem(keys.corpusAlias(identifier));

describe('alias index layout', () => {
  it("reads a listed record's own scores from its advisory item, follows its revision and withdrawal, and still reads an item holding its own entry", async () => {
    const { api } = await createTeamWithKey();
    const module = `example.com/layout-a-${suffix}`;
    const ghsaId = `GHSA-${suffix.slice(0, 4)}-${suffix.slice(4)}-aaaa`;
    const go = goVulndbRecord(`GO-2098-${digits}1`, module, [ghsaId]);
    const ghsa = ghsaRecord(ghsaId, [], CRITICAL);
    expect(await importRecords(go, ghsa)).toMatchObject({ written: 2 });
    // The GHSA record names nothing and the GO record has no scores: no alias item at all.
    expect(await aliasItem(ghsaId)).toBeUndefined();
    expect(await aliasItem(go.id)).toBeUndefined();

    const sbomId = await scannedSbom(api, module);
    expect((await rescan(api, sbomId))[0]).toMatchObject({
      advisory_id: go.id,
      severity: 'CRITICAL',
      severity_source: 'cvss_v3',
      severity_source_id: ghsaId,
      cvss_v3_score: 9.8,
    });

    // A revised score is read on the next scan.
    const revised = { ...ghsa, modified: '2026-03-01T00:00:00Z', severity: [{ type: 'CVSS_V3', score: MEDIUM }] };
    expect(await importRecords(revised)).toMatchObject({ written: 1 });
    expect((await rescan(api, sbomId))[0]).toMatchObject({ severity: 'MEDIUM', cvss_v3_score: 4.7 });

    // An item written before records left their own id's item holds the record's own entry: read alike.
    const ownEntry = {
      cveId: ghsaId,
      cvssV2: null,
      cvssV3: { vector: MEDIUM, score: 4.7, severity: 'MEDIUM' },
      cvssV4: null,
      databaseSeverity: null,
    };
    await putItem({
      ...keys.corpusAlias(ghsaId),
      entity: 'CorpusAlias',
      identifier: ghsaId,
      entriesJson: JSON.stringify({ [ghsaId]: ownEntry }),
    });
    expect((await rescan(api, sbomId))[0]).toMatchObject({ severity: 'MEDIUM', severity_source_id: ghsaId });

    // Withdrawn: its advisory item and the entry in its own id's item are gone.
    const withdrawn = { ...revised, modified: '2026-04-01T00:00:00Z', withdrawn: '2026-04-01T00:00:00Z' };
    expect(await importRecords(withdrawn)).toMatchObject({ withdrawn: 1 });
    expect(await aliasItem(ghsaId)).toBeUndefined();
    expect((await rescan(api, sbomId))[0]).toMatchObject({ advisory_id: go.id, ...NO_SCORE });
  });

  it('follows revised alias lists on either side', async () => {
    const { api } = await createTeamWithKey();
    const module = `example.com/layout-b-${suffix}`;
    const listedId = `GHSA-${suffix.slice(0, 4)}-${suffix.slice(4)}-bbbb`;
    const namingId = `GHSA-${suffix.slice(0, 4)}-${suffix.slice(4)}-cccc`;
    const go = goVulndbRecord(`GO-2098-${digits}2`, module, [listedId]);
    const listed = ghsaRecord(listedId, [], MEDIUM);
    // This one names the GO record: its entry is in the GO id's item.
    const naming = ghsaRecord(namingId, [go.id], CRITICAL);
    await importRecords(go, listed, naming);
    expect(Object.keys(JSON.parse(String((await aliasItem(go.id))?.entriesJson)) as object)).toEqual([namingId]);
    const sbomId = await scannedSbom(api, module);
    expect((await rescan(api, sbomId))[0]).toMatchObject({ severity: 'CRITICAL', severity_source_id: namingId });

    // The naming record drops the GO id: its entry leaves that item; the listed record is left.
    await importRecords({ ...naming, modified: '2026-03-01T00:00:00Z', aliases: [] });
    expect(await aliasItem(go.id)).toBeUndefined();
    expect((await rescan(api, sbomId))[0]).toMatchObject({ severity: 'MEDIUM', severity_source_id: listedId });

    // The GO record no longer lists the GHSA record: nothing to borrow.
    await importRecords(goVulndbRecord(go.id, module, [], '2026-03-01T00:00:00Z'));
    expect((await rescan(api, sbomId))[0]).toMatchObject({ advisory_id: go.id, ...NO_SCORE });
  });

  it("keeps a record's scores on its advisory item, not its text, and reads an item written with the whole record alike", async () => {
    const { api } = await createTeamWithKey();
    const module = `example.com/layout-c-${suffix}`;
    const bigId = `GHSA-${suffix.slice(0, 4)}-${suffix.slice(4)}-dddd`;
    const go = goVulndbRecord(`GO-2098-${digits}3`, module, [bigId]);
    // Over DynamoDB's item limit as a whole record: nothing of its text is stored, so nothing spills.
    const big = ghsaRecord(bigId, [], CRITICAL, { details: 'x'.repeat(360 * 1024) });
    await importRecords(go, big);
    const stored = await getItem(keys.corpusAdvisory(bigId));
    expect(JSON.parse(String(stored?.scoresJson))).toMatchObject({ cvssV3: { vector: CRITICAL, score: 9.8 } });
    expect(stored).not.toHaveProperty('advisoryJson');
    expect(stored).not.toHaveProperty('spillKey');
    expect(JSON.stringify(stored).length).toBeLessThan(2_000);
    // The GO record has no scores: its item holds none.
    expect(await getItem(keys.corpusAdvisory(go.id))).not.toHaveProperty('scoresJson');
    const sbomId = await scannedSbom(api, module);
    expect((await rescan(api, sbomId))[0]).toMatchObject({ severity: 'CRITICAL', severity_source_id: bigId });

    // An item written before advisory items kept only scores holds the record as `advisoryJson`: read alike.
    const { scoresJson: _scores, ...rest } = stored!;
    await putItem({
      ...rest,
      advisoryJson: JSON.stringify({
        id: bigId,
        cveId: bigId,
        cvssV2: null,
        cvssV3: { vector: MEDIUM, score: 4.7, severity: 'MEDIUM' },
        cvssV4: null,
        databaseSeverity: null,
      }),
    });
    expect((await rescan(api, sbomId))[0]).toMatchObject({ severity: 'MEDIUM', severity_source_id: bigId });
  });
});
