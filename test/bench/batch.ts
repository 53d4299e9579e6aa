/**
 * Disposition batch bench (issue 8, defects 2-3): POST /api/dispositions/batch
 * of 500 findings through HTTP against the real local server, now that a batch
 * records its intent and applies 27 conditional chunks under it. Alternating
 * statuses make every run write a new revision of all 500 dispositions.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { startServerProcess } from '../support/server-process';
import { median, ms } from './stats';
import { printReport } from './main';

const FINDINGS = 500;
const RUNS = 7;

export async function benchBatch(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-batch-'));
  const server = await startServerProcess(dataDir, { POWERTOOLS_LOG_LEVEL: 'ERROR' });
  try {
    const engines = await findRunningEngines(dataDir);
    if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
    applyLocalEnvironment(engines);
    process.env.VEXDESK_TEST_BASE_URL = server.baseUrl;
    // Imported after the environment points at the server's engines (configuration is read once).
    const { client } = await import('../support/http-client');
    const { seedReleaseWithFindings } = await import('../support/seed');
    const { apiKey, teamId } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
      apiKey: string;
      teamId: string;
    };
    const api = client(apiKey);
    const { findings } = await seedReleaseWithFindings(api, teamId, FINDINGS);
    const vulnerabilityIds = findings.map((finding) => finding.id);
    const durations: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const body =
        run % 2 === 0
          ? { vulnerabilityIds, status: 'not_affected', justification: 'component_not_present', detail: `bench ${run}` }
          : { vulnerabilityIds, status: 'under_investigation', detail: `bench ${run}` };
      const startedAt = performance.now();
      const response = await api.post('/api/dispositions/batch', body);
      durations.push(performance.now() - startedAt);
      if (response.status !== 200) throw new Error(`batch answered ${response.status}: ${response.text}`);
    }
    return [
      `Disposition batch, ${FINDINGS} findings through HTTP (median of ${RUNS}, each a new revision of every disposition):`,
      `  POST /api/dispositions/batch  median ${ms(median(durations))}  (min ${ms(Math.min(...durations))}, max ${ms(Math.max(...durations))}; the dispositions Lambda allows 29 s)`,
    ].join('\n');
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printReport(benchBatch());
}
