import type { ServerProcess } from '../support/server-process';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { vexdeskServer?: ServerProcess }).vexdeskServer?.stop();
}
