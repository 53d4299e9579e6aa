/**
 * The notification bench (`npm run bench -- notify`; docs/notifications.md "Performance"), against `npm start`'s
 * dispatcher with its defaults:
 * 1. Fan-out: NOTIFY_BENCH_EVENTS (10,000) events written into the team's stream (with their outbox entries, as
 *    every change writes them), three webhook channels on a loopback receiver, one rule each. Prints the time from
 *    the first write until the last of the 30,000 deliveries arrived, and event-to-delivery latency p50/p99.
 * 2. Outage: NOTIFY_BENCH_OUTAGE_EVENTS (1,000) events to a fourth channel whose receiver answers 500 for
 *    NOTIFY_BENCH_OUTAGE_S seconds (default 30 for a quick run; the issue's figure is 120), then 200. Every
 *    event must be acknowledged exactly once per idempotency key (`webhook-id`), and the channel stay enabled.
 * Retries back off from NOTIFY_BENCH_RETRY_BASE_MS (default 5,000; the service's default is 30,000, which only
 * stretches the wait after the outage).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRunningEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { startServerProcess } from '../support/server-process';
import { benchApi } from './scan';
import { percentile } from './stats';

const EVENTS = Number(process.env.NOTIFY_BENCH_EVENTS ?? 10_000);
const OUTAGE_EVENTS = Number(process.env.NOTIFY_BENCH_OUTAGE_EVENTS ?? 1_000);
const OUTAGE_S = Number(process.env.NOTIFY_BENCH_OUTAGE_S ?? 30);
const RETRY_BASE_MS = process.env.NOTIFY_BENCH_RETRY_BASE_MS ?? '5000';
const CHANNELS = 3;
const TARGET_DELIVERED_S = 30;
const TARGET_P99_S = 5;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

interface Receiver {
  url: string;
  /** `${path} ${webhook-id}` → how many 2xx answers it got. */
  acknowledged: Map<string, number>;
  /** Event-to-delivery latency of each first acknowledgement, ms. */
  latencies: number[];
  failedAnswers: number;
  lastAt: number;
  close(): Promise<void>;
}

/** Answers 200, or 500 while `failing()`; the event's write time comes in its body (`data.occurred_at`). */
async function startReceiver(failing: () => boolean = () => false): Promise<Receiver> {
  const receiver: Omit<Receiver, 'url' | 'close'> = {
    acknowledged: new Map(),
    latencies: [],
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
      const key = `${request.url ?? ''} ${String(request.headers['webhook-id'])}`;
      const times = (receiver.acknowledged.get(key) ?? 0) + 1;
      receiver.acknowledged.set(key, times);
      if (times === 1) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { occurred_at: string } };
        receiver.latencies.push(Date.now() - Date.parse(body.data.occurred_at));
      }
      receiver.lastAt = Date.now();
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
    const subscribe = async (url: string, name: string) => {
      const channel = await call('POST', '/api/notification-channels', { type: 'webhook', name, url });
      await call('POST', '/api/notification-rules', { name, channelId: channel.id });
      return String(channel.id);
    };
    /** Events as the stream writes them (each with its outbox entry), 25 per batch, 8 batches in flight. */
    const writeEvents = async (count: number): Promise<string[]> => {
      const items = Array.from({ length: count }, () => {
        const id = eventId(randomUUID(), 'bench');
        return { id, productId: randomUUID(), releaseId: randomUUID() };
      });
      const batches: (typeof items)[] = [];
      for (let index = 0; index < items.length; index += 25) batches.push(items.slice(index, index + 25));
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < batches.length) {
            const batch = batches[next++]!;
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

    // 1. Fan-out.
    const fanOut = await startReceiver();
    const fanOutChannels: string[] = [];
    for (let index = 0; index < CHANNELS; index += 1)
      fanOutChannels.push(await subscribe(`${fanOut.url}/channel-${index}`, `bench ${index}`));
    const begin = Date.now();
    const ids = await writeEvents(EVENTS);
    const written = Date.now() - begin;
    const expected = EVENTS * CHANNELS;
    const deadline = Date.now() + 10 * 60_000;
    let lastReport = Date.now();
    while (fanOut.acknowledged.size < expected && Date.now() < deadline) {
      await sleep(200);
      if (Date.now() - lastReport > 5000) {
        process.stderr.write(`  fan-out: ${fanOut.acknowledged.size} / ${expected} delivered\n`);
        lastReport = Date.now();
      }
    }
    const deliveredS = (fanOut.lastAt - begin) / 1000;
    const doubled = [...fanOut.acknowledged.values()].filter((times) => times > 1).length;
    const missing = ids.length * CHANNELS - fanOut.acknowledged.size;
    lines.push(
      `Notification bench (embedded engines, npm start's dispatcher): ${EVENTS.toLocaleString('en')} events × ${CHANNELS} webhook channels on one loopback receiver`,
      `  events written in ${(written / 1000).toFixed(1)} s; ${fanOut.acknowledged.size.toLocaleString('en')} of ${expected.toLocaleString('en')} deliveries, ${missing} missing, ${doubled} acknowledged twice`,
      `  all delivered ${deliveredS.toFixed(1)} s after the first write (target ≤ ${TARGET_DELIVERED_S} s)`,
      `  event-to-delivery latency p50 ${(percentile(fanOut.latencies, 50) / 1000).toFixed(2)} s, p99 ${(percentile(fanOut.latencies, 99) / 1000).toFixed(2)} s (target p99 ≤ ${TARGET_P99_S} s)`,
    );
    for (const channelId of fanOutChannels)
      await call('PUT', `/api/notification-channels/${channelId}`, { enabled: false });
    await fanOut.close();

    // 2. Outage, then recovery.
    let failingUntil = 0;
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
    const channel = await call('GET', `/api/notification-channels/${outageChannel}`);
    lines.push(
      `  outage: receiver answered 500 for ${OUTAGE_S} s (${outage.failedAnswers.toLocaleString('en')} attempts refused) to ${OUTAGE_EVENTS.toLocaleString('en')} events, then 200: ` +
        `${outageAcked.size.toLocaleString('en')} acknowledged, ${lost} never, ${twice} twice; all in ${((outage.lastAt - outageBegin) / 1000).toFixed(1)} s ` +
        `(${((outage.lastAt - failingUntil) / 1000).toFixed(1)} s after recovery, retry base ${RETRY_BASE_MS} ms); channel ${channel.enabled === true ? 'still enabled' : `disabled (${String(channel.disabledReason)})`}, consecutiveFailures ${String(channel.consecutiveFailures)}`,
      `  exactly once per acknowledged idempotency key: ${lost === 0 && twice === 0 && missing === 0 && doubled === 0 ? 'yes' : 'NO'}`,
    );
    await outage.close();
    if (lost > 0 || twice > 0 || missing > 0 || doubled > 0) process.exitCode = 1;
  } finally {
    await server.stop();
  }
  console.log(lines.join('\n'));
}

await main();
