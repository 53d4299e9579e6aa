/**
 * Work the deployed stack does outside API requests, run in-process locally:
 * the scan worker (SQS + Lambda on AWS) and the first-start load of the
 * bundled sample corpus. stop() waits for running scans so a shutdown never
 * cuts one in half.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { runAsFunction } from '../aws-call-log';
import { corpusStore } from '../corpus/corpus-store';
import { importCorpusFiles } from '../corpus/import';
import { registerInProcessScanWorker } from '../scans/scan-dispatch';
import { Scans } from '../scans/scans';
import { DispositionBatches } from '../dispositions/disposition-batches';

export interface BackgroundWork {
  stop(): Promise<void>;
}

export const SAMPLE_CORPUS_DIR = fileURLToPath(new URL('../corpus/sample/', import.meta.url));

export async function startLocalBackgroundWork(options: { dataDir: string; log: (line: Record<string, unknown>) => void }): Promise<BackgroundWork> {
  options.log({ type: 'disposition-batches', message: 'pending batches finished before serving', ...(await runAsFunction('corpus-refresh', () => DispositionBatches.recoverPending())) });
  // The first-start import and the worker's scans are the code of the corpus-refresh and scan-worker functions (shared/aws-call-log.ts).
  if (!(await runAsFunction('corpus-refresh', () => corpusStore.meta()))) {
    const paths = [join(SAMPLE_CORPUS_DIR, 'osv'), join(SAMPLE_CORPUS_DIR, 'kev', 'known_exploited_vulnerabilities.json')].filter((path) => existsSync(path));
    const result = await runAsFunction('corpus-refresh', () => importCorpusFiles(paths));
    options.log({ type: 'corpus', message: 'sample corpus loaded on first start', result });
  }
  const running = new Set<Promise<unknown>>();
  registerInProcessScanWorker((job) => {
    const scan = runAsFunction('scan-worker', () => Scans.run(job.teamId, job.actor, job.sbomId))
      .then((summary) => options.log({ type: 'scan', sbomId: job.sbomId, findingCount: summary.findingCount }))
      .catch((error: unknown) => options.log({ type: 'scan', sbomId: job.sbomId, error: (error as Error).message }))
      .finally(() => running.delete(scan));
    running.add(scan);
  });
  return {
    stop: async () => {
      registerInProcessScanWorker(undefined);
      await Promise.allSettled([...running]);
    },
  };
}
