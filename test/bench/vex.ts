/**
 * VEX bench (issue 4): generation time per format for 2,000 findings, and the
 * public disclosure list at page 1 and page 500 with 10,000 disclosures
 * (index entries seeded directly; the list reads only the counter and one
 * range of the sequence index, so both pages cost the same).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../support/server-process';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { benchVexGeneration } from './vex-generation';
import { median, ms } from './stats';

const DISCLOSURES = 10_000;

export async function benchVex(): Promise<string> {
  const lines = ['VEX bench:'];
  const generation = benchVexGeneration(2000, 9);
  for (const [format, value] of Object.entries(generation)) lines.push(`  generate + serialize ${format.padEnd(14)} 2,000 findings: median ${ms(value)} (target ≤ 300 ms)`);

  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-vex-'));
  const server = await startServerProcess(dataDir, { POWERTOOLS_LOG_LEVEL: 'ERROR' });
  try {
    const engines = await findRunningEngines(dataDir);
    if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
    applyLocalEnvironment(engines);
    const { keys } = await import('../../shared/data/keys');
    const { batchWrite } = await import('../../shared/data/table-client');
    const items = [];
    for (let sequence = 1; sequence <= DISCLOSURES; sequence += 1) {
      const slug = `bench-product-1-0-${sequence}-csaf-v1`;
      const summary = { id: `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`, document_id: `doc-${sequence}`, version: 1, format: 'csaf', public_slug: slug, content_hash: `sha256:${'0'.repeat(64)}`, signed: false, published_at: new Date(Date.UTC(2026, 0, 1) + sequence * 1000).toISOString(), product: { name: 'Bench', vendor: null }, release: { version: '1.0' }, links: { self: `/api/disclosures/${slug}`, raw: `/api/disclosures/${slug}?format=raw` } };
      items.push({ ...keys.disclosureIndexEntry('all', sequence), entity: 'DisclosureIndexEntry', summary });
    }
    items.push({ ...keys.disclosureCounter('all'), entity: 'DisclosureCounter', count: DISCLOSURES });
    await batchWrite(items);
    const timings: Record<number, number[]> = { 1: [], 500: [] };
    for (let round = 0; round < 30; round += 1) {
      for (const page of [1, 500]) {
        const t0 = performance.now();
        const response = await fetch(`${server.baseUrl}/api/disclosures?page=${page}&limit=20`);
        const body = (await response.json()) as { data: unknown[]; meta: { total: number } };
        timings[page]!.push(performance.now() - t0);
        if (body.data.length !== 20 || body.meta.total !== DISCLOSURES) throw new Error(`unexpected page ${page}: ${body.data.length} items`);
      }
    }
    const [first, last] = [median(timings[1]!), median(timings[500]!)];
    lines.push(`  GET /api/disclosures?limit=20 with ${DISCLOSURES.toLocaleString('en')} disclosures: page 1 median ${ms(first)}, page 500 median ${ms(last)}, ratio ${(last / first).toFixed(2)} (target within 2×)`);
    return lines.join('\n');
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchVex().then((text) => { console.log(text); process.exit(0); }, (error: unknown) => { console.error(error); process.exit(1); });
}
