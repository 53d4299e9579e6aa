/**
 * Scan bench (issue 3), embedded mode: a synthetic corpus of 50,000 OSV
 * advisories (realistic ecosystem mix) imported from an all.zip, then
 * synthetic SBOMs of 1,000 / 10,000 / 20,000 components (~5% vulnerable)
 * uploaded to the real local server and scanned. Prints import time,
 * upload+parse time, scan time and the server's peak RSS (engines included).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { startServerProcess } from '../support/server-process';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { currentRssMb, median, ms, peakRssMb } from './stats';

const MIX = [
  { ecosystem: 'npm', purl: 'npm', weight: 40 },
  { ecosystem: 'PyPI', purl: 'pypi', weight: 15 },
  { ecosystem: 'Maven', purl: 'maven', weight: 20 },
  { ecosystem: 'Go', purl: 'golang', weight: 10 },
  { ecosystem: 'crates.io', purl: 'cargo', weight: 5 },
  { ecosystem: 'RubyGems', purl: 'gem', weight: 5 },
  { ecosystem: 'NuGet', purl: 'nuget', weight: 5 },
] as const;

function pick(index: number) {
  let slot = index % 100;
  for (const entry of MIX) {
    if (slot < entry.weight) return entry;
    slot -= entry.weight;
  }
  return MIX[0];
}

function packageName(ecosystem: string, id: number, kind: 'vuln' | 'free'): { name: string; purl: (version: string) => string } {
  const base = `bench-${kind}-${id}`;
  switch (ecosystem) {
    case 'Maven': return { name: `org.bench:${base}`, purl: (v) => `pkg:maven/org.bench/${base}@${v}` };
    case 'Go': return { name: `example.com/bench/${base}`, purl: (v) => `pkg:golang/example.com/bench/${base}@v${v}` };
    default: {
      const type = MIX.find((entry) => entry.ecosystem === ecosystem)?.purl ?? 'npm';
      return { name: base, purl: (v) => `pkg:${type}/${base}@${v}` };
    }
  }
}

const ADVISORIES = 50_000;
/** Two advisories per package on average, so 25,000 vulnerable packages exist in the corpus. */
const VULNERABLE_PACKAGES = 25_000;

export function syntheticCorpusZip(): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (let index = 0; index < ADVISORIES; index += 1) {
    const packageId = index % VULNERABLE_PACKAGES;
    const { ecosystem } = pick(packageId);
    const { name } = packageName(ecosystem, packageId, 'vuln');
    const fixedMinor = 5 + (index % 3);
    const record = {
      schema_version: '1.6.0', id: `BENCH-${index}`, modified: '2026-01-01T00:00:00Z', published: '2025-06-01T00:00:00Z',
      aliases: [`CVE-2030-${String(100000 + index)}`], summary: `Synthetic issue ${index} in ${name}`, details: 'Synthetic advisory for the scan bench.',
      severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' }],
      affected: [{ package: { ecosystem, name }, ranges: [{ type: ecosystem === 'Go' ? 'SEMVER' : 'ECOSYSTEM', events: [{ introduced: '1.0.0' }, { fixed: `1.${fixedMinor}.0` }] }] }],
      database_specific: { cwe_ids: ['CWE-20'], severity: 'HIGH' },
    };
    files[`BENCH-${index}.json`] = strToU8(JSON.stringify(record));
  }
  return zipSync(files, { level: 1 });
}

export function syntheticSbom(components: number, seed: number): string {
  const list = [];
  for (let index = 0; index < components; index += 1) {
    const vulnerable = index % 20 === 0;
    const id = vulnerable ? (index * 7 + seed) % VULNERABLE_PACKAGES : seed * 1_000_000 + index;
    const { ecosystem } = pick(vulnerable ? id : index);
    const { name, purl } = packageName(ecosystem, id, vulnerable ? 'vuln' : 'free');
    const version = vulnerable ? '1.2.0' : `2.${index % 10}.${index % 7}`;
    list.push({ type: 'library', 'bom-ref': purl(version), name, version, purl: purl(version) });
  }
  return JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'bench-app', version: '1.0.0' } }, components: list });
}

export async function benchScan(options: { sizes?: number[] } = {}): Promise<string> {
  const sizes = options.sizes ?? [1000, 10_000, 20_000];
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-scan-'));
  const server = await startServerProcess(dataDir, { POWERTOOLS_LOG_LEVEL: 'ERROR' });
  const lines: string[] = ['Scan bench (embedded engines, local server in its own process):'];
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')) as { pid: number };
    const engines = await findRunningEngines(dataDir);
    if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
    applyLocalEnvironment(engines);
    const { importCorpusFiles } = await import('../../shared/corpus/import');
    const zipPath = join(dataDir, 'bench-all.zip');
    writeFileSync(zipPath, syntheticCorpusZip());
    let t0 = performance.now();
    const imported = await importCorpusFiles([zipPath]);
    const importMs = performance.now() - t0;
    lines.push(`  corpus import: ${ADVISORIES.toLocaleString('en')} advisories from all.zip in ${(importMs / 1000).toFixed(1)} s (target ≤ 60 s) ${JSON.stringify(imported.imported[0])}`);
    t0 = performance.now();
    const again = await importCorpusFiles([zipPath]);
    lines.push(`  re-import of the same zip (incremental, nothing changed): ${((performance.now() - t0) / 1000).toFixed(1)} s, written ${String((again.imported[0] as { written: number }).written)}`);

    const { apiKey } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
    const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    const post = async (path: string, body: unknown) => (await (await fetch(`${server.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { data: Record<string, unknown> };
    const product = (await post('/api/products', { name: 'Bench', slug: 'bench' })).data;
    for (const [round, size] of sizes.entries()) {
      const release = (await post(`/api/products/${String(product.id)}/releases`, { version: `${size}.${round}` })).data;
      const content = syntheticSbom(size, round + 1);
      writeFileSync(`/proc/${pid}/clear_refs`, '5'); // reset the peak-RSS counter for this round
      const before = currentRssMb(readFileSync(`/proc/${pid}/status`, 'utf8'));
      t0 = performance.now();
      const sbom = (await post('/api/sboms/upload', { releaseId: release.id, content })).data;
      const uploadMs = performance.now() - t0;
      let status = '';
      while (status !== 'completed') {
        const read = (await (await fetch(`${server.baseUrl}/api/sboms/${String(sbom.id)}`, { headers })).json()) as { data: { scan: { status: string } } };
        status = read.data.scan.status;
        if (status === 'failed') throw new Error('scan failed');
        if (status !== 'completed') await new Promise((done) => setTimeout(done, 10));
      }
      const endToEndMs = performance.now() - t0;
      const rescans: number[] = [];
      let findings = 0;
      for (let run = 0; run < 3; run += 1) {
        const s0 = performance.now();
        findings = Number((await post('/api/cve-scan', { sbomId: sbom.id })).data.findingCount);
        rescans.push(performance.now() - s0);
      }
      const peak = await peakRssMb(pid);
      lines.push(`  ${String(size).padStart(6)} components: upload+parse ${ms(uploadMs)}, upload→scan completed ${ms(endToEndMs)}, POST /api/cve-scan median ${ms(median(rescans))} (${findings} findings), server peak RSS ${peak?.toFixed(0) ?? '?'} MB (${before?.toFixed(0) ?? '?'} MB before the upload; engines run in the same process)`);
    }
    lines.push('  targets: 10,000 components uploaded and scanned ≤ 3 s; 20,000 ≤ 6 s; peak RSS ≤ 600 MB');
    return lines.join('\n');
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchScan().then((text) => { console.log(text); process.exit(0); }, (error: unknown) => { console.error(error); process.exit(1); });
}
