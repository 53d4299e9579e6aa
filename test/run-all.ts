/**
 * `npm test`: every check and suite, in lanes that run side by side.
 *
 * The suites are CPU-bound and the machines that run them have two cores. Run one after the
 * other, each phase ended with a tail in which one core idled (a last long test file, the last
 * scan of a suite, a server stopping) and the crash and e2e tests spent much of their time
 * waiting on restarts and a browser. In lanes, another lane's work fills those gaps: the longest
 * phase (integration) starts at once, and the others run beside it in an order that keeps about two
 * processes busy and ends the lanes close together (docs/testing.md "How npm test runs").
 *
 * Each phase's output is printed whole when it ends, so lanes do not interleave lines. The first
 * failure stops every lane (the run fails fast, as the chained `&&` did) and its output is printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';

interface Phase {
  name: string;
  /** The npm script it runs, and arguments for it. */
  script: string;
  args?: string[];
  /** Added to the environment of its process. */
  env?: Record<string, string>;
}

/**
 * Integration files that start servers or engines of their own (kills, restarts, other settings). They run in the
 * e2e lane, which has the least work, with the security files; the integration lane, the longest, runs the rest.
 * One pattern for both, so that every file runs in exactly one of them.
 */
const OWN_SERVER_FILES =
  'test/integration/(corpus-archive-resume|crash-recovery|csaf-provider|disposition-batch-crash|embedded-crash|local-start|notifications-wake|signing-restart|throttling)\\.test\\.ts$';

/** Lanes run side by side; the phases of a lane one after the other. */
const LANES: Phase[][] = [
  [{ name: 'integration', script: 'test:integration', args: ['--testPathIgnorePatterns', OWN_SERVER_FILES] }],
  [
    // Lint's type-aware pass (oxlint's tsgolint, in Go) spreads its work over every core by default; beside the
    // other lanes, which keep both cores busy, one thread does the same work for about 5 of its 15-20 CPU-s less.
    { name: 'check', script: 'check', env: { GOMAXPROCS: '1' } },
    { name: 'unit', script: 'test:unit' },
  ],
  [
    // The console first: e2e serves it, and `npm start` in the integration tests builds it when missing (twice
    // over, and racing the e2e build, when neither found it built).
    { name: 'console build', script: 'build:web' },
    { name: 'crash', script: 'test:crash' },
    { name: 'e2e', script: 'test:e2e' },
    // One jest run for both projects: their global setup is the same module, so jest starts one set of servers.
    {
      name: 'security + own-server integration',
      script: 'test:api',
      args: ['--testPathPatterns', `test/security/|${OWN_SERVER_FILES}`],
    },
    // Last, where lane 3 had time to spare once the test servers started from a bundle: with infra after unit,
    // lane 2 ended 85 s after lane 3 (check 190 s, unit 68 s, infra 40 s; lane 3 at 213 s).
    { name: 'infra', script: 'test:infra' },
  ],
];

interface Finished {
  name: string;
  startedAt: number;
  seconds: number;
  status: 'passed' | 'FAILED' | 'stopped';
}

const started = Date.now();
const running = new Set<ChildProcess>();
const finished: Finished[] = [];
let failed = false;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function stopAll(signal: NodeJS.Signals = 'SIGTERM'): void {
  for (const child of running) {
    // Each phase leads its own process group: its servers and workers stop with it.
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    }
  }
}

function runPhase(phase: Phase): Promise<boolean> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '-s', phase.script, ...(phase.args ? ['--', ...phase.args] : [])], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0', ...phase.env },
    });
    running.add(child);
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (code, signal) => {
      running.delete(child);
      const ok = code === 0;
      const took = Date.now() - startedAt;
      // A phase stopped because another failed says nothing new: only its heading is printed.
      const status = ok ? 'passed' : failed ? 'stopped' : 'FAILED';
      finished.push({ name: phase.name, startedAt: startedAt - started, seconds: took / 1000, status });
      const why = status === 'FAILED' ? ` (${signal ?? `exit ${code}`})` : '';
      const command = ['npm run', phase.script, ...(phase.args ? ['--', ...phase.args] : [])].join(' ');
      process.stdout.write(`\n── ${phase.name} (${command}): ${status}${why} in ${seconds(took)} ──\n`);
      if (status !== 'stopped') process.stdout.write(Buffer.concat(output));
      resolve(ok);
    });
  });
}

async function runLane(lane: Phase[]): Promise<void> {
  for (const phase of lane) {
    if (failed) return;
    const ok = await runPhase(phase);
    if (!ok && !failed) {
      failed = true;
      stopAll();
    }
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    failed = true;
    stopAll(signal);
  });

await Promise.all(LANES.map(runLane));

const total = Date.now() - started;
process.stdout.write(`\n${failed ? 'npm test FAILED' : 'npm test passed'} in ${seconds(total)}:\n`);
for (const phase of finished.sort((a, b) => a.startedAt - b.startedAt))
  process.stdout.write(
    `  ${phase.name.padEnd(34)} ${phase.status.padEnd(7)} from ${seconds(phase.startedAt).padStart(7)}  ${seconds(phase.seconds * 1000).padStart(7)}\n`,
  );
process.exitCode = failed ? 1 : 0;
