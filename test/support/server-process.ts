/** Starts `bin/start.ts` (bundled) as a child process, the real local runtime, and waits until it serves. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { serverBundle, startNodeFlags } from './server-bundle';

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  stop(): Promise<void>;
}

/** One call log per server process, in the directory the integration setup made (test/support/aws-call-manifest.ts). */
export function awsCallLog(): Record<string, string> {
  const dir = process.env.VEXDESK_AWS_CALL_LOG_DIR;
  return dir ? { VEXDESK_AWS_CALL_LOG: join(dir, `${randomUUID()}.jsonl`) } : {};
}

/**
 * VEXDESK_SERVER_CPU_PROF_DIR=dir: every server a test run starts writes V8 CPU profiles there (one per
 * thread, read with Chrome's DevTools) when it stops, to see where the server's time goes.
 */
function cpuProfileFlags(): string[] {
  const dir = process.env.VEXDESK_SERVER_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(dir)}`] : [];
}

/** `onStdoutLine`: the server's log lines (benches read its structured logs); ignored otherwise. */
export async function startServerProcess(
  dataDir: string,
  env: Record<string, string | undefined>,
  options: { onStdoutLine?: (line: string) => void } = {},
): Promise<ServerProcess> {
  const root = resolve(import.meta.dirname, '../..');
  const serverFile = join(dataDir, 'server.json');
  rmSync(serverFile, { force: true });
  // process.execPath: the same pinned Node as the test run, whatever node is first on PATH. bin/start.ts bundled
  // (./server-bundle.ts): half the CPU of a start through tsx's loader, and every test file starts servers.
  const child = spawn(process.execPath, [...startNodeFlags(), ...cpuProfileFlags(), await serverBundle()], {
    cwd: root,
    env: { ...process.env, ...awsCallLog(), ...env, DATA_DIR: dataDir, PORT: '0', VEXDESK_QUIET: '1' },
    stdio: ['ignore', options.onStdoutLine ? 'pipe' : 'ignore', 'inherit'],
  });
  if (options.onStdoutLine && child.stdout) createInterface({ input: child.stdout }).on('line', options.onStdoutLine);
  const deadline = Date.now() + 90_000;
  // server.json may be seen half-written (writeFile is not atomic): wait until it parses.
  let baseUrl: string | undefined;
  while (!baseUrl) {
    if (child.exitCode !== null) throw new Error(`local server exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('local server did not start within 90 s');
    await new Promise((done) => setTimeout(done, 100));
    try {
      if (existsSync(serverFile)) ({ baseUrl } = JSON.parse(readFileSync(serverFile, 'utf8')) as { baseUrl: string });
    } catch {
      baseUrl = undefined;
    }
  }
  return {
    child,
    baseUrl,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
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
