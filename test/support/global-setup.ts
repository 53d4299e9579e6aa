/**
 * Starts the real local server (`bin/start.ts`) once per jest worker for the integration and
 * security projects, each on a random loopback port with a throwaway data directory of its own:
 * the server does most of the run's work, so one per worker puts it on every core. Each worker
 * talks to its own server over HTTP and reaches that server's embedded engines for setup
 * (test/support/integration-env.ts picks it by JEST_WORKER_ID).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from './server-process';
import { TEST_SERVERS_VARIABLE, type TestServer } from './test-servers';

export const TEST_SIGNING_KEY = 'vexdesk-test-signing-key';
export const TEST_SIGN_IN_CLIENT_LIMIT = '1000000';

/**
 * At most this many servers: jest reads a repeated --maxWorkers (`npm run test:integration -- --maxWorkers=1`
 * after the script's own) as 100, and workers past the last server share servers in turn.
 */
const MAX_TEST_SERVERS = 4;

/** The part of jest's GlobalConfig the setup reads: how many workers will run test files. */
interface WorkerCount {
  maxWorkers: number;
}

async function startTestServer(): Promise<ServerProcess & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-it-'));
  const server = await startServerProcess(dataDir, {
    DISCLOSURE_SIGNING_KEY: TEST_SIGNING_KEY,
    VEXDESK_ALLOW_LOOPBACK_ISSUERS: '1',
    // Notification tests deliver to receivers on loopback and watch retries happen within seconds.
    VEXDESK_ALLOW_LOOPBACK_WEBHOOKS: '1',
    VEXDESK_NOTIFY_RETRY_BASE_MS: '300',
    // One server per jest worker already fills the cores: engines on the API's thread spare each DynamoDB
    // call the loopback hop and its signature (docs/architecture/local-runtime.md). The crash test keeps the default.
    VEXDESK_ENGINES_THREAD: 'main',
  });
  return { ...server, dataDir };
}

export default async function globalSetup(globalConfig: WorkerCount): Promise<void> {
  // Every server the tests start records its functions' AWS calls here; the teardown checks them (test/support/aws-call-manifest.ts).
  process.env.VEXDESK_AWS_CALL_LOG_DIR = mkdtempSync(join(tmpdir(), 'vexdesk-aws-calls-'));
  // The OIDC tests serve their stand-in issuer on loopback over HTTP (docs/oidc.md); workers inherit it for in-process services.
  process.env.VEXDESK_ALLOW_LOOPBACK_ISSUERS = '1';
  // Every test signs in from the same loopback address: the per-client sign-in limit is held by
  // test/security/rate-limits.test.ts on a server of its own. Servers the tests start inherit this.
  process.env.VEXDESK_SIGN_IN_CLIENT_LIMIT = TEST_SIGN_IN_CLIENT_LIMIT;
  const count = Math.min(Math.max(1, globalConfig.maxWorkers), MAX_TEST_SERVERS);
  const started = await Promise.allSettled(Array.from({ length: count }, () => startTestServer()));
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  (globalThis as { vexdeskServers?: Array<ServerProcess & { dataDir: string }> }).vexdeskServers = servers;
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    await Promise.all(servers.map((server) => server.stop()));
    throw failure.reason;
  }
  const list: TestServer[] = servers.map(({ dataDir, baseUrl }) => ({ dataDir, baseUrl }));
  process.env[TEST_SERVERS_VARIABLE] = JSON.stringify(list);
}
