/**
 * A dispatch pass reads a shard's outbox on, page after page, while its pages come back full, up to its pass
 * limit, and says the shard may hold more when it stopped there; the shard's second full page puts the pass
 * behind, one full page does not (shared/service/notifications/dispatch.ts, docs/notifications.md "Delivery").
 *
 * The test calls the dispatcher itself, on outbox shards past the last of `notifyShards`: the test server's own
 * dispatcher reads only those (and the shards its own process writes to), so it never takes these entries.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/service/config';
import { keys } from '../../shared/service/data/keys';
import { NOTIFY_SHARDS } from '../../shared/service/data/keys/notifications';
import { batchWrite } from '../../shared/service/data/table-client';
import { eventId } from '../../shared/service/events/event-store';
import { Dispatch } from '../../shared/service/notifications/dispatch';
import { DispatchPass } from '../../shared/service/notifications/dispatch-pass';
import { createTeamWithKey } from '../support/factories';
import { findingDetectedItem, webhookChannelWithRule } from '../support/notification-events';
import { startReceiver } from '../support/webhook-receiver';

// This process sends the deliveries, to a receiver on loopback (read on first use of the configuration, below).
process.env.VEXDESK_ALLOW_LOOPBACK_WEBHOOKS = '1';

const PAGE = 3;
const PASS_LIMIT = 7;

/** An outbox shard no dispatcher but this test's reads. */
let nextShard = NOTIFY_SHARDS + 100;

let team: Awaited<ReturnType<typeof createTeamWithKey>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** The pass the test runs now; the receiver notes, at each request, whether it holds its writes. */
let current: DispatchPass | undefined;
const heldAtRequest: boolean[] = [];

/**
 * Whether the pass holds a write while its requests are in flight (it is behind). Asked from within a request:
 * a write that is not held starts at once; a held one (a no-op) waits for the requests to end.
 */
function holdsWrites(pass: DispatchPass): boolean {
  let started = false;
  void pass.writing(() => {
    started = true;
    return Promise.resolve();
  });
  return !started;
}

beforeAll(async () => {
  expect(config().notifications.allowLoopback).toBe(true);
  team = await createTeamWithKey();
  receiver = await startReceiver(() => {
    if (current) heldAtRequest.push(holdsWrites(current));
    return 200;
  });
  await webhookChannelWithRule(team.api, receiver.url, { name: 'read-on', eventTypes: ['finding.detected'] });
});

afterAll(async () => {
  await receiver.close();
});

/** Writes `count` events of the team into an outbox shard of their own; answers the shard and the events' ids. */
async function eventsInOwnShard(count: number): Promise<{ shard: number; ids: string[] }> {
  const shard = nextShard++;
  const ids = Array.from({ length: count }, () => eventId(randomUUID(), 'finding.detected'));
  const at = new Date().toISOString();
  await batchWrite(
    ids.map((id) => ({
      ...findingDetectedItem(team.teamId, id, at, 'CVE-2026-0004'),
      ...keys.notifyOutboxPartition(shard),
    })),
  );
  return { shard, ids };
}

/** One drainOutbox call over `shard` with a pass of its own; answers its totals and what the receiver noted. */
async function drain(shard: number) {
  const pass = new DispatchPass({ batchRecords: true });
  const sentBefore = receiver.received.length;
  heldAtRequest.length = 0;
  current = pass;
  try {
    const totals = await Dispatch.drainOutbox(pass, PAGE, [shard], PASS_LIMIT);
    await pass.finish();
    const sent = receiver.received.slice(sentBefore).map((request) => String(request.headers['webhook-id']));
    return { totals, sent, heldAtRequest: [...heldAtRequest] };
  } finally {
    current = undefined;
  }
}

describe('a dispatch pass over an outbox shard', () => {
  it('reads on past its first page up to its pass limit, and the next pass delivers the rest', async () => {
    const { shard, ids } = await eventsInOwnShard(11);

    // Pages of 3, 3 and 3: 9 entries reach the limit of 7, so the shard may hold more.
    const first = await drain(shard);
    expect(first.totals).toEqual({ events: 9, attempted: 9, delivered: 9, more: true });
    expect(first.sent).toHaveLength(9);

    const second = await drain(shard);
    expect(second.totals).toEqual({ events: 2, attempted: 2, delivered: 2, more: false });

    // Every event delivered, once.
    expect([...first.sent, ...second.sent].sort()).toEqual([...ids].sort());
    const third = await drain(shard);
    expect(third.totals).toEqual({ events: 0, attempted: 0, delivered: 0, more: false });
  });

  it('falls behind at its second full page: the requests of that page go before the writes', async () => {
    const { shard } = await eventsInOwnShard(6);
    const drained = await drain(shard);
    expect(drained.totals).toEqual({ events: 6, attempted: 6, delivered: 6, more: false });
    // The first page's requests with its writes beside them; the second page's with the writes held.
    expect(drained.heldAtRequest).toEqual([false, false, false, true, true, true]);
  });

  it('keeps up after one full page, followed by a short one or by none', async () => {
    for (const count of [PAGE, PAGE + 1]) {
      const { shard } = await eventsInOwnShard(count);
      const drained = await drain(shard);
      expect(drained.totals).toEqual({ events: count, attempted: count, delivered: count, more: false });
      expect(drained.heldAtRequest).toEqual(Array.from({ length: count }, () => false));
    }
  });
});
