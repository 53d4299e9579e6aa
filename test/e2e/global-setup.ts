/**
 * The e2e project (docs/console.md "End-to-end tests"): builds the console with Vite unless web/dist is newer than
 * its sources (`npm test` builds it first in the e2e lane; `npm start` does the same check), then
 * starts the real local server (`bin/start.ts`, which serves web/dist at `/`) on a random port with
 * a fresh data directory. The tests drive Debian's chromium against it with playwright-core.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConsole, consoleBuildIsStale } from '../../bin/build-web';
import { startServerProcess } from '../support/server-process';
import { TEST_SIGN_IN_CLIENT_LIMIT, TEST_SIGNING_KEY } from '../support/global-setup';

export default async function globalSetup(): Promise<void> {
  if (consoleBuildIsStale()) await buildConsole();
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-e2e-'));
  const server = await startServerProcess(dataDir, {
    DISCLOSURE_SIGNING_KEY: TEST_SIGNING_KEY,
    // The browser tests sign in often from one loopback address.
    VEXDESK_SIGN_IN_CLIENT_LIMIT: TEST_SIGN_IN_CLIENT_LIMIT,
    // The notification settings test sends to a receiver on loopback over plain http.
    VEXDESK_ALLOW_LOOPBACK_WEBHOOKS: '1',
    // Engines on the API's thread, as the integration servers run them: no loopback hop and signature per table
    // call (a quarter of this server's busy time went to those writes); the default thread is run by the crash test.
    VEXDESK_ENGINES_THREAD: 'main',
  });
  process.env.VEXDESK_TEST_DATA_DIR = dataDir;
  process.env.VEXDESK_TEST_BASE_URL = server.baseUrl;
  (globalThis as { vexdeskServer?: typeof server }).vexdeskServer = server;
}
