/** Releases to import VEX into, and the import call, for the VEX import tests (test/integration/vex-import*.test.ts). */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from '@jest/globals';
import { uniqueSlug } from './factories';
import { request, type client } from './http-client';
import { cycloneDxSbom } from './seed';

export type Api = ReturnType<typeof client>;

/** A file of test/fixtures/vex-examples. */
export const vexExample = (path: string) => readFileSync(new URL(`../fixtures/vex-examples/${path}`, import.meta.url));
/** Hex SHA-256, as the import reports a document's hash. */
export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

export interface Vulnerability {
  id: string;
  advisory_id: string;
  cve_id: string;
  aliases: string[];
  component_name: string;
  component_purl: string | null;
  disposition?: { id: string; status: string; justification: string | null; response: string | null };
}

export interface StatementResult {
  pointer: string;
  vulnerability: string;
  product: string;
  status: string | null;
  outcome: 'applied' | 'unchanged' | 'unmatched';
  reason: string | null;
  vulnerabilityIds: string[];
}

/** Go modules Trivy's own OpenVEX speaks about, log4j-core at a Log4Shell version, and a package nothing speaks about. */
export const COMPONENTS = [
  { name: 'golang.org/x/net', version: 'v0.15.0', purl: 'pkg:golang/golang.org/x/net@v0.15.0' },
  { name: 'golang.org/x/crypto', version: 'v0.30.0', purl: 'pkg:golang/golang.org/x/crypto@v0.30.0' },
  { name: 'log4j-core', version: '2.14.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' },
];

/** A release of the product holding an SBOM of COMPONENTS, scanned; `vulnerabilities` lists its findings. */
export async function releaseWithSbom(api: Api, productId: string, version: string) {
  const release = (await api.post(`/api/products/${productId}/releases`, { version })).body.data as { id: string };
  const upload = await api.post('/api/sboms/upload', {
    releaseId: release.id,
    content: cycloneDxSbom(COMPONENTS),
    fileName: 'bom.json',
  });
  expect(upload.status).toBe(201);
  expect((await api.post('/api/cve-scan', { sbomId: upload.body.data.id })).status).toBe(202);
  const vulnerabilities = async () =>
    // Every finding on one page (the default page of 100 would cut two releases' lists at different findings).
    (await api.get(`/api/sboms/${upload.body.data.id}/vulnerabilities?perPage=500`)).body.data as Vulnerability[];
  expect((await vulnerabilities()).length).toBeGreaterThan(0);
  return { release, vulnerabilities };
}

/** A new product of the team to import into. */
export async function newProduct(api: Api) {
  return (await api.post('/api/products', { name: 'Import target', slug: uniqueSlug('vex-import'), vendor: 'ACME' }))
    .body.data as { id: string };
}

/** POST /api/releases/{releaseId}/vex-imports with the document as the raw body. */
export function importVex(
  key: string,
  releaseId: string,
  body: Buffer | string,
  contentType = 'application/json',
  extraHeaders: Record<string, string> = {},
) {
  return request('POST', `/api/releases/${releaseId}/vex-imports`, {
    key,
    rawBody: body,
    headers: { 'Content-Type': contentType, ...extraHeaders },
  });
}

/** Every id a finding answers to, upper-cased. */
export const ids = (v: Vulnerability) => [v.advisory_id, v.cve_id, ...v.aliases].map((id) => id.toUpperCase());
/** The import's statement results with one outcome. */
export const byOutcome = (statements: StatementResult[], outcome: string) =>
  statements.filter((s) => s.outcome === outcome);
