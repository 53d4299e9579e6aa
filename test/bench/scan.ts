/**
 * Scan bench, embedded mode: a synthetic corpus of 50,000 OSV
 * advisories (realistic ecosystem mix) imported from an all.zip, then
 * synthetic SBOMs of 10,000 and 20,000 components (10% vulnerable, two
 * advisories each: ~2,000 findings per 10,000) uploaded to the real local
 * server, each followed at once by POST /api/cve-scan (which joins the
 * upload's scan). Prints the figures with their targets, the server's
 * peak RSS (engines included) and the scan-worker handler's own peak.
 */
import { spawn } from 'node:child_process';
import { printReport } from './main';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { currentRssMb, median, ms, peakRssMb } from './stats';
import { BACKGROUND_FUNCTIONS } from '../../lib/function-catalog';
import { ADVISORIES, syntheticCorpusZip, syntheticSbom } from './synthetic-corpus';

export type Post = (path: string, body: unknown) => Promise<{ data: Record<string, unknown> }>;

/**
 * The server exactly as a user starts it: `npm start`, so its memory figures include the Node
 * flags of package.json's start script (test/support/server-process.ts runs bin/start.ts through
 * the tsx CLI without them). npm execs node (`exec` in the script), so server.json's pid is the
 * server itself; it is the one signalled to stop.
 */
/** `stdoutFile`: the server's standard output (its log lines) goes there instead of nowhere. */
export async function startViaNpmStart(
  dataDir: string,
  env: Record<string, string>,
  stdoutFile?: string,
): Promise<{ baseUrl: string; pid: number; stop(): Promise<void> }> {
  const root = resolve(import.meta.dirname, '../..');
  const serverFile = join(dataDir, 'server.json');
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli?.endsWith('.js') ? [process.execPath, [npmCli, 'start']] : ['npm', ['start']];
  const stdout = stdoutFile === undefined ? 'ignore' : openSync(stdoutFile, 'w');
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env, DATA_DIR: dataDir, PORT: '0', VEXDESK_QUIET: '1' },
    stdio: ['ignore', stdout, 'inherit'],
  });
  if (typeof stdout === 'number') closeSync(stdout); // the child holds its own copy
  const deadline = Date.now() + 120_000;
  let started: { baseUrl: string; pid: number } | undefined;
  while (!started) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('npm start did not serve within 120 s');
    await new Promise((done) => setTimeout(done, 100));
    try {
      if (existsSync(serverFile))
        started = JSON.parse(readFileSync(serverFile, 'utf8')) as { baseUrl: string; pid: number };
    } catch {
      started = undefined; // half-written
    }
  }
  const { baseUrl, pid } = started;
  return {
    baseUrl,
    pid,
    stop: async () => {
      const exited = new Promise((done) => child.once('exit', done));
      if (child.exitCode === null) process.kill(pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        exited,
        new Promise((done) => {
          timer = setTimeout(done, 15_000);
        }),
      ]);
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** Current RSS of a process and its anonymous / file-backed parts (LevelDB maps its table files), in MB. */
/** A call of the bench's client: the answer's `data`, or an error naming the call and its status. */
export type BenchCall = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

/** The bench's client of the demo team (its key from the data directory's bootstrap.json), failing on an error status. */
export function benchApi(
  baseUrl: string,
  dataDir: string,
): { call: BenchCall; post: Post; get: (path: string) => Promise<unknown> } {
  const { apiKey } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const call: BenchCall = async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const parsed = (await response.json()) as { data: Record<string, unknown> };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`);
    return parsed.data;
  };
  return {
    call,
    post: async (path, body) => ({ data: await call('POST', path, body) }),
    get: async (path) => {
      const response = await fetch(`${baseUrl}${path}`, { headers });
      if (!response.ok) throw new Error(`${path}: ${response.status}`);
      return response.json();
    },
  };
}

export function rssOf(pid: number): { total: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
  return { total: currentRssMb(status) ?? Number.NaN, anon: kb('RssAnon'), file: kb('RssFile') };
}

export function describeRss({ total, anon, file }: { total: number; anon: number; file: number }): string {
  return `${total.toFixed(0)} MB (anonymous ${anon.toFixed(0)}, file-backed ${file.toFixed(0)})`;
}

function verdict(value: number, target: number): string {
  return value <= target ? 'OK' : 'MISSED';
}

/**
 * The scan-worker Lambda runs without the embedded engines: its handler runs
 * here in a child process of its own, against the server's engines, and
 * reports its own peak RSS (VmHWM) for one SQS delivery of the job.
 */
async function runWorkerChild(
  dataDir: string,
  job: { teamId: string; sbomId: string },
): Promise<{ peakMb: number; ms: number; findingCount: number }> {
  const { execFileSync } = await import('node:child_process');
  const tsx = new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url).pathname;
  const output = execFileSync(
    process.execPath,
    [tsx, new URL(import.meta.url).pathname, 'worker-child', dataDir, JSON.stringify(job)],
    { encoding: 'utf8', env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' } },
  );
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as { peakMb: number; ms: number; findingCount: number };
}

async function workerChild(dataDir: string, job: { teamId: string; sbomId: string }): Promise<void> {
  const engines = await findRunningEngines(dataDir);
  if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
  applyLocalEnvironment(engines);
  const { handler } = await import('../../functions/scan-worker/handler');
  const { OPERATOR_ACTOR } = await import('../../shared/service/identity/actor');
  const context = {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'vexdesk-scan-worker',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:vexdesk-scan-worker',
    memoryLimitInMB: '2048',
    awsRequestId: 'bench',
    logGroupName: 'bench',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => 900_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  const record = {
    messageId: 'bench',
    receiptHandle: 'bench',
    body: JSON.stringify({ ...job, actor: OPERATOR_ACTOR }),
    attributes: { ApproximateReceiveCount: '1' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'bench',
    awsRegion: 'local',
  };
  const t0 = performance.now();
  const result = await handler({ Records: [record] } as never, context);
  const elapsed = performance.now() - t0;
  if ('batchItemFailures' in result && (result.batchItemFailures as unknown[]).length > 0)
    throw new Error('the worker reported the job failed');
  const { Sboms } = await import('../../shared/service/sboms/sboms');
  const { sbom } = await Sboms.resolve(job.teamId, job.sbomId);
  console.log(
    JSON.stringify({ peakMb: (await peakRssMb(process.pid)) ?? 0, ms: elapsed, findingCount: sbom.scan.findingCount }),
  );
}

/** Upload, then POST /api/cve-scan right away (it joins the upload's scan), then optionally the first list page. */
export async function uploadAndScan(
  post: Post,
  get: (path: string) => Promise<unknown>,
  productId: string,
  label: string,
  size: number,
  seed: number,
  list: boolean,
) {
  const release = (await post(`/api/products/${productId}/releases`, { version: `${size}.${label}` })).data;
  const content = syntheticSbom(size, seed);
  const t0 = performance.now();
  const sbom = (await post('/api/sboms/upload', { releaseId: release.id, content })).data;
  const uploadMs = performance.now() - t0;
  // A request that would outlive the function's 29 s answers 409 scan_pending (1 s before it); a client asks again.
  // Should the function's time run out before any answer (a read stuck on a loaded machine), the handler
  // answers 503 timeout: asked again too, and counted. A 500 ends the run.
  let scan: Record<string, unknown> | undefined;
  let timeouts = 0;
  while (!scan) {
    try {
      scan = (await post('/api/cve-scan', { sbomId: sbom.id })).data;
    } catch (error) {
      if (String(error).includes(': 503 ') && String(error).includes('"timeout"') && timeouts < 5) timeouts += 1;
      else if (!String(error).includes('scan_pending')) throw error;
    }
  }
  if (timeouts > 0)
    console.error(
      `  (${label}: POST /api/cve-scan answered 503 timeout ${timeouts} time(s) while the scan ran; asked again)`,
    );
  const scanMs = performance.now() - t0;
  if (list) await get(`/api/sboms/${String(sbom.id)}/vulnerabilities`);
  return {
    sbomId: String(sbom.id),
    uploadMs,
    scanMs,
    totalMs: performance.now() - t0,
    findings: Number(scan.findingCount),
  };
}

/**
 * `memoryOnly` (`tsx test/bench/scan.ts memory`): the import, the re-import and the two 20,000 scans
 * with their RSS figures, without the 1,000 and 10,000 rounds (a shorter before/after of the memory).
 */
export async function benchScan(options: { memoryOnly?: boolean } = {}): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-scan-'));
  const server = await startViaNpmStart(dataDir, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    TEAM_RATE_LIMIT: '10000',
    TEAM_BURST_LIMIT: '5000',
  });
  const lines: string[] = ['Scan bench (embedded engines, local server started by `npm start` in its own process):'];
  try {
    const { pid } = server;
    const rssAtStart = rssOf(pid);
    const engines = await findRunningEngines(dataDir);
    if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
    applyLocalEnvironment(engines);
    const { importCorpusFiles } = await import('../../shared/service/corpus/import');
    const zipPath = join(dataDir, 'bench-all.zip');
    writeFileSync(zipPath, syntheticCorpusZip());
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // the import's own peak, below
    let t0 = performance.now();
    const imported = await importCorpusFiles([zipPath]);
    const importMs = performance.now() - t0;
    const importPeak = (await peakRssMb(pid)) ?? Number.NaN;
    const rssAfterImport = rssOf(pid);
    lines.push(
      `  corpus import: ${ADVISORIES.toLocaleString('en')} advisories from all.zip in ${(importMs / 1000).toFixed(1)} s (target ≤ 60 s) ${JSON.stringify(imported.imported[0])}`,
    );
    t0 = performance.now();
    const again = await importCorpusFiles([zipPath]);
    lines.push(
      `  re-import of the same zip (incremental, nothing changed): ${((performance.now() - t0) / 1000).toFixed(1)} s, written ${String((again.imported[0] as { written: number }).written)}`,
    );
    lines.push(`  server RSS at start: ${describeRss(rssAtStart)}`);
    lines.push(
      `  server RSS after the 50,000-advisory import went through its engines: ${describeRss(rssAfterImport)}; peak during the import ${importPeak.toFixed(0)} MB (the server caches no corpus; docs/architecture/local-runtime.md "Local memory")`,
    );

    const { post, get } = benchApi(server.baseUrl, dataDir);
    const productId = String((await post('/api/products', { name: 'Bench', slug: 'bench' })).data.id);

    const warm = await uploadAndScan(post, get, productId, 'warm', 1000, 99, true);
    lines.push(
      `  warm-up, 1,000 components: upload + POST /api/cve-scan ${ms(warm.scanMs)} (${warm.findings} findings)`,
    );

    if (!options.memoryOnly) {
      const tenK = [];
      for (const seed of [1, 2, 3])
        tenK.push(await uploadAndScan(post, get, productId, `a${seed}`, 10_000, seed, false));
      const tenKMedian = median(tenK.map((run) => run.scanMs));
      lines.push(
        `  Upload + POST /api/cve-scan, 10,000 components: median ${ms(tenKMedian)} (upload ${ms(median(tenK.map((run) => run.uploadMs)))}; ${tenK[0]?.findings ?? 0} findings; runs ${tenK.map((run) => ms(run.scanMs)).join(', ')})  (target ≤ 3,000 ms)  ${verdict(tenKMedian, 3000)}`,
      );
    }

    const twentyK = [];
    let peak = 0;
    const rssBefore20k = rssOf(pid);
    for (const seed of [4, 5]) {
      writeFileSync(`/proc/${pid}/clear_refs`, '5'); // reset the peak-RSS counter for this run
      twentyK.push(await uploadAndScan(post, get, productId, `b${seed}`, 20_000, seed, true));
      peak = Math.max(peak, (await peakRssMb(pid)) ?? 0);
    }
    const twentyKMedian = median(twentyK.map((run) => run.totalMs));
    lines.push(
      `  Upload + scan + first list, 20,000 components: median ${ms(twentyKMedian)} (${twentyK[0]?.findings ?? 0} findings; runs ${twentyK.map((run) => ms(run.totalMs)).join(', ')})  (target ≤ 6,000 ms)  ${verdict(twentyKMedian, 6000)}`,
    );
    lines.push(
      `  server RSS before the 20,000 scans (after the re-import${options.memoryOnly ? '' : ' and the 10,000 rounds'}): ${describeRss(rssBefore20k)}`,
    );
    lines.push(
      `  Peak RSS of the server process during the 20,000 scan: ${peak.toFixed(0)} MB (engines included; after it ${describeRss(rssOf(pid))})  (target ≤ 600 MB)  ${verdict(peak, 600)}`,
    );

    const last = twentyK.at(-1);
    if (last && !options.memoryOnly) {
      const { teamId } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { teamId: string };
      const worker = await runWorkerChild(dataDir, { teamId, sbomId: last.sbomId });
      const workerMemory = BACKGROUND_FUNCTIONS.find((fn) => fn.name === 'scan-worker')?.memoryMb ?? 0;
      lines.push(
        `  Scan-worker handler alone (own process, no engines), 20,000 components: peak RSS ${worker.peakMb.toFixed(0)} MB, scan ${ms(worker.ms)} (${worker.findingCount} findings)  (target ≤ ${workerMemory.toLocaleString('en')} MB, the Lambda's memory)  ${verdict(worker.peakMb, workerMemory)}`,
      );
    }
    return lines.join('\n');
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === 'worker-child') {
  workerChild(process.argv[3] ?? '', JSON.parse(process.argv[4] ?? '{}') as { teamId: string; sbomId: string }).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else if (import.meta.url === `file://${process.argv[1]}`) {
  printReport(benchScan({ memoryOnly: process.argv[2] === 'memory' }));
}
