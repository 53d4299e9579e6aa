/**
 * Triage continuity bench (issue 13), embedded mode: the scan bench's synthetic
 * corpus, a 10,000-component SBOM (~2,000 findings) whose first 1,000 findings
 * are decided, then upload + POST /api/cve-scan of the same components
 * - again into the same release (a CI re-upload: the decisions apply by package and advisory);
 * - into a new release of the product (carry-over writes 1,000 dispositions);
 * - into a release of another product (no decisions: the baseline, for the ratio).
 * Each figure is the median of three runs, printed beside the issue's target, with the server's CPU
 * time per run (all its threads, and the engine thread's share: robust on a loaded machine) and the
 * scan's stage times from its `scan stages` log line.
 *
 * Options (environment): CARRY_BENCH_CORPUS_DIR=<dir> copies a stopped server's data directory that
 * already holds the bench corpus instead of importing it (the import dominates a run on a busy
 * machine; `tsx test/bench/carry-over.ts corpus <dir>` makes one); CARRY_BENCH_CPU_PROF=<dir> runs
 * the server under `node --cpu-prof` (one profile per thread) into <dir>.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../support/server-process';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { median, ms } from './stats';
import { syntheticCorpusZip, syntheticSbom } from './synthetic-corpus';

const COMPONENTS = 10_000;
const DECISIONS = 1_000;
const TARGET_MS = 3_000;
/** /proc's clock ticks per second (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/** CPU time (ms) of each thread of a process, by thread name (the engines' worker thread is `vexdesk-engines`, shared/local/engines.ts). */
function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS);
  }
  return byName;
}

function cpuSince(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([name, value]) => [name, value - (before.get(name) ?? 0)]));
}

const sum = (values: Iterable<number>) => [...values].reduce((total, value) => total + value, 0);

/** A data directory with the corpus imported, for CARRY_BENCH_CORPUS_DIR. */
async function importBenchCorpus(dataDir: string): Promise<void> {
  const engines = await findRunningEngines(dataDir);
  if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
  applyLocalEnvironment(engines);
  const { importCorpusFiles } = await import('../../shared/service/corpus/import');
  const zipPath = join(dataDir, 'bench-all.zip');
  writeFileSync(zipPath, syntheticCorpusZip());
  await importCorpusFiles([zipPath]);
  rmSync(zipPath);
}

interface StageLine {
  sbomId: string;
  totalMs: number;
  stagesMs: Record<string, number>;
}

/** The same components under a new serial number: another build's SBOM, not the same bytes. */
function rebuilt(content: string): string {
  return JSON.stringify({ ...(JSON.parse(content) as object), serialNumber: `urn:uuid:${randomUUID()}` });
}

export async function benchCarryOver(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-carry-'));
  const corpusDir = process.env.CARRY_BENCH_CORPUS_DIR;
  if (corpusDir) cpSync(corpusDir, dataDir, { recursive: true });
  const profileDir = process.env.CARRY_BENCH_CPU_PROF;
  const stages = new Map<string, StageLine>();
  const server = await startServerProcess(
    dataDir,
    {
      POWERTOOLS_LOG_LEVEL: 'INFO',
      TEAM_RATE_LIMIT: '10000',
      TEAM_BURST_LIMIT: '5000',
      ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
    },
    {
      onStdoutLine: (text) => {
        if (!text.includes('"scan stages"')) return;
        const parsed = JSON.parse(text) as StageLine;
        stages.set(parsed.sbomId, parsed);
      },
    },
  );
  const lines: string[] = ['Triage continuity bench (embedded engines, local server in its own process):'];
  try {
    if (corpusDir) {
      const engines = await findRunningEngines(dataDir);
      if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
      applyLocalEnvironment(engines);
    } else {
      await importBenchCorpus(dataDir);
    }
    const { pid } = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')) as { pid: number };

    const { apiKey } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
    const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const parsed = (await response.json()) as { data: Record<string, unknown>; summary?: Record<string, number> };
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(parsed)}`);
      return parsed;
    };
    const newRelease = async (productId: string, version: string) =>
      String((await call('POST', `/api/products/${productId}/releases`, { version })).data.id);
    const uploadAndScan = async (releaseId: string, content: string) => {
      const cpuBefore = threadCpuMs(pid);
      const t0 = performance.now();
      const sbom = (await call('POST', '/api/sboms/upload', { releaseId, content })).data;
      let scanned = false;
      while (!scanned) {
        try {
          await call('POST', '/api/cve-scan', { sbomId: sbom.id });
          scanned = true;
        } catch (error) {
          if (!String(error).includes('scan_pending')) throw error;
        }
      }
      const elapsed = performance.now() - t0;
      return { sbomId: String(sbom.id), ms: elapsed, cpu: cpuSince(cpuBefore, threadCpuMs(pid)) };
    };
    const decided = async (sbomId: string) => {
      const summary = (await call('GET', `/api/sboms/${sbomId}/vulnerabilities`)).summary ?? {};
      return Number(summary.total) - Number(summary.withoutDisposition);
    };

    const content = syntheticSbom(COMPONENTS, 1);
    const productId = String(
      (await call('POST', '/api/products', { name: 'Carry bench', slug: 'carry-bench' })).data.id,
    );
    const first = await newRelease(productId, '1.0.0');
    const seeded = await uploadAndScan(first, content);
    // The list is paged (at most 500 a page): read every page.
    const findings: string[] = [];
    for (let page = 1; ; page += 1) {
      const rows = (await call('GET', `/api/sboms/${seeded.sbomId}/vulnerabilities?perPage=500&page=${page}`))
        .data as unknown as { id: string }[];
      if (rows.length === 0) break;
      findings.push(...rows.map((finding) => finding.id));
    }
    // Seeding is not measured: batches of 100 stay far from the API timeout on a busy machine.
    for (let start = 0; start < DECISIONS; start += 100) {
      await call('POST', '/api/dispositions/batch', {
        vulnerabilityIds: findings.slice(start, start + 100),
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
      });
    }
    lines.push(
      `  seeded: ${COMPONENTS.toLocaleString('en')} components, ${findings.length.toLocaleString('en')} findings, ${(await decided(seeded.sbomId)).toLocaleString('en')} decided`,
    );

    type Run = Awaited<ReturnType<typeof uploadAndScan>>;
    const runs = { reupload: [] as number[], carried: [] as number[], baseline: [] as number[] };
    const detail = { reupload: [] as Run[], carried: [] as Run[], baseline: [] as Run[] };
    const counts = { reupload: 0, carried: 0 };
    const loads: number[] = [loadavg()[0] ?? 0];
    const otherProduct = String(
      (await call('POST', '/api/products', { name: 'Carry bench baseline', slug: 'carry-bench-baseline' })).data.id,
    );
    for (const round of [1, 2, 3]) {
      const again = await uploadAndScan(first, rebuilt(content));
      runs.reupload.push(again.ms);
      detail.reupload.push(again);
      counts.reupload = await decided(again.sbomId);
      const next = await uploadAndScan(await newRelease(productId, `2.0.${round}`), rebuilt(content));
      runs.carried.push(next.ms);
      detail.carried.push(next);
      counts.carried = await decided(next.sbomId);
      const base = await uploadAndScan(await newRelease(otherProduct, `1.0.${round}`), rebuilt(content));
      runs.baseline.push(base.ms);
      detail.baseline.push(base);
      loads.push(loadavg()[0] ?? 0);
    }
    const line = (label: string, values: number[], extra: string) => {
      const value = median(values);
      return `  ${label}: median ${ms(value)} (${extra}; runs ${values.map(ms).join(', ')})  (target <= ${TARGET_MS.toLocaleString('en')} ms)  ${value <= TARGET_MS ? 'OK' : 'MISSED'}`;
    };
    lines.push(
      line(
        're-upload of 10k SBOM to the same release, upload+scan',
        runs.reupload,
        `${counts.reupload.toLocaleString('en')} decisions apply`,
      ),
    );
    lines.push(
      line(
        '10k SBOM into a new release, 1,000 decisions carried, upload+scan',
        runs.carried,
        `${counts.carried.toLocaleString('en')} decisions carried`,
      ),
    );
    lines.push(
      `  baseline, same SBOM into another product (nothing to carry): median ${ms(median(runs.baseline))}; carry-over costs ${(median(runs.carried) / median(runs.baseline)).toFixed(2)}x, re-upload ${(median(runs.reupload) / median(runs.baseline)).toFixed(2)}x`,
    );
    // CPU time and stages: what a loaded machine's wall clock hides.
    const engineThread = (run: Run) =>
      sum([...run.cpu].filter(([name]) => name.includes('engines')).map(([, value]) => value));
    for (const [label, list] of Object.entries(detail)) {
      const cpu = median(list.map((run) => sum(run.cpu.values())));
      const threads = [...new Set(list.flatMap((run) => [...run.cpu.keys()]))]
        .map((name) => [name, median(list.map((run) => run.cpu.get(name) ?? 0))] as const)
        .filter(([, value]) => value > 0)
        .sort((a, b) => b[1] - a[1]);
      lines.push(
        `  ${label}: server CPU median ${ms(cpu)} (engine thread ${ms(median(list.map(engineThread)))}; by thread ${threads.map(([name, value]) => `${name} ${value.toFixed(0)}`).join(', ')})`,
      );
      const stageRuns = list
        .map((run) => stages.get(run.sbomId))
        .filter((line): line is StageLine => line !== undefined);
      const names = [...new Set(stageRuns.flatMap((line) => Object.keys(line.stagesMs)))];
      if (stageRuns.length > 0)
        lines.push(
          `    scan stages, median ms: ${names.map((name) => `${name} ${median(stageRuns.map((line) => line.stagesMs[name] ?? 0)).toFixed(0)}`).join(', ')} (scan total ${median(stageRuns.map((line) => line.totalMs)).toFixed(0)})`,
        );
    }
    lines.push(
      `  load average (1 min) before and after each round: ${loads.map((value) => value.toFixed(1)).join(', ')}`,
    );
    if (counts.reupload < DECISIONS || counts.carried < DECISIONS)
      lines.push(`  MISSED: expected ${DECISIONS} decisions on each new SBOM`);
    return lines.join('\n');
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function makeCorpusDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'server.json'))) throw new Error(`${dataDir} is in use`);
  const server = await startServerProcess(dataDir, { POWERTOOLS_LOG_LEVEL: 'ERROR' });
  try {
    await importBenchCorpus(dataDir);
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'corpus') {
  makeCorpusDir(process.argv[3] ?? '').then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else if (import.meta.url === `file://${process.argv[1]}`) {
  benchCarryOver().then(
    (text) => {
      console.log(text);
      process.exit(text.includes('MISSED') ? 1 : 0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
