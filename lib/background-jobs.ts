/**
 * Work outside a request: the scan queue every upload sends to and the scan worker consumes, the
 * worker's recovery sweep every 15 minutes, the corpus refresh (hourly by default) and the notification worker (every minute). Plain functions adding to
 * the stack scope, so logical IDs stay those of the deployed resources (lib/stack-support.ts).
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { SCAN_QUEUE_MAX_RECEIVES } from '../shared/service/scans/scan-retries';
import type { FunctionSpec } from './function-catalog';

/** The scan queue and its dead-letter queue, sized for a worker with the given timeout. */
export function createScanQueue(scope: Stack, workerTimeoutSeconds: number): sqs.Queue {
  const deadLetters = new sqs.Queue(scope, 'ScanDeadLetterQueue', {
    retentionPeriod: Duration.days(14),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  return new sqs.Queue(scope, 'ScanQueue', {
    // AWS guidance for Lambda event sources: visibility ≥ 6 × the function timeout.
    visibilityTimeout: Duration.seconds(workerTimeoutSeconds * 6),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: deadLetters, maxReceiveCount: SCAN_QUEUE_MAX_RECEIVES },
  });
}

/** What starts the background functions of the catalog: the scan queue and their schedules. */
export function attachBackgroundTriggers(
  scope: Stack,
  catalog: readonly FunctionSpec[],
  functionOf: (name: string) => lambda.Function,
  scanQueue: sqs.Queue | undefined,
  corpusRefreshSchedule: string,
): void {
  for (const spec of catalog) {
    const fn = functionOf(spec.name);
    if (spec.role.kind === 'scan-worker' && scanQueue) {
      // The worker reports failed records one by one ({ batchItemFailures }); three failures move a message to the DLQ.
      fn.addEventSource(new SqsEventSource(scanQueue, { batchSize: 1, reportBatchItemFailures: true }));
      new events.Rule(scope, 'RecoverySweepSchedule', {
        description:
          'Recovery after a crash: files of unfinished uploads, expired upload sessions, scans the queue gave up on',
        schedule: events.Schedule.rate(Duration.minutes(15)),
        targets: [new eventTargets.LambdaFunction(fn, { retryAttempts: 0 })],
      });
    }
    if (spec.role.kind === 'notify-worker') {
      new events.Rule(scope, 'NotifyWorkerSchedule', {
        description: 'Notifications: new events become deliveries, owed attempts and daily digests go out',
        schedule: events.Schedule.rate(Duration.minutes(1)),
        // The next run a minute later does whatever a failed one left: its state is all in the table.
        targets: [new eventTargets.LambdaFunction(fn, { retryAttempts: 0 })],
      });
    }
    if (spec.role.kind === 'corpus-refresh') {
      new events.Rule(scope, 'CorpusRefreshSchedule', {
        description: 'Incremental refresh of the vulnerability corpus (OSV, CISA KEV, EPSS)',
        schedule: events.Schedule.expression(corpusRefreshSchedule),
        // A failed run is retried soon; a retry older than an hour would only overlap the next scheduled run.
        targets: [new eventTargets.LambdaFunction(fn, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
      });
      // A whole-archive import runs in units of a few minutes: each run of this schedule goes on from the
      // last checkpoint (a run with nothing under way reads the feed states and ends).
      new events.Rule(scope, 'CorpusRefreshContinuation', {
        description: 'Continues a corpus archive import under way from its last checkpoint',
        schedule: events.Schedule.rate(Duration.minutes(5)),
        targets: [
          new eventTargets.LambdaFunction(fn, {
            event: events.RuleTargetInput.fromObject({ continuation: true }),
            retryAttempts: 0,
          }),
        ],
      });
    }
  }
}
