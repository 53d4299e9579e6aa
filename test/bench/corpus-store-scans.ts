/**
 * Scans against a saved corpus store, without importing it again for every measurement
 * (docs/corpus-at-scale.md "Scans against a large store"):
 *
 *   npx tsx test/bench/corpus-store-scans.ts prepare 100000        # import the bench corpus once, keep the store
 *   npx tsx test/bench/corpus-store-scans.ts scan 100000 [profdir]  # a copy of it: warm-up + SCANS (3) scans of 10,000 components
 *
 * Prints each scan's server CPU-seconds (all threads), the findings, the times and the server's peak RSS
 * (anonymous and file-backed). With a profile directory the server runs with `--cpu-prof` (one profile
 * per thread). Stores live in /tmp/vexdesk-corpus-stores/.
 *
 * SCANS_SAME_CONTENT=1: every scan uploads the same SBOM into a new release (a product's next release
 * naming the packages the last one did) instead of a different one per scan. RESCAN=1: each upload's
 * SBOM is scanned a second time (POST /api/cve-scan), timed apart. CORPUS_STORE_LOG_LEVEL=INFO: the
 * server's log goes to <store>.log and each scan's "scan stages" line (items written) is printed.
 * COMPONENTS=20000: the size of each scanned SBOM (default 10,000). The store's pending corpus journal is applied
 * before the warm-up, as the admin CLI does after an import; KEEP_JOURNAL=1 leaves it to the server's poll, which
 * then runs beside the scans (docs/corpus-at-scale.md "Scans at size").
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fullCorpusFiles } from './full-corpus';
import { benchApi, rssOf, startViaNpmStart, uploadAndScan } from './scan';
import { median, ms } from './stats';

const root = resolve(import.meta.dirname, '../..');
function cpuSeconds(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
const env = {
  POWERTOOLS_LOG_LEVEL: process.env.CORPUS_STORE_LOG_LEVEL ?? 'ERROR',
  TEAM_RATE_LIMIT: '10000',
  TEAM_BURST_LIMIT: '5000',
  VEXDESK_WATCH_POLL_MS: '86400000',
};
const [mode, recordsArgument, profDir] = process.argv.slice(2);
const records = Number(recordsArgument);
const base = `/tmp/vexdesk-corpus-stores/corpus-${records}`;
/** Applies the store's pending corpus changes, as `vexdesk admin corpus import` does after an import. */
async function applyJournal(dataDir: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/bench/corpus-store-scans.ts', 'apply-journal', dataDir],
    {
      cwd: root,
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const code = await new Promise((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`applying the journal exited with ${String(code)}`);
}

if (mode === 'apply-journal') {
  const { findRunningEngines } = await import('../../shared/local/engines');
  const { applyLocalEnvironment } = await import('../../shared/local/local-environment');
  const engines = await findRunningEngines(recordsArgument ?? '');
  if (!engines) throw new Error(`no embedded engines running on ${String(recordsArgument)}`);
  applyLocalEnvironment(engines);
  const { applyCorpusChanges } = await import('../../shared/service/watch/watch');
  const started = performance.now();
  const summary = await applyCorpusChanges();
  console.log(`journal applied before the scans: ${summary.changes} changes, ${ms(performance.now() - started)}`);
  process.exit(0);
} else if (mode === 'prepare') {
  const files = await fullCorpusFiles(tmpdir(), records);
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const server = await startViaNpmStart(base, env);
  try {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/bench/corpus.ts', 'import-child', base, files.zip],
      {
        cwd: root,
        env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' },
        stdio: ['ignore', 'inherit', 'ignore'],
      },
    );
    await new Promise((done) => child.once('exit', done));
  } finally {
    await server.stop();
  }
} else {
  const dataDir = `/tmp/vexdesk-corpus-stores/run-${records}`;
  rmSync(dataDir, { recursive: true, force: true });
  execFileSync('cp', ['-a', base, dataDir]);
  rmSync(join(dataDir, 'server.json'), { force: true });
  const logFile = `${dataDir}.log`;
  const server = await startViaNpmStart(
    dataDir,
    profDir ? { ...env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profDir}` } : env,
    logFile,
  );
  try {
    const { pid } = server;
    let peakAnon = 0,
      peakFile = 0;
    const sampler = setInterval(() => {
      try {
        const rss = rssOf(pid);
        peakAnon = Math.max(peakAnon, rss.anon);
        peakFile = Math.max(peakFile, rss.file);
      } catch {
        // the server is gone: its last sample stands
      }
    }, 200);
    // The store holds the import's journal of corpus changes, which the admin CLI applies after its import and
    // the bench's import does not; the server's poll at start applies it too, and once the warm-up scan has indexed
    // an SBOM, the rest costs a presence read per package key (about a million) during the measured scans.
    if (process.env.KEEP_JOURNAL !== '1') await applyJournal(dataDir);
    const { post, get } = benchApi(server.baseUrl, dataDir);
    const productId = String((await post('/api/products', { name: 'Bench', slug: 'bench' })).data.id);
    await uploadAndScan(post, get, productId, 'warm', 1000, 99, false);
    const runs = [];
    const cpus = [];
    const count = Number(process.env.SCANS ?? 3);
    const components = Number(process.env.COMPONENTS ?? 10_000);
    const rescans = [];
    for (let run = 1; run <= count; run++) {
      const before = cpuSeconds(pid);
      const seed = process.env.SCANS_SAME_CONTENT === '1' ? 1 : run;
      const scanned = await uploadAndScan(post, get, productId, `a${run}`, components, seed, false);
      runs.push(scanned);
      cpus.push(cpuSeconds(pid) - before);
      if (process.env.RESCAN === '1') {
        const started = { cpu: cpuSeconds(pid), at: performance.now() };
        await post('/api/cve-scan', { sbomId: scanned.sbomId });
        rescans.push(`${(cpuSeconds(pid) - started.cpu).toFixed(2)} CPU-s ${ms(performance.now() - started.at)}`);
      }
    }
    if (rescans.length > 0) console.log(`rescans: ${rescans.join(', ')}`);
    clearInterval(sampler);
    console.log(`peak anon ${peakAnon.toFixed(0)} file ${peakFile.toFixed(0)}`);
    console.log(
      `${records}: median ${ms(median(runs.map((run) => run.scanMs)))} findings ${runs.map((run) => run.findings).join(',')} cpu ${cpus.map((cpu) => cpu.toFixed(2)).join(', ')} runs ${runs.map((run) => ms(run.scanMs)).join(', ')} load ${readFileSync('/proc/loadavg', 'utf8').trim()} ${readFileSync(
        `/proc/${pid}/status`,
        'utf8',
      )
        .match(/VmHWM:.*|VmRSS:.*/g)
        ?.join(' ')}`,
    );
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const stages = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"scan stages"'))
    .map(
      (line) =>
        JSON.parse(line) as {
          components: number;
          findings: number;
          writes: number;
          indexWrites?: number;
          stagesMs?: Record<string, number>;
        },
    );
  for (const { components, findings, writes, indexWrites, stagesMs } of stages)
    console.log(
      `scan of ${components} components: ${findings} findings, ${writes} items written (index ${indexWrites ?? '?'}); stages ${JSON.stringify(stagesMs ?? {})}`,
    );
  rmSync(logFile, { force: true });
}
