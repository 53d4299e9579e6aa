/**
 * SQS worker for the scan jobs every upload enqueues. A failed job is
 * reported back so SQS retries it and, after the redrive limit, moves it to
 * the dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { logger } from '../../shared/logger';
import { Scans } from '../../shared/scans/scans';

const scanJob = z.object({
  teamId: z.uuid(),
  sbomId: z.uuid(),
  actor: z.object({ id: z.string(), name: z.string(), email: z.string().nullable(), kind: z.enum(['service_account', 'member', 'operator']) }),
});

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const job = scanJob.parse(JSON.parse(record.body));
      logger.appendKeys({ teamId: job.teamId, sbomId: job.sbomId });
      const summary = await Scans.run(job.teamId, job.actor, job.sbomId);
      logger.info('scan completed', { findingCount: summary.findingCount });
    } catch (error) {
      logger.error('scan failed', error as Error);
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
