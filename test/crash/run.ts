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
import { INVARIANTS, checkInvariants, type CheckResult, type InvariantId, type Violation } from './invariants';
import { Rng } from './rng';
import { startCrashServer, type CrashServer } from './server';
import { StoreReader, type Snapshot } from './store-snapshot';
import {
  FIXTURES,
  fixtureContent,
  Journal,
  runClients,
  type Op,
  type ProductOp,
  type ReleaseOp,
  type UploadOp,
  type VexOp,
  type WorkloadState,
  VEX_STEPS,
} from './workload';

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
/** After a restart, recovery (batch roll-forward, resumed scans, sweeps) gets this long before a violation counts. */
const SETTLE_MS = 8_000;
const START_TIMEOUT_MS = 60_000;
const POOL_LIMIT = 1_200;

const started = Date.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const print = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const base = mkdtempSync(join(tmpdir(), 'vexdesk-crash-'));
const dataDir = join(base, 'data');
const rng = new Rng(SEED);
const journal = new Journal();
const serverEnv = { DISCLOSURE_SIGNING_KEY: 'vexdesk-crash-test-signing-key', LOG_LEVEL: 'WARN' };
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

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reads arbitrary JSON answers
async function api(baseUrl: string, apiKey: string, path: string): Promise<{ status: number; data: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    headers: { Authorization: `Bearer ${apiKey}` },
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json()) as { data?: unknown };
  return { status: response.status, data: body.data };
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

/** Setup before the first kill: a release with scanned SBOMs whose findings the disposition writers use. */
async function setUp(state: WorkloadState): Promise<string[]> {
  const { baseUrl, apiKey } = state;
  const product = await journal.send<ProductOp>(
    { kind: 'product', client: 'setup' },
    baseUrl,
    apiKey,
    'POST',
    '/api/products',
    { name: 'Crash setup', slug: 'crash-setup' },
  );
  if (product.op.outcome !== 'acked' || !product.data)
    throw new Error(`setup: product → ${String(product.op.status)} ${String(product.op.answer)}`);
  const productId = String(product.data.id);
  product.op.productId = productId;
  const release = await journal.send<ReleaseOp>(
    { kind: 'release', client: 'setup', productId },
    baseUrl,
    apiKey,
    'POST',
    `/api/products/${productId}/releases`,
    { version: '1.0.0' },
  );
  if (release.op.outcome !== 'acked' || !release.data)
    throw new Error(`setup: release → ${String(release.op.status)} ${String(release.op.answer)}`);
  const releaseId = String(release.data.id);
  release.op.releaseId = releaseId;
  state.releases.push(releaseId);
  const sbomIds: string[] = [];
  for (const fixture of [FIXTURES[0], FIXTURES[0], FIXTURES[1]]) {
    const upload = await journal.send<UploadOp>(
      { kind: 'upload', client: 'setup', releaseId, fixture },
      baseUrl,
      apiKey,
      'POST',
      '/api/sboms/upload',
      { releaseId, content: fixtureContent(fixture), fileName: fixture },
    );
    if (upload.op.outcome !== 'acked' || !upload.data)
      throw new Error(`setup: upload ${fixture} → ${String(upload.op.status)} ${String(upload.op.answer)}`);
    upload.op.sbomId = String(upload.data.id);
    sbomIds.push(upload.op.sbomId);
  }
  const deadline = Date.now() + 60_000;
  for (const sbomId of sbomIds) {
    for (;;) {
      const sbom = await api(baseUrl, apiKey, `/api/sboms/${sbomId}`);
      if (sbom.data?.scan?.status === 'completed') break;
      if (Date.now() > deadline)
        throw new Error(`setup: SBOM ${sbomId} not scanned within 60 s: ${JSON.stringify(sbom.data?.scan)}`);
      await sleep(100);
    }
    const vulnerabilities = await api(baseUrl, apiKey, `/api/sboms/${sbomId}/vulnerabilities`);
    state.pool.push(...(vulnerabilities.data as { id: string }[]).map((entry) => entry.id));
  }
  return sbomIds;
}

/** One request per handler group the workload uses, so the first requests of a cycle do not wait for module loading. */
async function warmUp(state: WorkloadState, sbomId: string): Promise<void> {
  const { baseUrl, apiKey } = state;
  await Promise.all([
    api(baseUrl, apiKey, '/api/products'),
    api(baseUrl, apiKey, `/api/releases/${state.releases[0]!}`),
    api(baseUrl, apiKey, `/api/sboms/${sbomId}`),
    api(baseUrl, apiKey, '/api/dispositions/00000000-0000-4000-8000-000000000000'),
  ]);
}

/** Adds the findings of SBOMs scanned since, so later batches also span releases created under load. */
async function growPool(state: WorkloadState, reader: StoreReader, teamId: string, pooled: Set<string>): Promise<void> {
  const snapshot = await reader.snapshot(teamId);
  for (const sbom of snapshot.sboms.values()) {
    if (state.pool.length >= POOL_LIMIT) return;
    if (pooled.has(sbom.id) || sbom.scanStatus !== 'completed') continue;
    pooled.add(sbom.id);
    const vulnerabilities = await api(state.baseUrl, state.apiKey, `/api/sboms/${sbom.id}/vulnerabilities`);
    if (vulnerabilities.status === 200)
      state.pool.push(
        ...(vulnerabilities.data as { id: string }[]).map((entry) => entry.id).slice(0, POOL_LIMIT - state.pool.length),
      );
  }
}

/**
 * What each fixture yields with the sample corpus, taken from its first completed
 * scan whose findings are all stored; every later scan of that fixture must agree.
 */
function learnExpectedFindings(snapshot: Snapshot, expectedFindings: Map<string, number>): void {
  for (const op of journal.ops) {
    if (op.kind !== 'upload' || !op.sbomId || expectedFindings.has(op.fixture)) continue;
    const sbom = snapshot.sboms.get(op.sbomId);
    if (sbom?.scanStatus === 'completed' && snapshot.findingsBySbom.get(sbom.id) === sbom.findingCount)
      expectedFindings.set(op.fixture, sbom.findingCount);
  }
}

/** Checks until every invariant holds or the settle time is over; returns the last result. */
async function settle(
  reader: StoreReader,
  teamId: string,
  expectedFindings: Map<string, number>,
  state: WorkloadState,
): Promise<{ result: CheckResult; settledMs: number | undefined }> {
  const begin = Date.now();
  for (;;) {
    const snapshot = await reader.snapshot(teamId);
    learnExpectedFindings(snapshot, expectedFindings);
    const result = checkInvariants({ teamId, ops: journal.ops, snapshot, expectedFindings });
    // The client's view of each acknowledged upload, through the API: scanned.
    const uploads = journal.ops.filter(
      (op): op is UploadOp =>
        op.kind === 'upload' &&
        op.sbomId !== undefined &&
        !result.violations.some(
          (violation) => violation.key === `scan:${op.sbomId}` || violation.key === `sbom:${op.sbomId}`,
        ),
    );
    await Promise.all(
      uploads.map(async (op) => {
        const sbom = await api(state.baseUrl, state.apiKey, `/api/sboms/${op.sbomId!}`);
        if (sbom.status !== 200 || sbom.data?.scan?.status !== 'completed') {
          result.violations.push({
            invariant: 5,
            key: `api-scan:${op.sbomId!}`,
            message: `GET /api/sboms/${op.sbomId!.slice(0, 8)} → ${sbom.status}, scan ${String(sbom.data?.scan?.status)}`,
          });
        }
      }),
    );
    // Each acknowledged VEX step is still in effect: the document exists at that step or later; a publication verifies.
    const vexSteps = journal.ops.filter(
      (op): op is VexOp => op.kind === 'vex' && op.outcome === 'acked' && op.vexId !== undefined,
    );
    const latest = new Map<string, VexOp>();
    for (const op of vexSteps)
      if (VEX_STEPS.indexOf(op.step) >= VEX_STEPS.indexOf(latest.get(op.vexId!)?.step ?? 'create'))
        latest.set(op.vexId!, op);
    await Promise.all(
      [...latest.values()].map(async (op) => {
        const document = await api(state.baseUrl, state.apiKey, `/api/vex/${op.vexId!}`);
        const status = String(document.data?.workflow_status);
        const reached = ['draft', 'submitted', 'approved', 'published'].indexOf(status);
        if (document.status !== 200 || reached < VEX_STEPS.indexOf(op.step)) {
          result.violations.push({
            invariant: 1,
            key: `vex:${op.vexId!}:${op.step}:${status}`,
            message: `VEX ${op.vexId!.slice(0, 8)}: ${op.step} answered ${String(op.status)}, GET /api/vex/{id} → ${document.status}, status ${status}`,
          });
        }
        if (op.step === 'publish' && op.slug) {
          const verify = await fetch(`${state.baseUrl}/api/disclosures/${op.slug}/verify`, {
            signal: AbortSignal.timeout(30_000),
          });
          const body = (await verify.json()) as { content_hash_valid?: unknown; signature_valid?: unknown };
          if (verify.status !== 200 || body.content_hash_valid !== true || body.signature_valid !== true) {
            result.violations.push({
              invariant: 1,
              key: `disclosure:${op.slug}`,
              message: `disclosure ${op.slug} (publish answered 200): verify → ${verify.status} ${JSON.stringify(body).slice(0, 120)}`,
            });
          }
        }
      }),
    );
    result.checked.vex = latest.size;
    if (result.violations.length === 0) return { result, settledMs: Date.now() - begin };
    if (Date.now() - begin > SETTLE_MS) return { result, settledMs: undefined };
    await sleep(500);
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
  const setupSboms = await setUp(state);
  const pooled = new Set(setupSboms);
  print(
    `setup: ${setupSboms.length} SBOMs scanned, ${state.pool.length} findings in the pool (${seconds(Date.now() - started)})`,
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
      const { result, settledMs } = await settle(reader, teamId, expectedFindings, state);
      const { checked } = result;
      print(
        `  restarted, ready in ${seconds(readyMs)}; checked ${checked.dispositions} dispositions, ${checked.writes} single writes, ${checked.batches} batches, ${checked.sboms} SBOMs, ${checked.objects} objects, ${checked.vex ?? 0} VEX documents; ${settledMs === undefined ? `violations remain after ${seconds(SETTLE_MS)}` : `all held after ${seconds(settledMs)}`}`,
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
