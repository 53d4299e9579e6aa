/**
 * The crash test's data before and between kills: the release with scanned SBOMs the workload
 * starts from, the warm-up of each cycle, and the pool of findings the disposition writers use.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { api } from './api';
import type { StoreReader } from './store-snapshot';
import {
  FIXTURES,
  fixtureContent,
  type Journal,
  type ProductOp,
  type ReleaseOp,
  type UploadOp,
  type WorkloadState,
} from './workload';

const POOL_LIMIT = 1_200;

/** Setup before the first kill: a release with scanned SBOMs whose findings the disposition writers use. */
export async function setUp(journal: Journal, state: WorkloadState): Promise<string[]> {
  const { baseUrl, apiKey } = state;
  const product = await journal.send<ProductOp>(
    { kind: 'product', client: 'setup' },
    baseUrl,
    apiKey,
    'POST',
    '/api/products',
    { name: 'Crash setup', slug: 'crash-setup' },
  );
  if (product.op.outcome !== 'acked' || !product.data)
    throw new Error(`setup: product → ${String(product.op.status)} ${String(product.op.answer)}`);
  const productId = String(product.data.id);
  product.op.productId = productId;
  const release = await journal.send<ReleaseOp>(
    { kind: 'release', client: 'setup', productId },
    baseUrl,
    apiKey,
    'POST',
    `/api/products/${productId}/releases`,
    { version: '1.0.0' },
  );
  if (release.op.outcome !== 'acked' || !release.data)
    throw new Error(`setup: release → ${String(release.op.status)} ${String(release.op.answer)}`);
  const releaseId = String(release.data.id);
  release.op.releaseId = releaseId;
  state.releases.push(releaseId);
  const sbomIds: string[] = [];
  for (const fixture of [FIXTURES[0], FIXTURES[0], FIXTURES[1]]) {
    const upload = await journal.send<UploadOp>(
      { kind: 'upload', client: 'setup', releaseId, fixture },
      baseUrl,
      apiKey,
      'POST',
      '/api/sboms/upload',
      { releaseId, content: fixtureContent(fixture), fileName: fixture },
    );
    if (upload.op.outcome !== 'acked' || !upload.data)
      throw new Error(`setup: upload ${fixture} → ${String(upload.op.status)} ${String(upload.op.answer)}`);
    upload.op.sbomId = String(upload.data.id);
    sbomIds.push(upload.op.sbomId);
  }
  const deadline = Date.now() + 60_000;
  for (const sbomId of sbomIds) {
    for (;;) {
      const sbom = await api(baseUrl, apiKey, `/api/sboms/${sbomId}`);
      if (sbom.data?.scan?.status === 'completed') break;
      if (Date.now() > deadline)
        throw new Error(`setup: SBOM ${sbomId} not scanned within 60 s: ${JSON.stringify(sbom.data?.scan)}`);
      await sleep(100);
    }
    const vulnerabilities = await api(baseUrl, apiKey, `/api/sboms/${sbomId}/vulnerabilities`);
    state.pool.push(...(vulnerabilities.data as { id: string }[]).map((entry) => entry.id));
  }
  return sbomIds;
}

/** One request per handler group the workload uses, so the first requests of a cycle do not wait for module loading. */
export async function warmUp(state: WorkloadState, sbomId: string): Promise<void> {
  const { baseUrl, apiKey } = state;
  await Promise.all([
    api(baseUrl, apiKey, '/api/products'),
    api(baseUrl, apiKey, `/api/releases/${state.releases[0]!}`),
    api(baseUrl, apiKey, `/api/sboms/${sbomId}`),
    api(baseUrl, apiKey, '/api/dispositions/00000000-0000-4000-8000-000000000000'),
  ]);
}

/** Adds the findings of SBOMs scanned since, so later batches also span releases created under load. */
export async function growPool(
  state: WorkloadState,
  reader: StoreReader,
  teamId: string,
  pooled: Set<string>,
): Promise<void> {
  const snapshot = await reader.snapshot(teamId);
  for (const sbom of snapshot.sboms.values()) {
    if (state.pool.length >= POOL_LIMIT) return;
    if (pooled.has(sbom.id) || sbom.scanStatus !== 'completed') continue;
    pooled.add(sbom.id);
    const vulnerabilities = await api(state.baseUrl, state.apiKey, `/api/sboms/${sbom.id}/vulnerabilities`);
    if (vulnerabilities.status === 200)
      state.pool.push(
        ...(vulnerabilities.data as { id: string }[]).map((entry) => entry.id).slice(0, POOL_LIMIT - state.pool.length),
      );
  }
}
