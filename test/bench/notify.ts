/**
 * The notification bench (`npm run bench -- notify`; docs/notifications.md "Performance"), against `npm start`'s
 * dispatcher with its defaults:
 * 1. Fan-out burst (the headline figure): NOTIFY_BENCH_EVENTS (10,000) events written into the team's stream as
 *    fast as the table takes them (with their outbox entries, as every change writes them), three webhook channels
 *    on a loopback receiver, one rule each. Prints the time from the first write until the last of the 30,000
 *    deliveries arrived, and event-to-delivery latency p50/p99.
 * 2. Paced fan-out: NOTIFY_BENCH_PACED_EVENTS (10,000) events written at a steady rate over NOTIFY_BENCH_PACED_S
 *    (20) seconds to three fresh channels: the latency of a steady load rather than of a backlog.
 * 3. Outage: NOTIFY_BENCH_OUTAGE_EVENTS (1,000) events to a fourth channel whose receiver answers 500 for
 *    NOTIFY_BENCH_OUTAGE_S seconds (default 30 for a quick run; the issue's figure is 120), then 200. Every
 *    event must be acknowledged exactly once per idempotency key (`webhook-id`), and the channel stay enabled.
 * Retries back off from NOTIFY_BENCH_RETRY_BASE_MS (default 5,000; the service's default is 30,000, which only
 * stretches the wait after the outage). Every first delivery's signature is checked with the `standardwebhooks`
 * package after its phase's timing (the receiver shares the machine: it only keeps what arrived while timed).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { startServerProcess } from '../support/server-process';
import { benchApi } from './scan';
import { percentile } from './stats';

const EVENTS = Number(process.env.NOTIFY_BENCH_EVENTS ?? 10_000);
const PACED_EVENTS = Number(process.env.NOTIFY_BENCH_PACED_EVENTS ?? 10_000);
const PACED_S = Number(process.env.NOTIFY_BENCH_PACED_S ?? 20);
const OUTAGE_EVENTS = Number(process.env.NOTIFY_BENCH_OUTAGE_EVENTS ?? 1_000);
const OUTAGE_S = Number(process.env.NOTIFY_BENCH_OUTAGE_S ?? 30);
const RETRY_BASE_MS = process.env.NOTIFY_BENCH_RETRY_BASE_MS ?? '5000';
const CHANNELS = 3;
const TARGET_DELIVERED_S = 30;
const TARGET_P99_S = 5;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A first acknowledgement, kept as it came: its latency and signature are worked out after the timing. */
interface Arrival {
  at: number;
  path: string;
  headers: Record<string, string>;
  body: string;
}

interface Receiver {
  url: string;
  /** `${path} ${webhook-id}` → how many 2xx answers it got. */
  acknowledged: Map<string, number>;
  arrivals: Arrival[];
  failedAnswers: number;
  lastAt: number;
  close(): Promise<void>;
}

/** Answers 200, or 500 while `failing()`; keeps each first acknowledgement, checks nothing while timed. */
async function startReceiver(failing: () => boolean = () => false): Promise<Receiver> {
  const receiver: Omit<Receiver, 'url' | 'close'> = {
    acknowledged: new Map(),
    arrivals: [],
    failedAnswers: 0,
    lastAt: 0,
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (failing()) {
        receiver.failedAnswers += 1;
        response.writeHead(500).end('down');
        return;
      }
      const id = String(request.headers['webhook-id']);
      const key = `${request.url ?? ''} ${id}`;
      const times = (receiver.acknowledged.get(key) ?? 0) + 1;
      receiver.acknowledged.set(key, times);
      receiver.lastAt = Date.now();
      if (times === 1)
        receiver.arrivals.push({
          at: receiver.lastAt,
          path: request.url ?? '',
          headers: {
            'webhook-id': id,
            'webhook-timestamp': String(request.headers['webhook-timestamp']),
            'webhook-signature': String(request.headers['webhook-signature']),
          },
          body: Buffer.concat(chunks).toString('utf8'),
        });
      response.writeHead(200).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The same object the handler counts into: its numbers must stay live.
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/**
 * After the timing: each first acknowledgement's event-to-delivery latency (the event's write time is in its
 * body, `data.occurred_at`), and how many signatures the `standardwebhooks` package refused under the secret of
 * the channel whose path the delivery came to.
 */
function checkArrivals(
  arrivals: Arrival[],
  secrets: Map<string, string>,
): { latencies: number[]; badSignatures: number } {
  const verifiers = new Map([...secrets].map(([path, secret]) => [path, new Webhook(secret)]));
  const latencies: number[] = [];
  let badSignatures = 0;
  for (const arrival of arrivals) {
    try {
      // Timestamps of the past (a retry after an outage) are within the package's tolerance: checked as sent.
      const body = verifiers.get(arrival.path)!.verify(arrival.body, arrival.headers) as {
        data: { occurred_at: string };
      };
      latencies.push(arrival.at - Date.parse(body.data.occurred_at));
    } catch {
      badSignatures += 1;
    }
  }
  return { latencies, badSignatures };
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-notify-'));
  const server = await startServerProcess(dataDir, {
    VEXDESK_ALLOW_LOOPBACK_WEBHOOKS: '1',
    VEXDESK_NOTIFY_RETRY_BASE_MS: RETRY_BASE_MS,
    TEAM_RATE_LIMIT: '10000',
    TEAM_BURST_LIMIT: '5000',
    LOG_LEVEL: 'WARN',
  });
  const lines: string[] = [];
  try {
    const engines = await findRunningEngines(dataDir);
    if (!engines) throw new Error(`no embedded engines running on ${dataDir}`);
    applyLocalEnvironment(engines);
    const { batchWrite } = await import('../../shared/service/data/table-client');
    const { eventId, eventItem } = await import('../../shared/service/events/event-store');
    const { teamId } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { teamId: string };
    const { call } = benchApi(server.baseUrl, dataDir);
    /** A webhook channel with a rule for every event; answers its id and its signing secret. */
    const subscribe = async (url: string, name: string) => {
      const channel = await call('POST', '/api/notification-channels', { type: 'webhook', name, url });
      await call('POST', '/api/notification-rules', { name, channelId: channel.id });
      return { id: String(channel.id), secret: String(channel.secret) };
    };
    /**
     * Events as the stream writes them (each with its outbox entry), 25 per batch, 8 batches in flight; with
     * `overMs`, batch k is not written before k × overMs / batches after the start (a steady rate).
     */
    const writeEvents = async (count: number, overMs = 0): Promise<string[]> => {
      const items = Array.from({ length: count }, () => {
        const id = eventId(randomUUID(), 'bench');
        return { id, productId: randomUUID(), releaseId: randomUUID() };
      });
      const batches: (typeof items)[] = [];
      for (let index = 0; index < items.length; index += 25) batches.push(items.slice(index, index + 25));
      const start = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < batches.length) {
            const index = next++;
            const batch = batches[index]!;
            const due = start + (index * overMs) / batches.length;
            if (due > Date.now()) await sleep(due - Date.now());
            const at = new Date().toISOString();
            await batchWrite(
              batch.map((event) =>
                eventItem({
                  id: event.id,
                  type: 'finding.detected',
                  occurredAt: at,
                  teamId,
                  productId: event.productId,
                  releaseId: event.releaseId,
                  findingId: randomUUID(),
                  data: { cve_id: 'CVE-2026-0001', severity: 'high', is_kev: false },
                }),
              ),
            );
          }
        }),
      );
      return items.map((item) => item.id);
    };

    /** Events to CHANNELS fresh channels on one receiver; waits for every delivery, then checks them all. */
    const fanOutPhase = async (label: string, count: number, overMs: number) => {
      const receiver = await startReceiver();
      const secrets = new Map<string, string>();
      const channelIds: string[] = [];
      for (let index = 0; index < CHANNELS; index += 1) {
        const path = `/${label}-${index}`;
        const channel = await subscribe(`${receiver.url}${path}`, `bench ${label} ${index}`);
        secrets.set(path, channel.secret);
        channelIds.push(channel.id);
      }
      const begin = Date.now();
      const ids = await writeEvents(count, overMs);
      const written = Date.now() - begin;
      const expected = count * CHANNELS;
      const deadline = Date.now() + 10 * 60_000;
      let lastReport = Date.now();
      while (receiver.acknowledged.size < expected && Date.now() < deadline) {
        await sleep(100);
        if (Date.now() - lastReport > 5000) {
          process.stderr.write(`  ${label}: ${receiver.acknowledged.size} / ${expected} delivered\n`);
          lastReport = Date.now();
        }
      }
      const deliveredMs = receiver.lastAt - begin;
      for (const channelId of channelIds)
        await call('PUT', `/api/notification-channels/${channelId}`, { enabled: false });
      await receiver.close();
      const doubled = [...receiver.acknowledged.values()].filter((times) => times > 1).length;
      const missing = ids.length * CHANNELS - receiver.acknowledged.size;
      const { latencies, badSignatures } = checkArrivals(receiver.arrivals, secrets);
      return {
        written,
        expected,
        delivered: receiver.acknowledged.size,
        deliveredMs,
        doubled,
        missing,
        latencies,
        badSignatures,
      };
    };

    // 1. Fan-out burst: the headline figure.
    const burst = await fanOutPhase('burst', EVENTS, 0);
    lines.push(
      `Notification bench (embedded engines, npm start's dispatcher): ${EVENTS.toLocaleString('en')} events × ${CHANNELS} webhook channels on one loopback receiver`,
      `  burst: events written in ${seconds(burst.written)} s; ${burst.delivered.toLocaleString('en')} of ${burst.expected.toLocaleString('en')} deliveries, ${burst.missing} missing, ${burst.doubled} acknowledged twice, ${burst.badSignatures} signatures refused`,
      `  all delivered ${(burst.deliveredMs / 1000).toFixed(1)} s after the first write (target ≤ ${TARGET_DELIVERED_S} s)`,
      `  event-to-delivery latency p50 ${seconds(percentile(burst.latencies, 50))} s, p99 ${seconds(percentile(burst.latencies, 99))} s (target p99 ≤ ${TARGET_P99_S} s)`,
    );
    let failures = burst.missing + burst.doubled + burst.badSignatures;

    // 2. The same fan-out at a steady rate.
    if (PACED_EVENTS > 0) {
      const paced = await fanOutPhase('paced', PACED_EVENTS, PACED_S * 1000);
      lines.push(
        `  paced (no target; the target is the burst's): ${PACED_EVENTS.toLocaleString('en')} events × ${CHANNELS} written at a steady ${Math.round(PACED_EVENTS / PACED_S).toLocaleString('en')}/s over ${seconds(paced.written)} s; ` +
          `${paced.missing} missing, ${paced.doubled} twice, ${paced.badSignatures} signatures refused; ` +
          `latency p50 ${seconds(percentile(paced.latencies, 50))} s, p99 ${seconds(percentile(paced.latencies, 99))} s, max ${seconds(Math.max(...paced.latencies))} s`,
      );
      failures += paced.missing + paced.doubled + paced.badSignatures;
    }

    // 3. Outage, then recovery.
    if (OUTAGE_EVENTS > 0) {
      let failingUntil = 0;
      let lastReport = Date.now();
      const outage = await startReceiver(() => Date.now() < failingUntil);
      const outageChannel = await subscribe(`${outage.url}/outage`, 'bench outage');
      failingUntil = Date.now() + OUTAGE_S * 1000;
      const outageBegin = Date.now();
      const outageIds = await writeEvents(OUTAGE_EVENTS);
      const outageDeadline = failingUntil + 10 * 60_000;
      while (outage.acknowledged.size < OUTAGE_EVENTS && Date.now() < outageDeadline) {
        await sleep(500);
        if (Date.now() - lastReport > 10_000) {
          process.stderr.write(
            `  outage: ${outage.acknowledged.size} / ${OUTAGE_EVENTS} acknowledged, ${outage.failedAnswers} answered 500\n`,
          );
          lastReport = Date.now();
        }
      }
      const outageAcked = new Set([...outage.acknowledged.keys()].map((key) => key.split(' ')[1]));
      const lost = outageIds.filter((id) => !outageAcked.has(id)).length;
      const twice = [...outage.acknowledged.values()].filter((times) => times > 1).length;
      const { badSignatures } = checkArrivals(outage.arrivals, new Map([['/outage', outageChannel.secret]]));
      const channel = await call('GET', `/api/notification-channels/${outageChannel.id}`);
      lines.push(
        `  outage: receiver answered 500 for ${OUTAGE_S} s (${outage.failedAnswers.toLocaleString('en')} attempts refused) to ${OUTAGE_EVENTS.toLocaleString('en')} events, then 200: ` +
          `${outageAcked.size.toLocaleString('en')} acknowledged, ${lost} never, ${twice} twice, ${badSignatures} signatures refused; all in ${((outage.lastAt - outageBegin) / 1000).toFixed(1)} s ` +
          `(${((outage.lastAt - failingUntil) / 1000).toFixed(1)} s after recovery, retry base ${RETRY_BASE_MS} ms); channel ${channel.enabled === true ? 'still enabled' : `disabled (${String(channel.disabledReason)})`}, consecutiveFailures ${String(channel.consecutiveFailures)}`,
      );
      await outage.close();
      failures += lost + twice + badSignatures;
    }
    lines.push(
      `  exactly once per acknowledged idempotency key, every signature valid: ${failures === 0 ? 'yes' : 'NO'}`,
    );
    if (failures > 0) process.exitCode = 1;
  } finally {
    await server.stop();
  }
  console.log(lines.join('\n'));
}

await main();
