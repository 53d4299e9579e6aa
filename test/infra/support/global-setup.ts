/**
 * A directory for the infra project's run, removed by ./global-teardown.ts: it holds the cloud
 * assemblies the tests synthesize, which CDK would otherwise leave in a directory of their own
 * under the system's temp directory (tens of MB each with the assets), and the functions' bundles
 * (./function-bundles.ts). Workers start after this and inherit the variable.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Names the run's directory. */
export const INFRA_RUN_DIR_ENV = 'VEXDESK_INFRA_RUN_DIR';

/** The run's directory; undefined outside a jest run of the infra project. */
export function infraRunDir(): string | undefined {
  return process.env[INFRA_RUN_DIR_ENV] || undefined;
}

export default function globalSetup(): void {
  process.env[INFRA_RUN_DIR_ENV] = mkdtempSync(join(tmpdir(), 'vexdesk-infra-run-'));
}
