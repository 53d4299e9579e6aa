/**
 * A directory for the infra project's run: template validation reports
 * (./validation-cache.ts) written by one test file and read by the others.
 * Workers start after this and inherit the variable.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Names the run's directory; read by ./validation-cache.ts. */
export const VALIDATION_CACHE_ENV = 'VEXDESK_INFRA_VALIDATION_CACHE';

export default function globalSetup(): void {
  process.env[VALIDATION_CACHE_ENV] = mkdtempSync(join(tmpdir(), 'vexdesk-infra-run-'));
}
