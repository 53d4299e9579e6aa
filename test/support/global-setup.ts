/**
 * Starts the real local server (`bin/start.ts`) once for the integration
 * project, on a random loopback port with a throwaway data directory. Tests
 * talk to it over HTTP and reach the same embedded engines for setup.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from './server-process';

export const TEST_SIGNING_KEY = 'vexdesk-test-signing-key';
export const TEST_SIGN_IN_CLIENT_LIMIT = '1000000';

export default async function globalSetup(): Promise<void> {
  // Every server the tests start records its functions' AWS calls here; the teardown checks them (test/support/aws-call-manifest.ts).
  process.env.VEXDESK_AWS_CALL_LOG_DIR = mkdtempSync(join(tmpdir(), 'vexdesk-aws-calls-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-it-'));
  // The OIDC tests serve their stand-in issuer on loopback over HTTP (docs/oidc.md); workers inherit it for in-process services.
  process.env.VEXDESK_ALLOW_LOOPBACK_ISSUERS = '1';
  // Every test signs in from the same loopback address: the per-client sign-in limit is held by
  // test/security/rate-limits.test.ts on a server of its own. Servers the tests start inherit this.
  process.env.VEXDESK_SIGN_IN_CLIENT_LIMIT = TEST_SIGN_IN_CLIENT_LIMIT;
  const server = await startServerProcess(dataDir, {
    DISCLOSURE_SIGNING_KEY: TEST_SIGNING_KEY,
    VEXDESK_ALLOW_LOOPBACK_ISSUERS: '1',
    // Notification tests deliver to receivers on loopback and watch retries happen within seconds.
    VEXDESK_ALLOW_LOOPBACK_WEBHOOKS: '1',
    VEXDESK_NOTIFY_RETRY_BASE_MS: '300',
    VEXDESK_NOTIFY_POLL_MS: '200',
  });
  process.env.VEXDESK_TEST_DATA_DIR = dataDir;
  process.env.VEXDESK_TEST_BASE_URL = server.baseUrl;
  (globalThis as { vexdeskServer?: typeof server }).vexdeskServer = server;
}
