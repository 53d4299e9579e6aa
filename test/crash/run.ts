/**
 * Crash test (issue 8, "Done when"): runs the real local server, drives a mixed
 * workload from several concurrent clients, SIGKILLs the server at a random moment,
 * restarts it on the same data directory and checks the five invariants of
 * invariants.ts; several cycles. Exits 1 on any violation, so `npm test` fails.
 *
 *   npm run test:crash                      random seed (printed)
 *   CRASH_SEED=1234 npm run test:crash      replay the same choices and kill times
 *   CRASH_CYCLES=8 npm run test:crash       more cycles (the time budget still applies)
 *
 * Concurrency makes a replay similar, not identical: the seed fixes what each client
 * asks for and when the kill comes, not how the server interleaves the requests.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INVARIANTS, type InvariantId, type Violation } from './invariants';
import { FINAL_SETTLE_MS, repeatedAcknowledgements, settleNotifications, watchNotifications } from './notifications';
import { Rng } from './rng';
import { startCrashServer, type CrashServer } from './server';
import { SETTLE_MS, settle } from './settle';
import { growPool, setUp, warmUp } from './setup';
import { StoreReader } from './store-snapshot';
import { Journal, runClients, type Op, type WorkloadState } from './workload';

const SEED = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : Math.floor(Math.random() * 2 ** 31);
const CYCLES = Number(process.env.CRASH_CYCLES ?? 5);
/**
 * Control run, to check the checker: SIGTERM (graceful stop) instead of SIGKILL, and no two
 * clients write the same disposition at once. Every invariant must then hold even on code
 * with crash defects; a violation here is a fault of the harness or a non-crash defect.
 */
const CONTROL = process.env.CRASH_CONTROL === '1';
/** No new cycle starts after this much time; a passing run takes ~40 s on two free cores. */
const BUDGET_MS = 60_000;
const MIN_CYCLES = 3;
/** Hard stop: the run fails rather than hold CI. */
const HARD_LIMIT_MS = 300_000;
/** Kill once this many requests of the cycle were acknowledged (inclusive range), then after up to KILL_DELAY_MS more. */
const KILL_AFTER_ACKS = [2, 30] as const;
const KILL_DELAY_MS = 1500;
/** The kill comes by then whatever the count. */
const CYCLE_LIMIT_MS = 6_000;
const START_TIMEOUT_MS = 60_000;

const started = Date.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const print = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const base = mkdtempSync(join(tmpdir(), 'vexdesk-crash-'));
const dataDir = join(base, 'data');
const rng = new Rng(SEED);
const journal = new Journal();
const serverEnv = {
  DISCLOSURE_SIGNING_KEY: 'vexdesk-crash-test-signing-key',
  LOG_LEVEL: 'WARN',
  // The notification invariant's receiver is on loopback; failed attempts retry within the settle time.
  VEXDESK_ALLOW_LOOPBACK_WEBHOOKS: '1',
  VEXDESK_NOTIFY_RETRY_BASE_MS: '200',
};
let server: CrashServer | undefined;
let starts = 0;

const watchdog = setTimeout(() => {
  print(
    `FAIL: the crash test exceeded its hard limit of ${seconds(HARD_LIMIT_MS)} (seed ${SEED}; data and logs kept in ${base})`,
  );
  void (server?.kill() ?? Promise.resolve()).finally(() => process.exit(1));
}, HARD_LIMIT_MS);
watchdog.unref();

async function start(): Promise<CrashServer> {
  starts += 1;
  server = await startCrashServer(dataDir, join(base, `server-${starts}.log`), serverEnv, START_TIMEOUT_MS);
  return server;
}

function describeOp(op: Op): string {
  switch (op.kind) {
    case 'batch':
      return `batch ${op.token} (${op.vulnerabilityIds.length} ids)`;
    case 'upsert':
    case 'update':
      return `${op.kind} ${op.token}`;
    case 'upload':
      return `upload ${op.client}#${op.seq} (${op.fixture.replace(/\.json$/, '')})`;
    case 'vex':
      return `vex ${op.step} ${op.client}#${op.seq}`;
    default:
      return `${op.kind} ${op.client}#${op.seq}`;
  }
}

async function main(): Promise<number> {
  print(
    `crash test${CONTROL ? ' (control run: graceful stops, no contending writes)' : ''}: seed ${SEED} (repeat with CRASH_SEED=${SEED}), up to ${CYCLES} cycles, data in ${base}`,
  );
  let current = await start();
  const { teamId, apiKey } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
    teamId: string;
    apiKey: string;
  };
  const state: WorkloadState = { baseUrl: current.baseUrl, apiKey, releases: [], pool: [], dispositionIds: new Map() };
  const expectedFindings = new Map<string, number>();
  const setupSboms = await setUp(journal, state);
  const pooled = new Set(setupSboms);
  const notify = await watchNotifications(state);
  print(
    `setup: ${setupSboms.length} SBOMs scanned, ${state.pool.length} findings in the pool, a webhook receiver subscribed to every event (${seconds(Date.now() - started)})`,
  );

  const failedIn = new Map<InvariantId, number[]>();
  const reported = new Set<string>();
  let cycles = 0;
  for (let cycle = 1; cycle <= CYCLES; cycle += 1) {
    if (Date.now() - started > BUDGET_MS && cycles >= MIN_CYCLES) {
      print(`time budget of ${seconds(BUDGET_MS)} used: stopping after ${cycles} cycles`);
      break;
    }
    journal.cycle = cycle;
    const first = journal.ops.length;
    // The kill comes after a random number of acknowledged requests plus a random delay: counted in
    // answers rather than seconds, it lands in the same stretch of work on an idle or a loaded machine.
    const killAfterAcks = KILL_AFTER_ACKS[0] + rng.int(KILL_AFTER_ACKS[1] - KILL_AFTER_ACKS[0] + 1);
    const killDelay = rng.int(KILL_DELAY_MS);
    await warmUp(state, setupSboms[0]!);
    let stopped = false;
    const clientsBegin = Date.now();
    const clients = runClients(journal, state, rng, () => stopped, CONTROL);
    const acked = () => journal.ops.slice(first).filter((op) => op.outcome === 'acked').length;
    while (acked() < killAfterAcks && Date.now() - clientsBegin < CYCLE_LIMIT_MS) await sleep(10);
    await sleep(killDelay);
    const workMs = Date.now() - clientsBegin;
    const ackedAtKill = acked();
    stopped = true;
    const inFlight = journal.pending();
    const killedAt = Date.now();
    await (CONTROL ? current.stop() : current.kill());
    await clients;
    // A client may send one more request between the kill and noticing `stopped`; it never reached the server.
    const ops = journal.ops.slice(first).filter((op) => op.startedAt < killedAt);
    const count = (outcome: Op['outcome']) => ops.filter((op) => op.outcome === outcome).length;
    print();
    print(
      `cycle ${cycle}: ${CONTROL ? 'SIGTERM' : 'SIGKILL'} ${seconds(workMs)} into the workload (${ackedAtKill} answers acknowledged, target ${killAfterAcks}, + ${killDelay} ms); ${ops.length} requests: ${count('acked')} acked, ${count('rejected')} rejected (4xx), ${count('indeterminate')} 5xx, ${count('cut')} cut off`,
    );
    const reasons = new Map<string, number>();
    for (const op of ops.filter((entry) => entry.outcome === 'rejected' || entry.outcome === 'indeterminate')) {
      const code = /"code":"([^"]+)"/.exec(op.answer ?? '')?.[1] ?? '';
      const reason = `${op.kind} ${String(op.status)}${code ? ` ${code}` : ''}`;
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    if (reasons.size)
      print(`  answers other than 2xx: ${[...reasons].map(([reason, times]) => `${reason} ×${times}`).join(', ')}`);
    print(`  in flight at the kill: ${inFlight.length ? inFlight.map(describeOp).join(', ') : 'nothing'}`);

    const restartBegin = Date.now();
    let readyMs: number;
    try {
      current = await start();
      readyMs = Date.now() - restartBegin;
    } catch (error) {
      print(`  FAIL 1 ${INVARIANTS[1]}: the server did not restart: ${(error as Error).message}`);
      failedIn.set(1, [...(failedIn.get(1) ?? []), cycle]);
      cycles = cycle;
      break;
    }
    state.baseUrl = current.baseUrl;
    const reader = await StoreReader.open(dataDir);
    try {
      const { result, settledMs } = await settle(journal, reader, teamId, expectedFindings, state);
      const notified = await settleNotifications(notify, state, { final: false, withinMs: SETTLE_MS });
      result.violations.push(...notified.violations);
      const { checked } = result;
      print(
        `  restarted, ready in ${seconds(readyMs)}; checked ${checked.dispositions} dispositions, ${checked.writes} single writes, ${checked.batches} batches, ${checked.sboms} SBOMs, ${checked.objects} objects, ${checked.vex ?? 0} VEX documents, ${notified.events} events' deliveries; ${settledMs === undefined ? `violations remain after ${seconds(SETTLE_MS)}` : `all held after ${seconds(settledMs)}`}`,
      );
      for (const id of Object.keys(INVARIANTS).map(Number) as InvariantId[]) {
        const found = result.violations.filter((violation) => violation.invariant === id);
        if (found.length === 0) {
          print(`  ok   ${id} ${INVARIANTS[id]}`);
          continue;
        }
        failedIn.set(id, [...(failedIn.get(id) ?? []), cycle]);
        const fresh = found.filter((violation) => !reported.has(violation.key));
        print(
          `  FAIL ${id} ${INVARIANTS[id]}: ${found.length} violation${found.length > 1 ? 's' : ''}${found.length > fresh.length ? ` (${found.length - fresh.length} already reported)` : ''}`,
        );
        for (const violation of fresh.slice(0, 6)) print(`         ${violation.message}`);
        if (fresh.length > 6) print(`         … and ${fresh.length - 6} more`);
        fresh.forEach((violation: Violation) => reported.add(violation.key));
        appendFileSync(
          join(base, 'violations.txt'),
          fresh.map((violation) => `cycle ${cycle} invariant ${id}: ${violation.message}\n`).join(''),
        );
      }
      await growPool(state, reader, teamId, pooled);
    } finally {
      reader.close();
    }
    cycles = cycle;
  }

  // Every event since the subscription reaches the receiver, claimed attempts of a killed server included (their lease ends).
  const final = await settleNotifications(notify, state, { final: true, withinMs: FINAL_SETTLE_MS });
  print();
  print(
    `notifications: ${final.events} events, ${notify.acknowledged.size} idempotency keys acknowledged by the receiver (${repeatedAcknowledgements(notify)} of them twice: re-sent after a kill between the answer and its record)${final.settledMs === undefined ? '' : `, all delivered ${seconds(final.settledMs)} after the last check began`}`,
  );
  if (final.violations.length > 0) {
    failedIn.set(6, [...(failedIn.get(6) ?? []), cycles + 1]);
    print(`  FAIL 6 ${INVARIANTS[6]} after ${seconds(FINAL_SETTLE_MS)} with the last server running:`);
    for (const violation of final.violations.slice(0, 6)) print(`         ${violation.message}`);
    appendFileSync(
      join(base, 'violations.txt'),
      final.violations.map((violation) => `end invariant 6: ${violation.message}\n`).join(''),
    );
  }
  await notify.close();
  await current.stop();
  print();
  const elapsed = Date.now() - started;
  if (failedIn.size === 0 && cycles >= MIN_CYCLES) {
    print(
      `crash test passed: ${cycles} ${CONTROL ? 'stops' : 'kills'}, ${journal.ops.length} requests, every invariant held after each restart (${seconds(elapsed)}, seed ${SEED})`,
    );
    rmSync(base, { recursive: true, force: true });
    return 0;
  }
  writeFileSync(join(base, 'journal.json'), JSON.stringify(journal.ops, null, 1));
  if (cycles < MIN_CYCLES) print(`crash test FAILED: only ${cycles} of at least ${MIN_CYCLES} cycles ran`);
  for (const [id, list] of [...failedIn].sort(([a], [b]) => a - b))
    print(
      `crash test FAILED: invariant ${id} (${INVARIANTS[id]}) broken after kill${list.length > 1 ? 's' : ''} ${list.join(', ')}`,
    );
  print(
    `seed ${SEED}, ${seconds(elapsed)}; data, server logs, every violation (violations.txt) and the request journal (journal.json) kept in ${base}`,
  );
  return 1;
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    print(`crash test FAILED: ${(error as Error).stack ?? String(error)}`);
    print(`seed ${SEED}; data and server logs kept in ${base}`);
    await server?.kill().catch(() => undefined);
    process.exit(1);
  },
);
