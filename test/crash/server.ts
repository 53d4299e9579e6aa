/**
 * The real local server (`bin/start.ts`) as a child process the crash test can
 * SIGKILL. Node runs the server's bundle itself (test/support/server-bundle.ts), so the child is
 * the server process: the kill hits it and not a wrapper that would outlive it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { serverBundle, startNodeFlags } from '../support/server-bundle';

const ROOT = resolve(import.meta.dirname, '../..');

export interface CrashServer {
  baseUrl: string;
  pid: number;
  /** SIGKILL: no shutdown handler runs, nothing is flushed beyond what the OS already has. */
  kill(): Promise<void>;
  /** SIGTERM, the graceful stop of bin/start.ts. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once('exit', () => done()));
}

/** Starts the server on dataDir and resolves once it wrote server.json (it serves from then on). */
export async function startCrashServer(
  dataDir: string,
  logFile: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<CrashServer> {
  const serverFile = join(dataDir, 'server.json');
  rmSync(serverFile, { force: true }); // a SIGKILLed server leaves its server.json behind
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...startNodeFlags(), await serverBundle()], {
    cwd: ROOT,
    env: { ...process.env, ...env, DATA_DIR: dataDir, PORT: '0', VEXDESK_QUIET: '1' },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(serverFile)) {
    if (child.exitCode !== null)
      throw new Error(`the server exited with code ${child.exitCode} during start (log: ${logFile})`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not report ready within ${timeoutMs} ms (log: ${logFile})`);
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  const { baseUrl, pid } = JSON.parse(readFileSync(serverFile, 'utf8')) as { baseUrl: string; pid: number };
  if (pid !== child.pid) throw new Error(`server.json names pid ${pid}, the child is ${String(child.pid)}`);
  return {
    baseUrl,
    pid,
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
    stop: async () => {
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        exited(child),
        new Promise((done) => {
          timer = setTimeout(done, 15_000);
        }),
      ]);
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited(child);
      }
    },
  };
}
