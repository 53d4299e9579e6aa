import { rmSync } from 'node:fs';
import { settleAwsCallManifest } from './aws-call-manifest';
import type { ServerProcess } from './server-process';

/**
 * Stops the local servers gracefully (SIGTERM), bounded so a hung server cannot
 * hold the run, removes their data directories (a full run leaves gigabytes of LevelDB
 * files; VEXDESK_KEEP_TEST_DATA=1 keeps them to look into), then checks the AWS calls all servers recorded against the
 * committed manifest. An error thrown here makes jest exit non-zero.
 */
/** The part of jest's GlobalConfig that says whether this run selected only some tests. */
interface RunSelection {
  testPathPatterns: { isSet(): boolean };
  testNamePattern?: string;
  shard?: unknown;
  onlyChanged: boolean;
}

export default async function globalTeardown(globalConfig: RunSelection): Promise<void> {
  const servers = (globalThis as { vexdeskServers?: Array<ServerProcess & { dataDir: string }> }).vexdeskServers ?? [];
  await Promise.all(servers.map((server) => server.stop()));
  if (process.env.VEXDESK_KEEP_TEST_DATA !== '1')
    for (const server of servers)
      if (server.child.exitCode !== null || server.child.signalCode !== null)
        rmSync(server.dataDir, { recursive: true, force: true });
  const logDir = process.env.VEXDESK_AWS_CALL_LOG_DIR;
  if (!logDir) return;
  const partialRun =
    globalConfig.testPathPatterns.isSet() ||
    Boolean(globalConfig.testNamePattern) ||
    Boolean(globalConfig.shard) ||
    globalConfig.onlyChanged;
  process.stderr.write(
    `${settleAwsCallManifest(logDir, { update: process.env.UPDATE_AWS_CALLS === '1', partialRun })}\n`,
  );
}
