/** Products, releases and corpus records the CRA tests share (docs/cra-reporting.md). */
import { expect } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { importCorpusFiles } from '../../shared/service/corpus/import';
import { applyCorpusChanges } from '../../shared/service/watch/watch';
import type { createTeamWithKey } from './factories';
import { uniqueSlug } from './factories';
import { cycloneDxSbom } from './seed';

export type Api = Awaited<ReturnType<typeof createTeamWithKey>>['api'];
export const HOUR = 60 * 60 * 1000;

export function osvAdvisory(id: string, cve: string, pkg: string) {
  return {
    schema_version: '1.6.0',
    id,
    modified: new Date().toISOString(),
    aliases: [cve],
    summary: `Remote code execution in ${pkg}`,
    details: 'Details',
    affected: [
      {
        package: { ecosystem: 'npm', name: pkg },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
      },
    ],
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    database_specific: { cwe_ids: ['CWE-94'] },
  };
}

export function kevCatalog(cve: string) {
  const entry = {
    cveID: cve,
    vendorProject: 'x',
    product: 'x',
    vulnerabilityName: 'x',
    dateAdded: '2099-02-01',
    shortDescription: 'x',
    requiredAction: 'x',
    dueDate: '2099-02-22',
    knownRansomwareCampaignUse: 'Known',
    notes: '',
    cwes: [],
  };
  return {
    title: 'CISA KEV',
    catalogVersion: '2099.02.01',
    dateReleased: '2099-02-01T00:00:00Z',
    count: 1,
    vulnerabilities: [entry],
  };
}

export async function product(api: Api, craInScope: boolean) {
  const created = await api.post('/api/products', {
    name: `CRA ${randomUUID().slice(0, 6)}`,
    slug: uniqueSlug('cra'),
    // The public disclosure list is shared by all tests, and its documented answers name a vendor.
    vendor: 'ACME Corp',
    cra_in_scope: craInScope,
  });
  expect(created.status).toBe(201);
  return created.body.data as { id: string; name: string; cra_in_scope: boolean };
}

export async function shipped(
  api: Api,
  productId: string,
  version: string,
  pkg: string,
  pkgVersion: string,
  extra = {},
) {
  const release = (
    await api.post(`/api/products/${productId}/releases`, { version, releaseDate: '2026-01-15', ...extra })
  ).body.data;
  const upload = await api.post('/api/sboms/upload', {
    releaseId: release.id,
    content: cycloneDxSbom([{ name: pkg, version: pkgVersion, purl: `pkg:npm/${pkg}@${pkgVersion}` }]),
  });
  expect(upload.status).toBe(201);
  expect((await api.post('/api/cve-scan', { sbomId: upload.body.data.id })).status).toBeLessThan(300);
  return { releaseId: release.id as string, sbomId: upload.body.data.id as string };
}

export async function cases(api: Api, query = '') {
  const response = await api.get(`/api/cra/cases${query}`);
  expect(response.status).toBe(200);
  return response.body.data as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies
}

/** Imports corpus records (OSV advisories, a KEV catalogue) and applies their re-evaluation, as the refresh does. */
export async function importRecords(files: Record<string, unknown>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cra-'));
  const paths = Object.entries(files).map(([name, content]) => {
    writeFileSync(join(dir, name), JSON.stringify(content));
    return join(dir, name);
  });
  await importCorpusFiles(paths);
  expect(await applyCorpusChanges()).toMatchObject({ complete: true });
}
