/**
 * A directory for the infra project's run, removed by ./global-teardown.ts: the cloud assemblies
 * the tests synthesize (CDK would leave each in a directory of its own under the system's temp
 * directory, tens of MB with the assets) and the template validation reports one test file writes
 * and the others read (./validation-cache.ts). Workers start after this and inherit the variable.
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
