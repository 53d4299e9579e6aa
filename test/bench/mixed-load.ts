/**
 * The mixed load of the API bench: 20 clients on one team through HTTP, reads and writes interleaved as a
 * team's console, CLI and CI jobs make them at once: products, releases, findings lists (from real SBOMs scanned
 * against the sample corpus), the dashboard, product and decision updates, new releases and SBOM uploads (each
 * upload starts a scan in the background, which takes the same cores). One p50/p99 over all requests beside the
 * issue's target (p99 ≤ 200 ms, 0 errors), then each operation's own (docs/corpus-at-scale.md "The API under a mixed load").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inParallel } from '../../shared/service/concurrency';
import { ms, percentile, requestIndices } from './stats';

const CLIENTS = 20;
const TARGET_P99_MS = 200;
/** Real SBOMs with findings against the sample corpus (test/fixtures/README.md). */
const SBOM_FIXTURES = [
  'cyclonedx-1.5_maven_cdxgen_vuln-spring.json',
  'cyclonedx-1.6_npm_cyclonedx-npm_demo-bundled-deps.json',
];

type Operation = { name: string; method: string; path: (index: number) => string; body?: (index: number) => unknown };

interface Seeded {
  productIds: string[];
  /** Releases with a scanned SBOM: their findings lists are read. */
  scannedReleaseIds: string[];
  sbomIds: string[];
  dispositionIds: string[];
  /** Empty releases, one per upload the load makes (a release takes its SBOMs until it is submitted). */
  uploadReleaseIds: string[];
}

/**
 * One cycle of 20 requests: 13 reads and 7 writes. Request i takes slot i mod 20, so every client meets every
 * operation and each operation's requests spread over the run.
 */
function cycle(seeded: Seeded, sbomContent: string): { operations: Operation[]; releasesCreated: () => number } {
  const at = <T>(list: T[], index: number): T => list[index % list.length] as T;
  const product: Operation = {
    name: 'GET /api/products/{id}',
    method: 'GET',
    path: (i) => `/api/products/${at(seeded.productIds, i)}`,
  };
  const findings: Operation = {
    name: 'GET /api/releases/{id}/vulnerabilities',
    method: 'GET',
    path: (i) => `/api/releases/${at(seeded.scannedReleaseIds, i)}/vulnerabilities?perPage=50`,
  };
  let uploads = 0;
  let releases = 0;
  const operations: Operation[] = [
    product,
    findings,
    {
      name: 'GET /api/products?perPage=25',
      method: 'GET',
      path: (i) => `/api/products?perPage=25&page=${(i % 4) + 1}`,
    },
    product,
    {
      name: 'PUT /api/products/{id}',
      method: 'PUT',
      path: (i) => `/api/products/${at(seeded.productIds, i)}`,
      body: (i) => ({ description: `Changed by request ${i}` }),
    },
    { name: 'GET /api/releases/{id}', method: 'GET', path: (i) => `/api/releases/${at(seeded.scannedReleaseIds, i)}` },
    product,
    findings,
    {
      name: 'PUT /api/dispositions/{id}',
      method: 'PUT',
      path: (i) => `/api/dispositions/${at(seeded.dispositionIds, i)}`,
      body: (i) => ({ detail: `Reviewed in request ${i}` }),
    },
    {
      name: 'GET /api/sboms/{id}/vulnerabilities',
      method: 'GET',
      path: (i) => `/api/sboms/${at(seeded.sbomIds, i)}/vulnerabilities?perPage=50`,
    },
    product,
    {
      name: 'POST /api/products/{id}/releases',
      method: 'POST',
      path: (i) => `/api/products/${at(seeded.productIds, i)}/releases`,
      body: (i) => ({ version: `9.${i}.${releases++}` }),
    },
    { name: 'GET /api/dashboard', method: 'GET', path: () => '/api/dashboard' },
    findings,
    {
      name: 'PUT /api/products/{id}',
      method: 'PUT',
      path: (i) => `/api/products/${at(seeded.productIds, i + 7)}`,
      body: (i) => ({ vendor: `Vendor ${i}` }),
    },
    product,
    {
      name: 'POST /api/sboms/upload',
      method: 'POST',
      path: () => '/api/sboms/upload',
      body: () => ({ releaseId: at(seeded.uploadReleaseIds, uploads++), content: sbomContent }),
    },
    {
      name: 'GET /api/releases/{id}',
      method: 'GET',
      path: (i) => `/api/releases/${at(seeded.scannedReleaseIds, i + 3)}`,
    },
    product,
    {
      name: 'PUT /api/dispositions/{id}',
      method: 'PUT',
      path: (i) => `/api/dispositions/${at(seeded.dispositionIds, i + 5)}`,
      body: (i) => ({ status: 'under_investigation', impactStatement: `Assessed in request ${i}` }),
    },
  ];
  return { operations, releasesCreated: () => releases };
}

type Call = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

/** Products, scanned releases with a decision on some of their findings, and empty releases for the uploads. */
async function seed(call: Call, uploads: number): Promise<Seeded> {
  const seeded: Seeded = {
    productIds: [],
    scannedReleaseIds: [],
    sbomIds: [],
    dispositionIds: [],
    uploadReleaseIds: [],
  };
  for (let index = 0; index < 50; index += 1) {
    const product = await call('POST', '/api/products', {
      name: `Mixed product ${index}`,
      slug: `mixed-${'abcdefghijklmnopqrstuvwxyz'[index % 26] ?? 'a'}-${'abcdefghijklmnopqrstuvwxyz'[Math.floor(index / 26)] ?? 'a'}`,
      vendor: 'Bench',
    });
    seeded.productIds.push(String(product.id));
  }
  const fixtures = SBOM_FIXTURES.map((name) =>
    readFileSync(join(import.meta.dirname, '../fixtures/sboms', name), 'utf8'),
  );
  for (let index = 0; index < 6; index += 1) {
    const release = await call('POST', `/api/products/${seeded.productIds[index] ?? ''}/releases`, {
      version: `1.${index}.0`,
    });
    seeded.scannedReleaseIds.push(String(release.id));
    for (const content of fixtures) {
      const sbom = await call('POST', '/api/sboms/upload', { releaseId: release.id, content });
      seeded.sbomIds.push(String(sbom.id));
      // Joins the upload's scan and answers when it is done.
      await call('POST', '/api/cve-scan', { sbomId: sbom.id });
    }
    const listed = (await call(
      'GET',
      `/api/releases/${String(release.id)}/vulnerabilities?perPage=10`,
    )) as unknown as Array<{ id: string }>;
    for (const finding of listed.slice(0, 5)) {
      const disposition = await call('POST', '/api/dispositions', {
        vulnerabilityId: finding.id,
        status: 'under_investigation',
      });
      seeded.dispositionIds.push(String(disposition.id));
    }
  }
  for (let index = 0; index < uploads; index += 1) {
    const release = await call(
      'POST',
      `/api/products/${seeded.productIds[index % seeded.productIds.length] ?? ''}/releases`,
      {
        version: `2.${index}.0`,
      },
    );
    seeded.uploadReleaseIds.push(String(release.id));
  }
  if (seeded.dispositionIds.length === 0) throw new Error('the scanned SBOMs had no findings to decide on');
  return seeded;
}

/** Runs the mixed load against a server whose demo team's key is in dataDir/bootstrap.json. */
export async function benchMixedLoad(baseUrl: string, dataDir: string, requests = 2000): Promise<string[]> {
  const { apiKey } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const call: Call = async (method, path, body) => {
    const response = await send(method, path, body);
    const parsed = (await response.json()) as { data: Record<string, unknown> };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`);
    return parsed.data;
  };
  const seeded = await seed(call, Math.ceil(requests / 20));
  const { operations, releasesCreated } = cycle(
    seeded,
    readFileSync(join(import.meta.dirname, '../fixtures/sboms', SBOM_FIXTURES[1] ?? ''), 'utf8'),
  );

  const latencies: number[] = [];
  const byOperation = new Map<string, number[]>();
  const failures = new Map<string, number>();
  const startedAt = performance.now();
  await inParallel(requestIndices(requests), CLIENTS, async (index) => {
    const operation = operations[index % operations.length] as Operation;
    const t0 = performance.now();
    const response = await send(operation.method, operation.path(index), operation.body?.(index));
    await response.arrayBuffer();
    const took = performance.now() - t0;
    latencies.push(took);
    const samples = byOperation.get(operation.name) ?? [];
    samples.push(took);
    byOperation.set(operation.name, samples);
    if (response.status >= 400) {
      const key = `${operation.name} ${response.status}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    }
  });
  const seconds = (performance.now() - startedAt) / 1000;
  // What one dashboard read costs alone, once the load has grown the team (its cost follows the team's releases).
  const dashboard: number[] = [];
  for (let index = 0; index < 10; index += 1) {
    const t0 = performance.now();
    await call('GET', '/api/dashboard');
    dashboard.push(performance.now() - t0);
  }
  const products = (await (await send('GET', '/api/products?perPage=1')).json()) as { meta: { total: number } };
  const releases = seeded.scannedReleaseIds.length + seeded.uploadReleaseIds.length + releasesCreated();
  const errors = [...failures.values()].reduce((sum, count) => sum + count, 0);
  const p99 = percentile(latencies, 99);
  const verdict = p99 <= TARGET_P99_MS && errors === 0 ? 'OK' : 'MISSED';
  return [
    `Mixed load, ${CLIENTS} concurrent clients, ${requests} requests (13 reads and 7 writes in every 20, uploads scanned in the background):`,
    `  all requests${' '.repeat(40)} p50 ${ms(percentile(latencies, 50)).padStart(9)}  p99 ${ms(p99).padStart(9)}  ${(requests / seconds).toFixed(0).padStart(5)} req/s  (${errors} errors${errors > 0 ? `: ${[...failures].map(([key, count]) => `${key} x${count}`).join(', ')}` : ''})  (target p99 ≤ ${TARGET_P99_MS} ms, 0 errors)  ${verdict}`,
    `  GET /api/dashboard alone after the load (1 client, ${products.meta.total.toLocaleString('en')} products, ${releases} releases in the team): median ${ms(percentile(dashboard, 50))}`,
    ...[...byOperation].map(
      ([name, samples]) =>
        `    ${name.padEnd(48)} p50 ${ms(percentile(samples, 50)).padStart(9)}  p99 ${ms(percentile(samples, 99)).padStart(9)}  (${samples.length} requests)`,
    ),
  ];
}
