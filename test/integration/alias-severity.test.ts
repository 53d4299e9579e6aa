import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importCorpusFiles } from '../../shared/service/corpus/import';
import { applyCorpusChanges } from '../../shared/service/watch/watch';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import type { client } from '../support/http-client';
import { goVulndbRecord, scoredGoRecord } from '../support/corpus-records';
import { cycloneDxSbom } from '../support/seed';

const ROOT = resolve(import.meta.dirname, '../..');
const SBOMGR = join(ROOT, 'test/fixtures/sboms/cyclonedx-1.4_go-cargo-pypi_syft_sbomgr.json');
const SAMPLE = join(ROOT, 'shared/service/corpus/sample/osv');

type Vulnerability = {
  id: string;
  advisory_id: string;
  cve_id: string;
  aliases: string[];
  component_purl: string | null;
  severity: string;
  severity_source: string | null;
  severity_source_id: string | null;
  cvss_v3_score: number | null;
  cvss_v3_vector: string | null;
};
type OsvJson = { id: string; aliases?: string[]; severity?: { type: string; score: string }[] };

const sampleRecord = (directory: string, id: string): OsvJson =>
  JSON.parse(readFileSync(join(SAMPLE, directory, `${id}.json`), 'utf8')) as OsvJson;
const cvssV3Of = (record: OsvJson) => record.severity?.find((entry) => entry.type === 'CVSS_V3')?.score;

async function uploadAndScan(api: ReturnType<typeof client>, content: string) {
  const product = (await api.post('/api/products', { name: 'Alias severity', slug: uniqueSlug('alias-severity') })).body
    .data;
  const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;
  const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content })).body.data as { id: string };
  expect((await api.post('/api/cve-scan', { sbomId: sbom.id })).status).toBe(202);
  return sbom;
}

async function vulnerabilities(api: ReturnType<typeof client>, sbomId: string): Promise<Vulnerability[]> {
  const response = await api.get(`/api/sboms/${sbomId}/vulnerabilities`);
  expect(response.status).toBe(200);
  return response.body.data as Vulnerability[];
}

function writeDir(records: Record<string, unknown>[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'osv-alias-'));
  for (const record of records) writeFileSync(join(dir, `${String(record.id)}.json`), JSON.stringify(record));
  return dir;
}

describe('severity from aliased records', () => {
  it('gives the Go findings of a real syft SBOM the CVSS of the GHSA records their Go advisories alias', async () => {
    const { api } = await createTeamWithKey();
    const sbom = await uploadAndScan(api, readFileSync(SBOMGR, 'utf8'));
    const goFindings = (await vulnerabilities(api, sbom.id)).filter((v) => v.component_purl?.startsWith('pkg:golang/'));
    expect(goFindings.length).toBeGreaterThan(40);

    // GO-2022-0288 (golang.org/x/net) has no CVSS; GHSA-vc3p-29h2-gpcp, which it lists, names only the
    // package path golang.org/x/net/http2 and so does not match itself: the finding borrows its score.
    const ghsa = sampleRecord('ghsa', 'GHSA-vc3p-29h2-gpcp');
    expect(sampleRecord('go', 'GO-2022-0288').severity ?? []).toEqual([]);
    const borrowed = goFindings.filter((v) => v.advisory_id === 'GO-2022-0288');
    expect(borrowed).toHaveLength(1);
    expect(borrowed[0]).toMatchObject({
      severity: 'HIGH',
      severity_source: 'cvss_v3',
      severity_source_id: 'GHSA-vc3p-29h2-gpcp',
      cvss_v3_vector: cvssV3Of(ghsa),
      cvss_v3_score: 7.5,
    });

    // Every Go finding whose advisories include a GO record that lists a GHSA record of the corpus
    // carries that GHSA record's CVSS and names it, whichever of the two the finding's primary is.
    const ghsaIds = new Set(
      readFileSync(join(SAMPLE, '../NOTICE.md'), 'utf8').match(/GHSA-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}(?=\.json)/g),
    );
    let checked = 0;
    for (const finding of goFindings) {
      const goId = [finding.advisory_id, ...finding.aliases].find((id) => id.startsWith('GO-'));
      if (!goId) continue;
      const listed = (sampleRecord('go', goId).aliases ?? []).find((alias) => ghsaIds.has(alias));
      if (!listed) continue;
      checked += 1;
      expect({
        id: finding.advisory_id,
        source: finding.severity_source_id,
        vector: finding.cvss_v3_vector,
        severity: finding.severity,
      }).toEqual({
        id: finding.advisory_id,
        source: listed,
        vector: cvssV3Of(sampleRecord('ghsa', listed)),
        severity: expect.not.stringMatching(/^NONE$/),
      });
    }
    expect(checked).toBeGreaterThanOrEqual(20);
    // Findings whose advisory scores itself name their own advisory.
    for (const finding of goFindings.filter((v) => v.advisory_id.startsWith('GHSA-')))
      expect(finding.severity_source_id).toBe(finding.advisory_id);
  });

  it('upgrades a finding on its next scan once a refresh adds a scored alias, in either import order, and undoes it on withdrawal', async () => {
    const suffix = randomUUID().replace(/-/g, '').slice(0, 8);
    const digits = String(parseInt(suffix, 16) % 100000).padStart(5, '0');
    const vector = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
    const ghsaRecord = (id: string, aliases: string[], extra: Record<string, unknown> = {}) =>
      scoredGoRecord(id, aliases, vector, `example.com/elsewhere-${suffix}`, {
        database_specific: { severity: 'CRITICAL' },
        ...extra,
      });
    const { api } = await createTeamWithKey();

    // GO record first, scanned while it has no scored alias; then the GHSA record arrives naming the GO id
    // (the GO record does not list it).
    const moduleA = `example.com/alias-a-${suffix}`;
    const goA = goVulndbRecord(`GO-2099-${digits}1`, moduleA, [`CVE-2099-${digits}1`]);
    expect((await importCorpusFiles([writeDir([goA])])).imported[0]).toMatchObject({ written: 1 });
    // GO-A's import left a journal item naming its package. Applied before any SBOM holds that package, it
    // re-evaluates nothing: the server's watch poll, which applies the same items every 5 s, has nothing left
    // that leads to sbomA. (Applied after the upload, a poll in flight could re-evaluate sbomA once the GHSA
    // record below had arrived, borrowing its score before the check that stored findings keep theirs.)
    await applyCorpusChanges();
    const sbomA = await uploadAndScan(
      api,
      cycloneDxSbom([{ name: moduleA, version: 'v1.2.0', purl: `pkg:golang/${moduleA}@v1.2.0` }]),
    );
    const [before] = await vulnerabilities(api, sbomA.id);
    expect(before).toMatchObject({
      advisory_id: goA.id,
      severity: 'NONE',
      severity_source: null,
      severity_source_id: null,
      cvss_v3_score: null,
    });

    const ghsaA = ghsaRecord(`GHSA-${suffix.slice(0, 4)}-${suffix.slice(4)}-aaaa`, [goA.id]);
    expect((await importCorpusFiles([writeDir([ghsaA])])).imported[0]).toMatchObject({ written: 1 });
    // Stored findings keep their severity until their next scan.
    expect((await vulnerabilities(api, sbomA.id))[0]).toMatchObject({ severity: 'NONE' });
    expect((await api.post('/api/cve-scan', { sbomId: sbomA.id })).status).toBe(202);
    const [after] = await vulnerabilities(api, sbomA.id);
    expect(after).toMatchObject({
      id: before?.id,
      advisory_id: goA.id,
      severity: 'CRITICAL',
      severity_source: 'cvss_v3',
      severity_source_id: ghsaA.id,
      cvss_v3_vector: vector,
      cvss_v3_score: 9.8,
    });

    // The GHSA record is withdrawn: the next scan has no score to borrow.
    expect(
      (
        await importCorpusFiles([
          writeDir([{ ...ghsaA, modified: '2026-02-01T00:00:00Z', withdrawn: '2026-02-01T00:00:00Z' }]),
        ])
      ).imported[0],
    ).toMatchObject({ withdrawn: 1 });
    expect((await api.post('/api/cve-scan', { sbomId: sbomA.id })).status).toBe(202);
    expect((await vulnerabilities(api, sbomA.id))[0]).toMatchObject({
      severity: 'NONE',
      severity_source: null,
      severity_source_id: null,
    });

    // The other order: a GHSA record sharing only the CVE is imported before the GO record.
    const moduleB = `example.com/alias-b-${suffix}`;
    const cveB = `CVE-2099-${digits}2`;
    const ghsaB = ghsaRecord(`GHSA-${suffix.slice(0, 4)}-${suffix.slice(4)}-bbbb`, [cveB]);
    const goB = goVulndbRecord(`GO-2099-${digits}2`, moduleB, [cveB]);
    await importCorpusFiles([writeDir([ghsaB])]);
    await importCorpusFiles([writeDir([goB])]);
    const sbomB = await uploadAndScan(
      api,
      cycloneDxSbom([{ name: moduleB, version: 'v1.2.0', purl: `pkg:golang/${moduleB}@v1.2.0` }]),
    );
    expect((await vulnerabilities(api, sbomB.id))[0]).toMatchObject({
      advisory_id: goB.id,
      cve_id: cveB,
      severity: 'CRITICAL',
      severity_source: 'cvss_v3',
      severity_source_id: ghsaB.id,
    });
  });
});
