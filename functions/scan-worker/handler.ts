/**
 * Scan worker. Two triggers:
 * - the SQS scan queue (every upload enqueues a job): a failed job is
 *   reported back so SQS retries it; the last delivery's failure marks the
 *   SBOM's scan failed before SQS moves the message to the dead-letter queue;
 * - a schedule (the recovery sweep, docs/architecture/background-work.md "Recovery after a
 *   crash"): files of uploads cut off before their transaction, expired
 *   pre-signed sessions, and scans still owed long after the queue gave up
 *   (a dispatch lost with its Lambda, a last delivery that timed out); and the CRA deadline check
 *   (events 6 h and 1 h before each deadline and when one is missed, docs/cra-reporting.md).
 */
import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { ACTOR_KINDS } from '../../shared/service/identity/actor';
import { logger } from '../../shared/service/logger';
import { SCAN_QUEUE_MAX_RECEIVES } from '../../shared/service/scans/scan-retries';
import { Scans } from '../../shared/service/scans/scans';
import { SCHEDULED_GRACE, sweepUnfinishedWork } from '../../shared/service/scans/recovery-sweep';
import { checkCraDeadlines } from '../../shared/service/cra/deadline-check';
import { checkApiKeyExpiry } from '../../shared/service/identity/key-expiry';

const scanJob = z.object({
  teamId: z.uuid(),
  sbomId: z.uuid(),
  actor: z.object({ id: z.string(), name: z.string(), email: z.string().nullable(), kind: z.enum(ACTOR_KINDS) }),
});

/** A recovered scan starts only with this much of the invocation left (a 10 MB SBOM scans well within it). */
const SCAN_BUDGET_MS = 120 * 1000;

async function consume(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
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
      const summary = await Scans.run(job.teamId, job.actor, job.sbomId, {
        deadline: Date.now() + context.getRemainingTimeInMillis(),
      });
      logger.info('scan completed', { findingCount: summary.findingCount });
    } catch (error) {
      logger.error('scan failed', error as Error);
      if (Number(record.attributes.ApproximateReceiveCount) >= SCAN_QUEUE_MAX_RECEIVES)
        await Scans.recordFailure(job.teamId, job.sbomId, error);
      else failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}

async function sweep(context: Context): Promise<Record<string, unknown>> {
  // Recovered scans run right here: the worker is the scan runner, and a scan cut off by the
  // timeout simply stays owed (its recovery counted) for the next sweep.
  const result = await sweepUnfinishedWork({
    grace: SCHEDULED_GRACE,
    runScan: async (job) => {
      try {
        await Scans.run(job.teamId, job.actor, job.sbomId, {
          deadline: Date.now() + context.getRemainingTimeInMillis(),
        });
      } catch (error) {
        logger.error('recovered scan failed', { sbomId: job.sbomId, error: (error as Error).message });
      }
    },
    keepGoing: () => context.getRemainingTimeInMillis() > SCAN_BUDGET_MS,
  });
  logger.info('recovery sweep', result);
  // Every 15 minutes: a 1-hour warning is never more than a quarter of its hour late.
  const craDeadlines = await checkCraDeadlines().catch((error: unknown) => {
    logger.error('CRA deadline check failed', error as Error);
    return undefined;
  });
  // A week's warning, so a quarter of an hour late does not matter.
  const expiringKeys = await checkApiKeyExpiry().catch((error: unknown) => {
    logger.error('API key expiry check failed', error as Error);
    return undefined;
  });
  return { ...result, craDeadlines, expiringKeys };
}

export async function handler(
  event: SQSEvent | ScheduledEvent,
  context: Context,
): Promise<SQSBatchResponse | Record<string, unknown>> {
  return 'Records' in event ? consume(event, context) : sweep(context);
}
