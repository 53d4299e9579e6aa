/**
 * Test data for flows downstream of the scan: a product, a release, a real
 * SBOM uploaded through the API, and findings written with the finding store's
 * own item builder (as the scanner writes them).
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../../shared/data/keys';
import { batchWrite } from '../../shared/data/table-client';
import { pointerItem } from '../../shared/data/id-pointers';
import { findingId, findingItem, type Finding } from '../../shared/scans/finding-store';
import { uniqueSlug } from './factories';
import type { client } from './http-client';

type Api = ReturnType<typeof client>;

export function cycloneDxSbom(components: { name: string; version: string; purl: string }[]): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.5', version: 1, serialNumber: `urn:uuid:${randomUUID()}`,
    metadata: { component: { type: 'application', name: 'app', version: '1.0.0' }, tools: { components: [{ type: 'application', name: 'test-tool', version: '1' }] } },
    components: components.map((component) => ({ type: 'library', 'bom-ref': component.purl, name: component.name, version: component.version, purl: component.purl })),
  }, null, 2);
}

const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;

export async function seedReleaseWithFindings(api: Api, teamId: string, count = 4) {
  const product = (await api.post('/api/products', { name: 'Seeded <App>', slug: uniqueSlug('seeded'), vendor: 'ACME Corp' })).body.data;
  const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;
  const components = Array.from({ length: count }, (_, index) => ({ name: `lib${index}`, version: `1.${index}.0`, purl: `pkg:npm/lib${index}@1.${index}.0` }));
  const upload = await api.post('/api/sboms/upload', { releaseId: release.id, content: cycloneDxSbom(components), fileName: 'bom.json' });
  if (upload.status !== 201) throw new Error(`seed upload failed: ${upload.status} ${upload.text}`);
  const sbom = upload.body.data;
  const now = new Date().toISOString();
  const findings: Finding[] = components.map((component, index) => {
    const severity = SEVERITIES[index % SEVERITIES.length] ?? 'LOW';
    const score = { CRITICAL: 9.8, HIGH: 7.5, MEDIUM: 5.3, LOW: 3.1 }[severity];
    return {
      id: findingId(sbom.id, component.purl, `GHSA-seed-${index}`), teamId, productId: product.id, releaseId: release.id, sbomId: sbom.id,
      advisoryId: `GHSA-seed-${index}`, cveId: `CVE-2024-${String(1000 + index)}`, aliases: [`CVE-2024-${String(1000 + index)}`],
      summary: `Seeded issue ${index}`, componentRef: component.purl, componentName: component.name, componentVersion: component.version, componentPurl: component.purl,
      severity, severitySource: 'cvss_v3', cvssV2: null, cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score, severity }, cvssV4: null,
      epss: { score: 0.1 * (index + 1), percentile: 0.5, date: '2026-11-01' }, kev: index === 0 ? { dateAdded: '2026-01-01', dueDate: '2026-01-22', knownRansomwareCampaignUse: 'Unknown' } : null,
      cwes: ['CWE-79'], affectedVersions: ['<2.0.0'], fixedVersions: ['2.0.0'], matchConfidence: 'exact', matchEvidence: { kind: 'purl', value: component.purl },
      firstDetectedAt: now, lastSeenAt: now, noLongerDetected: false,
    };
  });
  await batchWrite(findings.flatMap((finding) => [
    findingItem(finding),
    pointerItem(teamId, finding.id, { entityType: 'finding', target: keys.finding(teamId, product.id, release.id, sbom.id, finding.id), productId: product.id, releaseId: release.id, sbomId: sbom.id }),
  ]));
  return { product, release, sbom, findings };
}
