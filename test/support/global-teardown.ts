import type { ServerProcess } from './server-process';

/** Stops the local server gracefully (SIGTERM), bounded so a hung server cannot hold the run. */
export default async function globalTeardown(): Promise<void> {
  await (globalThis as { vexdeskServer?: ServerProcess }).vexdeskServer?.stop();
}
