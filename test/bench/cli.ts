/**
 * CLI bench (issue 10): the wall time a CI job spends in `vexdesk` for a 10,000-component SBOM —
 * `vexdesk upload … --create` (find-or-create, gzip upload, wait for the scan, read the findings)
 * then `vexdesk gate --sbom … --fail-on critical`, then `vexdesk sarif --sbom …` — each a fresh `node dist/vexdesk.mjs` process,
 * as in a job, against the real local server and a 50,000-advisory synthetic corpus (the scan
 * bench's, ~2,000 findings per SBOM). Each run uploads a new SBOM (its own seed), so every run
 * scans. Prints the median beside the target.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { startServerProcess } from '../support/server-process';
import { syntheticCorpusZip, syntheticSbom } from './synthetic-corpus';
import { median, ms } from './stats';

const ROOT = resolve(import.meta.dirname, '../..');
const BUNDLE = join(ROOT, 'dist/vexdesk.mjs');
const TARGET_MS = 5000;
const RUNS = 3;

function vexdesk(args: string[], env: Record<string, string>): Promise<{ ms: number; stdout: string }> {
  const t0 = performance.now();
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [BUNDLE, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? error.code : 0;
        // The gate is expected to fail on this SBOM's critical findings (exit 1); anything else is a broken run.
        if (code !== 0 && code !== 1) fail(new Error(`vexdesk ${args[0] ?? ''} exited ${String(code)}: ${stderr}`));
        else done({ ms: performance.now() - t0, stdout });
      },
    );
  });
}

/**
 * The same work without the CLI, from this process: find the product and release, gzip upload,
 * poll the SBOM until scanned, one filtered list read. The service's share of the CLI's time,
 * measured beside it on the same (shared, loaded) machine, so the ratio shows the CLI's overhead.
 */
async function apiFloor(baseUrl: string, token: string, file: string, version: string): Promise<number> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${baseUrl}${path}`, {
      ...init,
      headers: { ...headers, ...(init.headers as Record<string, string> | undefined) },
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: T }).data;
  };
  const t0 = performance.now();
  const [product] = await call<{ id: string }[]>('/api/products?slug=bench-cli&perPage=1');
  const release = await call<{ id: string }>(`/api/products/${product?.id ?? ''}/releases`, {
    method: 'POST',
    body: JSON.stringify({ version }),
  });
  const body = gzipSync(
    JSON.stringify({ releaseId: release.id, fileName: 'bom.json', content: readFileSync(file, 'utf8') }),
  );
  const sbom = await call<{ id: string }>('/api/sboms/upload', {
    method: 'POST',
    body,
    headers: { 'content-encoding': 'gzip' },
  });
  while ((await call<{ scan: { status: string } }>(`/api/sboms/${sbom.id}`)).scan.status !== 'completed')
    await new Promise((done) => setTimeout(done, 200));
  await call(
    `/api/sboms/${sbom.id}/vulnerabilities?severity=critical,high&status=affected,under_investigation,undisposed&perPage=500`,
  );
  return performance.now() - t0;
}

async function benchCli(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-cli-'));
  const server = await startServerProcess(dataDir, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    TEAM_RATE_LIMIT: '10000',
    TEAM_BURST_LIMIT: '5000',
  });
  try {
    const engines = await findRunningEngines(dataDir);
    if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
    applyLocalEnvironment(engines);
    const { importCorpusFiles } = await import('../../shared/service/corpus/import');
    const zipPath = join(dataDir, 'bench-all.zip');
    writeFileSync(zipPath, syntheticCorpusZip());
    await importCorpusFiles([zipPath]);
    const { apiKey } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
    const env = { VEXDESK_URL: server.baseUrl, VEXDESK_TOKEN: apiKey };

    const runs: {
      upload: number;
      gate: number;
      sarif: number;
      total: number;
      findings: number;
      failing: number;
      floor: number;
    }[] = [];
    for (let run = 0; run <= RUNS; run += 1) {
      const file = join(dataDir, `bom-${run}.json`);
      writeFileSync(file, syntheticSbom(10_000, 100 + run));
      const uploaded = await vexdesk(
        ['upload', file, '--product', 'bench-cli', '--release', `1.0.${run}`, '--create', '--json'],
        env,
      );
      const { sbomId, findings } = JSON.parse(uploaded.stdout) as { sbomId: string; findings: { total: number } };
      const gated = await vexdesk(['gate', '--sbom', sbomId, '--fail-on', 'high', '--json'], env);
      const { failing } = JSON.parse(gated.stdout) as { failing: unknown[] };
      const sarif = await vexdesk(
        ['sarif', '--sbom', sbomId, '--sbom-path', 'bom.json', '--output', join(dataDir, `bom-${run}.sarif`)],
        env,
      );
      const floorFile = join(dataDir, `bom-floor-${run}.json`);
      writeFileSync(floorFile, syntheticSbom(10_000, 200 + run));
      const floor = await apiFloor(server.baseUrl, apiKey, floorFile, `2.0.${run}`);
      // Run 0 warms the server's function modules, as the first build after a deploy would.
      if (run > 0)
        runs.push({
          upload: uploaded.ms,
          gate: gated.ms,
          sarif: sarif.ms,
          total: uploaded.ms + gated.ms + sarif.ms,
          findings: findings.total,
          failing: failing.length,
          floor,
        });
    }
    const total = median(runs.map((run) => run.total));
    const floor = median(runs.map((run) => run.floor));
    return [
      'CLI bench (dist/vexdesk.mjs as child processes, local server, 50,000-advisory corpus):',
      `  cli 10k upload+wait+gate+sarif  median ${ms(total)} (upload+wait ${ms(median(runs.map((run) => run.upload)))}, gate ${ms(median(runs.map((run) => run.gate)))}, sarif ${ms(median(runs.map((run) => run.sarif)))}; ${runs[0]?.findings ?? 0} findings, ${runs[0]?.failing ?? 0} failing the gate; runs ${runs.map((run) => ms(run.total)).join(', ')})  (target <= ${TARGET_MS.toLocaleString('en')} ms)  ${total <= TARGET_MS ? 'OK' : 'MISSED'}`,
      `  the same through the API from this process (upload, poll, one filtered list): median ${ms(floor)}; CLI / API = ${(total / floor).toFixed(2)}`,
      `  load average during the run: ${loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')} on ${availableParallelism()} CPUs`,
    ].join('\n');
  } finally {
    await server.stop();
  }
}

console.log(await benchCli());
