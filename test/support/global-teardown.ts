import type { ChildProcess } from 'node:child_process';

export default async function globalTeardown(): Promise<void> {
  const child = (globalThis as { vexdeskServer?: ChildProcess }).vexdeskServer;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((done) => setTimeout(done, 15_000))]);
}
