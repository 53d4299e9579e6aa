/**
 * Scan worker. Two triggers:
 * - the SQS scan queue (every upload enqueues a job): a failed job is
 *   reported back so SQS retries it; the last delivery's failure marks the
 *   SBOM's scan failed before SQS moves the message to the dead-letter queue;
 * - a schedule (the recovery sweep, docs/architecture.md "Recovery after a
 *   crash"): files of uploads cut off before their transaction, expired
 *   pre-signed sessions, and scans still owed long after the queue gave up
 *   (a dispatch lost with its Lambda, a last delivery that timed out).
 */
import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { logger } from '../../shared/logger';
import { Sboms } from '../../shared/sboms/sboms';
import { SCAN_QUEUE_MAX_RECEIVES } from '../../shared/scans/scan-retries';
import { Scans } from '../../shared/scans/scans';

const scanJob = z.object({
  teamId: z.uuid(),
  sbomId: z.uuid(),
  actor: z.object({ id: z.string(), name: z.string(), email: z.string().nullable(), kind: z.enum(['service_account', 'member', 'operator']) }),
});

/** Longer than any upload request (API Gateway ends them at 29 s): a younger staging record may still commit. */
const STAGING_GRACE_MS = 15 * 60 * 1000;
/** Longer than the queue's whole retry window (3 deliveries × 30 min visibility): SQS is done with older ones. */
const SCAN_OVERDUE_MS = 2 * 3600 * 1000;
/** A recovered scan starts only with this much of the invocation left (a 10 MB SBOM scans well within it). */
const SCAN_BUDGET_MS = 120 * 1000;

async function consume(event: SQSEvent): Promise<SQSBatchResponse> {
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

async function sweep(context: Context): Promise<Record<string, unknown>> {
  const now = Date.now();
  const swept = await Sboms.sweep(new Date(now - STAGING_GRACE_MS).toISOString());
  // Recovered scans run right here: the worker is the scan runner, and a scan cut off by the
  // timeout simply stays owed (its recovery counted) for the next sweep.
  const resumed = await Scans.resumePending(new Date(now - SCAN_OVERDUE_MS).toISOString(), async (job) => {
    try {
      await Scans.run(job.teamId, job.actor, job.sbomId);
    } catch (error) {
      logger.error('recovered scan failed', { sbomId: job.sbomId, error: (error as Error).message });
    }
  }, () => context.getRemainingTimeInMillis() > SCAN_BUDGET_MS);
  logger.info('recovery sweep', { swept, resumed });
  return { swept, resumed };
}

export async function handler(event: SQSEvent | ScheduledEvent, context: Context): Promise<SQSBatchResponse | Record<string, unknown>> {
  return 'Records' in event ? consume(event) : sweep(context);
}
