/**
 * Test data for flows downstream of the scan, made the way production makes
 * it: synthetic advisories (unique packages per call) are imported into the
 * corpus, a CycloneDX SBOM naming those packages is uploaded through the API,
 * and the real scan produces the findings.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { importAdvisories, importKev } from '../../shared/service/corpus/import';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { uniqueSlug } from './factories';
import type { client } from './http-client';

type Api = ReturnType<typeof client>;

/** A CycloneDX 1.5 SBOM of these libraries; one without a purl is known by name and version only. */
export function cycloneDxSbom(components: { name: string; version: string; purl?: string }[]): string {
  return JSON.stringify(
    {
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      version: 1,
      serialNumber: `urn:uuid:${randomUUID()}`,
      metadata: {
        component: { type: 'application', name: 'app', version: '1.0.0' },
        tools: { components: [{ type: 'application', name: 'test-tool', version: '1' }] },
      },
      components: components.map((component, index) => ({
        type: 'library',
        'bom-ref': component.purl ?? `component-${index}`,
        name: component.name,
        version: component.version,
        ...(component.purl ? { purl: component.purl } : {}),
      })),
    },
    null,
    2,
  );
}

/** CVSS 3.1 vectors scoring critical (9.8), high (7.5), medium (5.3) and low (3.1). */
const VECTORS = [
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
  'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
];

export interface SeededFinding {
  id: string;
  sbomId: string;
  cveId: string;
  componentName: string;
}

/** Every row of a paged vulnerability list (500 a page). */
export async function listAll<T>(api: Api, path: string): Promise<T[]> {
  const rows: T[] = [];
  for (let page = 1; ; page += 1) {
    const response = await api.get(`${path}${path.includes('?') ? '&' : '?'}perPage=500&page=${page}`);
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${response.text.slice(0, 300)}`);
    rows.push(...(response.body.data as T[]));
    if (!response.body.meta.hasNextPage) return rows;
  }
}

export async function seedReleaseWithFindings(api: Api, _teamId: string, count = 4) {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  const base = randomInt(1_000_000, 9_000_000);
  const packages = Array.from({ length: count }, (_, index) => ({
    name: `seed-${suffix}-lib${index}`,
    version: `1.${index}.0`,
    cve: `CVE-2090-${base + index}`,
  }));
  await importAdvisories(
    packages.map((pkg, index) => ({
      source: 'seed',
      advisory: parseOsvAdvisory({
        id: `GHSA-seed-${suffix}-${index}`,
        modified: new Date().toISOString(),
        aliases: [pkg.cve],
        summary: `Seeded <b>issue</b> ${index}`,
        details: 'Seeded',
        severity: [{ type: 'CVSS_V3', score: VECTORS[index % VECTORS.length] }],
        database_specific: { cwe_ids: ['CWE-79'] },
        affected: [
          {
            package: { ecosystem: 'npm', name: pkg.name },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
          },
        ],
      }),
    })),
  );
  await importKev({
    catalogVersion: 'seed',
    dateReleased: new Date().toISOString(),
    skipped: 0,
    entries: new Map([
      [
        packages[0]!.cve,
        {
          cveID: packages[0]!.cve,
          vendorProject: 'seed',
          product: 'seed',
          vulnerabilityName: 'seed',
          dateAdded: '2026-01-01',
          shortDescription: '',
          requiredAction: '',
          dueDate: '2026-01-22',
          knownRansomwareCampaignUse: 'Unknown',
          notes: '',
          cwes: [],
        },
      ],
    ]),
  });
  const product = (
    await api.post('/api/products', { name: 'Seeded <App>', slug: uniqueSlug('seeded'), vendor: 'ACME Corp' })
  ).body.data;
  const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;
  const content = cycloneDxSbom(
    packages.map((pkg) => ({ name: pkg.name, version: pkg.version, purl: `pkg:npm/${pkg.name}@${pkg.version}` })),
  );
  const upload = await api.post('/api/sboms/upload', { releaseId: release.id, content, fileName: 'bom.json' });
  if (upload.status !== 201) throw new Error(`seed upload failed: ${upload.status} ${upload.text}`);
  const sbom = upload.body.data;
  const scan = await api.post('/api/cve-scan', { sbomId: sbom.id });
  if (scan.status !== 202 || scan.body.data.findingCount !== count)
    throw new Error(`seed scan found ${String(scan.body.data?.findingCount)} of ${count}`);
  const vulnerabilities = await listAll<{ id: string; cve_id: string; component_name: string }>(
    api,
    `/api/sboms/${sbom.id}/vulnerabilities`,
  );
  // In package order, so callers can rely on index i ↔ lib<i> ↔ severity VECTORS[i % 4].
  const findings: SeededFinding[] = packages.map((pkg) => {
    const match = vulnerabilities.find((entry) => entry.component_name === pkg.name);
    if (!match) throw new Error(`seed: no finding for ${pkg.name}`);
    return { id: match.id, sbomId: sbom.id, cveId: match.cve_id, componentName: pkg.name };
  });
  return { product, release, sbom, findings };
}
