/**
 * Runs before each integration test file: picks this worker's server (one per worker,
 * test/support/global-setup.ts) unless one is named already (the e2e project, a child process
 * a test starts), points the AWS SDK at its embedded engines (with their data directory's
 * key pair), and refuses anything but loopback endpoints.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { serverOfThisWorker } from './test-servers';

const workerServer = process.env.VEXDESK_TEST_DATA_DIR ? undefined : serverOfThisWorker(process.env);
if (workerServer) {
  // Tests, the admin CLI runs they start and their child processes read these two.
  process.env.VEXDESK_TEST_DATA_DIR = workerServer.dataDir;
  process.env.VEXDESK_TEST_BASE_URL = workerServer.baseUrl;
}
const dataDir = process.env.VEXDESK_TEST_DATA_DIR;
if (!dataDir) throw new Error('integration tests need the global setup (VEXDESK_TEST_DATA_DIR unset)');
const engines = JSON.parse(readFileSync(join(dataDir, 'engines.json'), 'utf8')) as {
  dynamoEndpoint: string;
  s3Endpoint: string;
};
// The engines accept only the data directory's own key pair.
const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as {
  accessKeyId: string;
  secretAccessKey: string;
};
for (const endpoint of [engines.dynamoEndpoint, engines.s3Endpoint, process.env.VEXDESK_TEST_BASE_URL ?? '']) {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+/.test(endpoint))
    throw new Error(`refusing to run integration tests against ${endpoint}`);
}
// Documents generated in-process name the test server, as the server's own do.
applyLocalEnvironment({ ...engines, credentials, dataDir }, process.env.VEXDESK_TEST_BASE_URL);
