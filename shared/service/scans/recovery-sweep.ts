/**
 * The recovery sweep (docs/architecture/background-work.md "Recovery after a crash"): the files
 * of uploads cut off before their transaction and of expired pre-signed
 * sessions, then the scans still owed. One routine for both callers: the scan
 * worker on its 15-minute schedule (with grace periods, since requests and
 * queue retries may still be running) and the local runtime at start (with
 * none: every record it finds was left by a previous process).
 */
import { Sboms } from '../sboms/sboms';
import type { ScanJob } from './scan-dispatch';
import { Scans } from './scans';

export interface RecoveryGrace {
  /** Staging records younger than this may still commit. */
  stagingMs: number;
  /** Owed scans younger than this are still the queue's to retry. */
  scanMs: number;
  /**
   * Every scan lease from before the sweep was left by a dead process (true only where no other
   * process can be scanning, as at local start): resumed scans break it instead of waiting it out.
   */
  leasesAbandoned: boolean;
}

export const SCHEDULED_GRACE: RecoveryGrace = {
  // Longer than any upload request (API Gateway ends them at 29 s).
  stagingMs: 15 * 60 * 1000,
  // Longer than the queue's whole retry window (3 deliveries × 30 min visibility).
  scanMs: 2 * 3600 * 1000,
  // Scans on other Lambdas may be running: their leases expire on their own (SCAN_LEASE_MS).
  leasesAbandoned: false,
};

export const NO_GRACE: RecoveryGrace = { stagingMs: 0, scanMs: 0, leasesAbandoned: true };

export async function sweepUnfinishedWork(options: {
  grace: RecoveryGrace;
  runScan: (job: ScanJob) => Promise<unknown>;
  /** Bounds a run with a deadline; owed scans it leaves wait for the next run. */
  keepGoing?: () => boolean;
}) {
  const now = Date.now();
  const swept = await Sboms.sweep(new Date(now - options.grace.stagingMs).toISOString());
  const resumed = await Scans.resumePending(
    new Date(now - options.grace.scanMs).toISOString(),
    options.runScan,
    options.keepGoing,
    options.grace.leasesAbandoned ? now : undefined,
  );
  return { swept, resumed };
}
