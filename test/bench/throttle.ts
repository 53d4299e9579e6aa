/**
 * Throttle bench (issue 8, defect 9): the per-request cost the local API
 * Gateway emulation adds for throttling — the per-IP rule of the disclosure
 * routes and the per-team token bucket with its quota cached (the table is
 * read at most once per second per team). In-process, no server: the check
 * is microseconds, far below what loopback HTTP timing could resolve.
 */
import { pathToFileURL } from 'node:url';
import { printReport } from './main';
import { ClientRateLimit, UsagePlanThrottle } from '../../shared/local/local-throttle';
import { median, percentile } from './stats';

const BATCH = 1000;
const BATCHES = 300;

/** Median and p99 cost of one call, in microseconds, from batches (performance.now is too coarse for single calls). */
async function perCall(call: (index: number) => unknown): Promise<{ p50: number; p99: number }> {
  const perBatch: number[] = [];
  let index = 0;
  for (let batch = 0; batch < BATCHES; batch += 1) {
    const t0 = performance.now();
    for (let step = 0; step < BATCH; step += 1) await call(index++);
    perBatch.push(((performance.now() - t0) * 1000) / BATCH);
  }
  return { p50: median(perBatch), p99: percentile(perBatch, 99) };
}

export async function benchThrottle(): Promise<string> {
  // Quotas high enough that every call is admitted, as in normal traffic; 50 teams, 50 client IPs.
  const plans = new UsagePlanThrottle({
    quotaOf: () => Promise.resolve({ rateLimit: 1e9, burstLimit: 1e9 }),
    cacheMs: 60_000,
  });
  const clients = new ClientRateLimit(2_000_000_000, 60);
  const teams = Array.from({ length: 50 }, (_, index) => `vxdteam${String(index).padStart(32, '0')}`);
  const ips = Array.from({ length: 50 }, (_, index) => `198.51.100.${index}`);

  const team = await perCall((index) => plans.admit(teams[index % teams.length]!, performance.now()));
  const client = await perCall((index) => clients.admit(ips[index % ips.length]!, performance.now()));
  const row = (name: string, value: { p50: number; p99: number }) =>
    `| ${name} | ${value.p50.toFixed(2)} µs | ${value.p99.toFixed(2)} µs |`;
  return [
    `Local throttle check, added per request (${BATCHES} batches of ${BATCH} calls; per-call cost of each batch):`,
    '| Check | median | p99 |',
    '|---|---|---|',
    row('per-team token bucket (authorized routes, quota cached)', team),
    row('per-IP window (disclosure routes)', client),
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  printReport(benchThrottle());
}
