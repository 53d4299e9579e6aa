/**
 * The notification invariant of the crash test: a crash between an event's write and its delivery delays the
 * delivery, never drops or doubles it. A loopback webhook receiver (the server runs with loopback webhooks allowed)
 * is subscribed to every event of the crash team before the first kill. After each restart every event since has
 * exactly one delivery record (none missing, none `dead`); at the end, with the last server still running, the
 * receiver has acknowledged every event's idempotency key (`webhook-id`) and no other. A key the receiver saw
 * acknowledged twice (the process died between its answer and the record of it) is at-least-once delivery working,
 * counted, not a violation: a receiver that de-duplicates by `webhook-id` processes each event exactly once.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { api } from './api';
import type { Violation } from './invariants';
import type { WorkloadState } from './workload';

/** A claimed attempt whose process died is owed again after the dispatcher's lease (60 s), so the end waits longer. */
export const FINAL_SETTLE_MS = 100_000;

export interface NotificationWatch {
  channelId: string;
  since: string;
  /** webhook-id → how many times the receiver answered 200 for it. */
  acknowledged: Map<string, number>;
  close(): Promise<void>;
}

/** The receiver (answers 200 after up to 150 ms, so kills land mid-attempt), its channel, and a rule for every event. */
export async function watchNotifications(state: WorkloadState): Promise<NotificationWatch> {
  const acknowledged = new Map<string, number>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      setTimeout(
        () => {
          const id = String(request.headers['webhook-id'] ?? '');
          response.writeHead(200).end('ok', () => acknowledged.set(id, (acknowledged.get(id) ?? 0) + 1));
        },
        Math.floor(Math.random() * 150),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const since = new Date(Date.now() - 1).toISOString();
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${state.baseUrl}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${state.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`POST ${path} → ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: { id: string } }).data;
  };
  const channel = await post('/api/notification-channels', { type: 'webhook', name: 'crash receiver', url });
  await post('/api/notification-rules', { name: 'everything', channelId: channel.id });
  return {
    channelId: channel.id,
    since,
    acknowledged,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function allPages(state: WorkloadState, path: string, perPage: number): Promise<Array<Record<string, unknown>>> {
  const rows: Array<Record<string, unknown>> = [];
  for (let page = 1; ; page += 1) {
    const separator = path.includes('?') ? '&' : '?';
    const answer = await api(state.baseUrl, state.apiKey, `${path}${separator}page=${page}&perPage=${perPage}`);
    if (answer.status !== 200) throw new Error(`GET ${path} → ${answer.status}`);
    const data = answer.data as Array<Record<string, unknown>>;
    rows.push(...data);
    if (data.length < perPage) return rows;
  }
}

/** The violations now: events without exactly one live delivery and, at the end, keys never or wrongly acknowledged. */
async function violationsOf(watch: NotificationWatch, state: WorkloadState, final: boolean): Promise<Violation[]> {
  const events = await allPages(state, `/api/events?since=${encodeURIComponent(watch.since)}`, 1000);
  const deliveries = await allPages(state, `/api/notification-deliveries?channelId=${watch.channelId}`, 100);
  const byEvent = new Map<string, Array<Record<string, unknown>>>();
  for (const delivery of deliveries) {
    const list = byEvent.get(String(delivery.eventId)) ?? [];
    list.push(delivery);
    byEvent.set(String(delivery.eventId), list);
  }
  const violations: Violation[] = [];
  const add = (key: string, message: string) => violations.push({ invariant: 6, key, message });
  // Events from before the subscription may be delivered too (dispatched after it); only others are phantoms.
  const eventIds = new Set((await allPages(state, '/api/events', 1000)).map((event) => String(event.id)));
  for (const event of events) {
    const id = String(event.id);
    const found = byEvent.get(id) ?? [];
    const label = `event ${id.slice(0, 8)} (${String(event.type)})`;
    if (found.length === 0) add(`notify-dropped:${id}`, `${label}: no delivery`);
    else if (found.length > 1) add(`notify-doubled:${id}`, `${label}: ${found.length} deliveries`);
    else if (found[0]!.status === 'dead')
      add(`notify-dead:${id}`, `${label}: delivery dead (${String(found[0]!.error)})`);
    else if (final && found[0]!.status !== 'delivered')
      add(`notify-late:${id}`, `${label}: still ${String(found[0]!.status)}`);
    if (final && !watch.acknowledged.has(id)) add(`notify-unacknowledged:${id}`, `${label}: the receiver never got it`);
  }
  for (const id of watch.acknowledged.keys())
    if (!eventIds.has(id))
      add(`notify-phantom:${id}`, `the receiver got ${id.slice(0, 8)}, which is no event of the team`);
  return violations;
}

/** Checks until nothing is violated or `withinMs` is over; answers what is left. */
export async function settleNotifications(
  watch: NotificationWatch,
  state: WorkloadState,
  options: { final: boolean; withinMs: number },
): Promise<{ violations: Violation[]; events: number; settledMs: number | undefined }> {
  const begin = Date.now();
  for (;;) {
    const violations = await violationsOf(watch, state, options.final);
    const events = (await allPages(state, `/api/events?since=${encodeURIComponent(watch.since)}`, 1000)).length;
    if (violations.length === 0) return { violations, events, settledMs: Date.now() - begin };
    if (Date.now() - begin > options.withinMs) return { violations, events, settledMs: undefined };
    await sleep(500);
  }
}

/** Keys the receiver acknowledged more than once (re-sent after a crash between its answer and the record). */
export function repeatedAcknowledgements(watch: NotificationWatch): number {
  return [...watch.acknowledged.values()].filter((times) => times > 1).length;
}
