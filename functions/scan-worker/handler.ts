/**
 * SQS worker for the scan jobs every upload enqueues. A failed job is
 * reported back so SQS retries it; the last delivery's failure marks the
 * SBOM's scan failed before SQS moves the message to the dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { logger } from '../../shared/logger';
import { SCAN_QUEUE_MAX_RECEIVES } from '../../shared/scans/scan-retries';
import { Scans } from '../../shared/scans/scans';

const scanJob = z.object({
  teamId: z.uuid(),
  sbomId: z.uuid(),
  actor: z.object({ id: z.string(), name: z.string(), email: z.string().nullable(), kind: z.enum(['service_account', 'member', 'operator']) }),
});

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let job: z.infer<typeof scanJob>;
    try {
      job = scanJob.parse(JSON.parse(record.body));
    } catch (error) {
      logger.error('unreadable scan job', error as Error);
      failures.push({ itemIdentifier: record.messageId });
      continue;
    }
    logger.appendKeys({ teamId: job.teamId, sbomId: job.sbomId });
    try {
      const summary = await Scans.run(job.teamId, job.actor, job.sbomId);
      logger.info('scan completed', { findingCount: summary.findingCount });
    } catch (error) {
      logger.error('scan failed', error as Error);
      if (Number(record.attributes.ApproximateReceiveCount) >= SCAN_QUEUE_MAX_RECEIVES) await Scans.recordFailure(job.teamId, job.sbomId, error);
      else failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
