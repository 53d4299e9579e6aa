import type { ChildProcess } from 'node:child_process';

/** Stops the local server gracefully (SIGTERM), with a bound so a hung server cannot hold the run. */
export default async function globalTeardown(): Promise<void> {
  const child = (globalThis as { vexdeskServer?: ChildProcess }).vexdeskServer;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((done) => {
    timer = setTimeout(done, 15_000);
  });
  await Promise.race([exited, timeout]);
  clearTimeout(timer);
  if (child.exitCode === null) child.kill('SIGKILL');
}
