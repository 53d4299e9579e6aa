/** Uploads of the committed SBOM fixtures over HTTP, for the SBOM tests (test/integration/sboms*.test.ts). */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createTeamWithKey, uniqueSlug } from './factories';
import { cycloneDxSbom } from './seed';

export const SBOM_FIXTURES = resolve(import.meta.dirname, '../fixtures/sboms');

/** A release of a new product of the team holding `api`. */
export async function releaseFor(api: Awaited<ReturnType<typeof createTeamWithKey>>['api']) {
  const product = (await api.post('/api/products', { name: 'Scanned', slug: uniqueSlug('scanned') })).body.data;
  return (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data as { id: string };
}

/** A new team's release holding the vulnerable Spring app's SBOM, scanned. */
export async function scannedSpringSbom() {
  const { api } = await createTeamWithKey();
  const release = await releaseFor(api);
  const content = readFileSync(join(SBOM_FIXTURES, 'cyclonedx-1.5_maven_cdxgen_vuln-spring.json'), 'utf8');
  const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content })).body.data as { id: string };
  await api.post('/api/cve-scan', { sbomId: sbom.id });
  return { api, release, sbom };
}

/** A new product's release holding one npm package at `version`, uploaded and scanned. */
export async function scannedPackageSbom(
  api: Awaited<ReturnType<typeof createTeamWithKey>>['api'],
  pkg: string,
  version: string,
): Promise<{ id: string }> {
  const release = await releaseFor(api);
  const content = cycloneDxSbom([{ name: pkg, version, purl: `pkg:npm/${pkg}@${version}` }]);
  const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content })).body.data as { id: string };
  await api.post('/api/cve-scan', { sbomId: sbom.id });
  return sbom;
}
