/**
 * Starts the real local server (`bin/start.ts`) once for the integration
 * project, on a random loopback port with a throwaway data directory. Tests
 * talk to it over HTTP and reach the same embedded engines for setup.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const TEST_SIGNING_KEY = 'vexdesk-test-signing-key';

export default async function globalSetup(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-it-'));
  const root = resolve(import.meta.dirname, '../..');
  // process.execPath: the same pinned Node as the test run, whatever node is first on PATH.
  const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'bin/start.ts')], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', VEXDESK_QUIET: '1', DISCLOSURE_SIGNING_KEY: TEST_SIGNING_KEY },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const serverFile = join(dataDir, 'server.json');
  const deadline = Date.now() + 90_000;
  while (!existsSync(serverFile)) {
    if (child.exitCode !== null) throw new Error(`local server exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('local server did not start within 90 s');
    await new Promise((done) => setTimeout(done, 100));
  }
  const { baseUrl } = JSON.parse(readFileSync(serverFile, 'utf8')) as { baseUrl: string };
  process.env.VEXDESK_TEST_DATA_DIR = dataDir;
  process.env.VEXDESK_TEST_BASE_URL = baseUrl;
  process.env.VEXDESK_TEST_SERVER_PID = String(child.pid);
  (globalThis as { vexdeskServer?: typeof child }).vexdeskServer = child;
}
