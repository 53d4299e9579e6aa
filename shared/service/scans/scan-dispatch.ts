/**
 * Starts the scan job that every upload triggers (spec "Upload rules" 2). With a
 * queue configured (the stack sets SCAN_QUEUE_URL) the job goes to SQS and the
 * scan-worker Lambda runs it; otherwise a worker registered in this process
 * runs it (the local server registers one). The choice is configuration, read once.
 */
import { sqs } from '../aws-clients';
import { config } from '../config';
import type { Actor } from '../identity/actor';
import { logger } from '../logger';

export interface ScanJob {
  teamId: string;
  sbomId: string;
  actor: Actor;
}

type InProcessWorker = (job: ScanJob) => void;

let inProcessWorker: InProcessWorker | undefined;

export function registerInProcessScanWorker(worker: InProcessWorker | undefined): void {
  inProcessWorker = worker;
}

export async function dispatchScan(job: ScanJob): Promise<'queued' | 'started' | 'not-dispatched'> {
  const queueUrl = config().scanQueueUrl;
  if (queueUrl) {
    const { sdk, client } = await sqs();
    await client.send(new sdk.SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(job) }));
    return 'queued';
  }
  if (inProcessWorker) {
    inProcessWorker(job);
    return 'started';
  }
  logger.warn('no scan worker configured; the SBOM stays queued until POST /api/cve-scan', { sbomId: job.sbomId });
  return 'not-dispatched';
}
