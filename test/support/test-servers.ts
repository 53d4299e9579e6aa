/**
 * The local servers of an integration run, one per jest worker (test/support/global-setup.ts),
 * handed to the workers in an environment variable.
 */
export const TEST_SERVERS_VARIABLE = 'VEXDESK_TEST_SERVERS';

export interface TestServer {
  dataDir: string;
  baseUrl: string;
}

/**
 * The server of this jest worker (JEST_WORKER_ID counts from 1; "1" when jest runs in band).
 * Undefined when no list was handed down (the e2e project and benches set one server directly).
 */
export function serverOfThisWorker(env: NodeJS.ProcessEnv): TestServer | undefined {
  const raw = env[TEST_SERVERS_VARIABLE];
  if (!raw) return undefined;
  const servers = JSON.parse(raw) as TestServer[];
  const worker = Number(env.JEST_WORKER_ID ?? '1');
  return servers[(Number.isInteger(worker) && worker > 0 ? worker - 1 : 0) % servers.length];
}
