/**
 * The notification worker, run every minute by its schedule (docs/notifications.md "On AWS"): new events become
 * deliveries, owed attempts and due daily digests go out. Everything it needs is in the table (outbox, due
 * index, digest entries), so a run cut off by its timeout leaves the rest to the next one.
 */
import type { Context } from 'aws-lambda';
import { Dispatch } from '../../shared/service/notifications/dispatch';

/** Passes run until this much of the invocation is left. */
const MARGIN_MS = 30_000;

export async function handler(
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + (context?.getRemainingTimeInMillis() ?? 300_000) - MARGIN_MS;
  const totals = { passes: 0, events: 0, attempted: 0, delivered: 0 };
  // Several passes per invocation: a burst larger than one pass's pages is done within the minute.
  while (Date.now() < deadline) {
    const pass = await Dispatch.runOnce();
    totals.passes += 1;
    totals.events += pass.events;
    totals.attempted += pass.attempted;
    totals.delivered += pass.delivered;
    if (pass.events === 0 && pass.attempted === 0) break;
  }
  return totals;
}
