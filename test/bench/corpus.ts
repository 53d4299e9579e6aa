/**
 * The full-size corpus bench (`npm run bench -- corpus`; docs/corpus-at-scale.md): 520,000 synthetic
 * OSV records with the real ecosystems' name and version shapes, a KEV catalog and 326,000 EPSS
 * rows (full-corpus.ts, generated to disk once and cached in the temp directory), imported by the
 * admin CLI's import code (`importCorpusFiles` with its progress report) in a process of its own into
 * a server started by `npm start`, one file at a time. Prints the import's time, records per second, the
 * EPSS file's own time, items and write units, and the peak RSS of the importing process and of the
 * server; then the re-import with nothing changed, and one of a
 * later export of the archive at the same path with a typical delta (`DELTA`); then a 10,000-component upload + scan against the whole corpus.
 *
 * The watch re-evaluation the CLI runs after an import (and the server's poll of the change journal)
 * is left out and reported apart: its cost follows the journal's package keys, not the import
 * (docs/corpus-at-scale.md "The re-evaluation after a full import").
 *
 * CORPUS_BENCH_RECORDS sets a smaller corpus (e.g. 100000) for a quicker run; CORPUS_BENCH_CPU_PROF
 * names a directory the importing process writes a CPU profile to (`node --cpu-prof`);
 * CORPUS_BENCH_OSV_ONLY=1 imports (and re-imports) the OSV archive alone (no KEV, no EPSS);
 * CORPUS_BENCH_IMPORT_ONLY=1 stops after the first import (no re-imports, no scans), to compare imports.
 * The server's CPU seconds (all its threads) are printed beside the times: on a shared machine they
 * move less with the load than the times do.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { median, ms, peakRssMb } from './stats';
import { fullCorpusFiles, writeZip, FULL_RECORDS, EPSS_ROWS } from './full-corpus';
import { benchApi, describeRss, rssOf, startViaNpmStart, uploadAndScan } from './scan';
import { printReport } from './main';
import { WriteUnitMeter, type WriteSummary } from './write-units';
import { CHECKPOINT_RECORDS, IMPORT_BUDGET_MS } from '../../shared/service/corpus/import-units';
import { functionCatalog } from '../../lib/function-catalog';

const RECORDS = Number(process.env.CORPUS_BENCH_RECORDS ?? FULL_RECORDS);
const CPU_PROFILE_DIR = process.env.CORPUS_BENCH_CPU_PROF;
const OSV_ONLY = process.env.CORPUS_BENCH_OSV_ONLY === '1';
const IMPORT_ONLY = process.env.CORPUS_BENCH_IMPORT_ONLY === '1';
const IMPORT_TARGET_S = 180;
const REIMPORT_TARGET_S = 30;
const RSS_TARGET_MB = 600;
/** An hour's worth of OSV changes, about: revised records and new ones, spread over the archive. */
const DELTA = { changed: 300, added: 100 };
const root = resolve(import.meta.dirname, '../..');

/** CPU seconds a process used so far, all its threads (utime + stime of /proc/<pid>/stat). */
function cpuSeconds(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Waits until the process uses under 5 % of a core over two seconds (at most two minutes); answers the seconds
 * waited.
 */
async function untilIdle(pid: number): Promise<number> {
  const started = performance.now();
  for (let waited = 0; waited < 120; waited += 2) {
    const before = cpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    if (cpuSeconds(pid) - before < 0.1) break;
  }
  return (performance.now() - started) / 1000;
}

function verdict(value: number, target: number): string {
  return value <= target ? 'OK' : 'MISSED';
}

interface CliRun {
  seconds: number;
  peakMb: number;
  output: Record<string, unknown>;
  lastProgress: string | undefined;
}

/** The node flags of package.json's admin script (`npm run admin`), which the import child runs with too. */
function adminScriptNodeFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { admin: string } };
  return (/\bnode((?:\s+--[\w-]+=\S+)*)\s+--import tsx\/esm bin\/admin\.ts/.exec(scripts.admin)?.[1] ?? '')
    .split(/\s+/)
    .filter(Boolean);
}

/** The CLI's import code as its own process (node + tsx loader, one pid), its VmHWM sampled until it exits. */
async function runCliImport(dataDir: string, paths: string[]): Promise<CliRun> {
  const profile = CPU_PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROFILE_DIR] : [];
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...adminScriptNodeFlags(),
      ...profile,
      '--import',
      'tsx',
      'test/bench/corpus.ts',
      'import-child',
      dataDir,
      ...paths,
    ],
    {
      cwd: root,
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  let lastProgress: string | undefined;
  let lastShown = 0;
  createInterface({ input: child.stderr }).on('line', (line) => {
    lastProgress = line;
    // The CLI's JSON progress lines, echoed now and then so a long run shows it is alive.
    if (Date.now() - lastShown > 15_000 || !line.startsWith('{')) {
      lastShown = Date.now();
      console.error(`  [import] ${line}`);
    }
  });
  let peakMb = 0;
  const sampler = setInterval(() => {
    void peakRssMb(child.pid ?? 0).then((value) => (peakMb = Math.max(peakMb, value ?? 0)));
  }, 200);
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  clearInterval(sampler);
  if (code !== 0) throw new Error(`corpus import exited with ${code}: ${lastProgress ?? ''}`);
  return {
    seconds: (performance.now() - t0) / 1000,
    peakMb,
    output: JSON.parse(stdout) as Record<string, unknown>,
    lastProgress,
  };
}

/** Items the import wrote and what they would cost in DynamoDB on-demand mode (write-units.ts). */
function writesLine(what: string, run: CliRun): string {
  const writes = run.output.writes as WriteSummary;
  return `    ${what}: ${writes.items.toLocaleString('en')} items, ${(writes.bytes / 1e6).toFixed(0)} MB; modelled on-demand write units ${writes.writeUnits.toLocaleString('en')}, $${writes.usd.toFixed(writes.usd < 1 ? 4 : 2)} (us-east-1; deletes and package items spilled to S3 not counted); units by item kind ${JSON.stringify(writes.byEntity)}`;
}

/**
 * The longest resumable unit of an archive import on AWS (docs/corpus-at-scale.md "Units"): the import budget, then
 * the checkpoint interval it may be in, at this run's importing-process CPU per record on the corpus-refresh
 * function's CPU share (Lambda gives one vCPU per 1,769 MB). The table's own latency on AWS comes on top.
 */
function longestUnitLine(run: CliRun): string {
  const refresh = functionCatalog().find((spec) => spec.name === 'corpus-refresh');
  if (!refresh) throw new Error('no corpus-refresh function in the catalog');
  const vcpu = refresh.memoryMb / 1769;
  const cpuPerRecordMs = (Number(run.output.importerCpuSeconds) * 1000) / RECORDS;
  const intervalS = (CHECKPOINT_RECORDS * cpuPerRecordMs) / 1000 / vcpu;
  const unitS = IMPORT_BUDGET_MS / 1000 + intervalS;
  return `    Longest archive import unit on AWS, modelled: ${IMPORT_BUDGET_MS / 1000} s budget + one checkpoint interval (${CHECKPOINT_RECORDS.toLocaleString('en')} records × ${cpuPerRecordMs.toFixed(2)} ms of importing-process CPU ÷ ${vcpu.toFixed(2)} vCPU at ${refresh.memoryMb} MB) = ${unitS.toFixed(0)} s  (limit ${refresh.timeoutSeconds} s, the function's timeout)  ${verdict(unitS, refresh.timeoutSeconds)}`;
}

function importedOf(run: CliRun, kind: string): Record<string, unknown> {
  const imported = (run.output.imported as Record<string, unknown>[] | undefined) ?? [];
  return imported.find((entry) => entry.kind === kind) ?? {};
}

function osvSummary(run: CliRun): Record<string, unknown> {
  const { writes: _writes, ...summary } = importedOf(run, 'osv-zip');
  return summary;
}

/** The EPSS file's part of an import: its time, rows, items written and their write units. */
function epssLine(run: CliRun): string {
  const { path: _path, kind: _kind, ...epss } = importedOf(run, 'epss');
  return `    EPSS: ${JSON.stringify(epss)}`;
}

export async function benchCorpus(): Promise<string> {
  const lines: string[] = [
    `Corpus bench: ${RECORDS.toLocaleString('en')} OSV records + KEV + ${EPSS_ROWS.toLocaleString('en')} EPSS rows, imported by the admin CLI into the embedded engines of \`npm start\`:`,
  ];
  const t0 = performance.now();
  const files = await fullCorpusFiles(tmpdir(), RECORDS);
  const generatedS = (performance.now() - t0) / 1000;
  if (generatedS > 1) console.error(`  generated the corpus files in ${generatedS.toFixed(0)} s`);
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-corpus-'));
  const server = await startViaNpmStart(dataDir, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    TEAM_RATE_LIMIT: '10000',
    TEAM_BURST_LIMIT: '5000',
    // The server's poll of the change journal would re-evaluate during the import: measured apart.
    VEXDESK_WATCH_POLL_MS: '86400000',
    // VEXDESK_SERVER_CPU_PROF_DIR: the server (and npm) write V8 CPU profiles there when they stop.
    ...(process.env.VEXDESK_SERVER_CPU_PROF_DIR
      ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(process.env.VEXDESK_SERVER_CPU_PROF_DIR)}` }
      : {}),
  });
  try {
    const { pid } = server;
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    // A copy at a path of the run's own: the delta export replaces it there, as a re-download would.
    const zip = join(dataDir, 'all.zip');
    copyFileSync(files.zip, zip);
    const inputs = OSV_ONLY ? [zip] : [zip, files.kev, files.epss];
    const cpuBefore = cpuSeconds(pid);
    const first = await runCliImport(dataDir, inputs);
    const importCpu = cpuSeconds(pid) - cpuBefore;
    const serverPeak = (await peakRssMb(pid)) ?? Number.NaN;
    const osv = osvSummary(first);
    lines.push(
      `  Full import (${OSV_ONLY ? 'OSV only' : 'OSV + KEV + EPSS'}): ${first.seconds.toFixed(1)} s, server CPU ${importCpu.toFixed(1)} s, ${(RECORDS / first.seconds).toFixed(0)} OSV records/s  (target ≤ ${IMPORT_TARGET_S} s at 520,000)  ${RECORDS === FULL_RECORDS ? verdict(first.seconds, IMPORT_TARGET_S) : `(${RECORDS.toLocaleString('en')} records: ${((first.seconds * FULL_RECORDS) / RECORDS).toFixed(0)} s extrapolated)`}`,
      `    OSV: ${JSON.stringify(osv)}`,
      ...(OSV_ONLY ? [] : [epssLine(first)]),
      `    Change journal left for the watch re-evaluation: ${JSON.stringify(first.output.journal)} (each package key costs two index keys' presence reads, nine each (the key's item of the layout before and one per shard), 100 to a BatchGetItem: ${Math.ceil((18 * Number((first.output.journal as { packageKeys?: number } | undefined)?.packageKeys ?? 0)) / 100).toLocaleString('en')} calls, and queries only of the shards an SBOM is in)`,
      writesLine('Written by the full import', first),
      longestUnitLine(first),
      `  Peak RSS of the importing CLI process: ${first.peakMb.toFixed(0)} MB  (target ≤ ${RSS_TARGET_MB} MB)  ${verdict(first.peakMb, RSS_TARGET_MB)}`,
      `  Peak RSS of the server (engines) during the import: ${serverPeak.toFixed(0)} MB  (target ≤ ${RSS_TARGET_MB} MB)  ${verdict(serverPeak, RSS_TARGET_MB)}; after it ${describeRss(rssOf(pid))}`,
    );
    if (IMPORT_ONLY) return lines.join('\n');
    const again = await runCliImport(dataDir, inputs);
    lines.push(
      `  Re-import, nothing changed: ${again.seconds.toFixed(1)} s, peak RSS ${again.peakMb.toFixed(0)} MB  (target ≤ ${REIMPORT_TARGET_S} s)  ${verdict(again.seconds, REIMPORT_TARGET_S)} ${JSON.stringify(osvSummary(again))}`,
    );
    writeZip(zip, RECORDS, DELTA);
    const delta = await runCliImport(dataDir, [zip]);
    lines.push(
      `    Re-import of a later export, ${DELTA.changed} records revised and ${DELTA.added} added: ${delta.seconds.toFixed(1)} s ${JSON.stringify(osvSummary(delta))}`,
      writesLine(`Written by that delta (an hour's changes, about)`, delta),
    );

    const { post, get } = benchApi(server.baseUrl, dataDir);
    const productId = String((await post('/api/products', { name: 'Bench', slug: 'bench' })).data.id);
    await uploadAndScan(post, get, productId, 'warm', 1000, 99, false);
    const scans = async (seeds: number[]) => {
      const runs = [];
      const cpuBefore = cpuSeconds(pid);
      for (const seed of seeds) runs.push(await uploadAndScan(post, get, productId, `a${seed}`, 10_000, seed, false));
      const scanMedian = median(runs.map((run) => run.scanMs));
      const figures = `median ${ms(scanMedian)} (${runs[0]?.findings ?? 0} findings; server CPU ${((cpuSeconds(pid) - cpuBefore) / runs.length).toFixed(1)} s each; runs ${runs.map((run) => ms(run.scanMs)).join(', ')})`;
      return { scanMedian, figures };
    };
    // Right after the imports the embedded store is still compacting what they wrote (LevelDB's background
    // thread, which DynamoDB has no counterpart of): measured as is, then again once the server is idle.
    const during = await scans([1, 2, 3]);
    const settledAfter = await untilIdle(pid);
    const settled = await scans([4, 5, 6]);
    lines.push(
      `  Upload + POST /api/cve-scan, 10,000 components, against the ${RECORDS.toLocaleString('en')}-record corpus, right after the imports (the store still compacting their writes): ${during.figures}`,
      `  Upload + POST /api/cve-scan, 10,000 components, ${RECORDS.toLocaleString('en')}-record corpus, the server idle before (${settledAfter.toFixed(0)} s after the scans above): ${settled.figures}  (target ≤ 3,000 ms)  ${verdict(settled.scanMedian, 3000)}`,
    );
    return lines.join('\n');
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The child: `importCorpusFiles` as `corpus import` runs it, with its progress report; prints the result and the journal's size. */
async function importChild(dataDir: string, paths: string[]): Promise<void> {
  const { findRunningEngines } = await import('../../shared/local/engines');
  const { applyLocalEnvironment } = await import('../../shared/local/local-environment');
  const engines = await findRunningEngines(dataDir);
  if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
  applyLocalEnvironment(engines);
  const { importCorpusFilesExclusively } = await import('../../shared/service/corpus/import');
  const { importProgressReporter } = await import('../../shared/service/corpus/import-progress');
  const { observeWrites } = await import('../../shared/service/data/table-client');
  const meter = new WriteUnitMeter();
  const stopMetering = observeWrites((items) => meter.observe(items));
  const progress = importProgressReporter(process.stderr);
  // One file at a time, each timed and metered on its own: the EPSS and KEV imports are reported apart.
  const imported: Record<string, unknown>[] = [];
  for (const path of paths) {
    const [t0, items, writeUnits] = [performance.now(), meter.items, meter.writeUnits];
    const result = await importCorpusFilesExclusively([path], { onProgress: progress.onProgress });
    const seconds = Number(((performance.now() - t0) / 1000).toFixed(1));
    for (const entry of result.imported)
      imported.push({
        ...entry,
        seconds,
        writes: { items: meter.items - items, writeUnits: meter.writeUnits - writeUnits },
      });
  }
  progress.done();
  stopMetering();
  const cpu = process.cpuUsage();
  const { corpusChanges } = await import('../../shared/service/watch/corpus-changes');
  const journal = await corpusChanges.pending(1_000_000);
  const journalKeys = journal.reduce((sum, change) => sum + change.packageKeys.length, 0);
  console.log(
    JSON.stringify({
      imported,
      journal: { items: journal.length, packageKeys: journalKeys },
      writes: meter.summary(),
      importerCpuSeconds: (cpu.user + cpu.system) / 1e6,
    }),
  );
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'import-child') {
  importChild(process.argv[3] ?? '', process.argv.slice(4)).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else if (import.meta.url === `file://${process.argv[1]}`) {
  printReport(benchCorpus());
}
