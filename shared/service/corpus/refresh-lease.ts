/**
 * One refresh of a feed at a time: the hourly run and the continuation schedule may start while another
 * run is still importing, and two runs continuing the same archive from the same cursor would rewrite
 * the same package items at once. A run takes each feed's lease with a conditional write before its work
 * and gives it back after; the lease of a run that was killed expires after the function's longest run.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import { batchWrite, getItem, transactWrite, TransactionFailedError, tx } from '../data/table-client';

/** Longer than the function's timeout (lib/function-catalog.ts): a live run never loses its lease. */
export const LEASE_MS = 6 * 60_000;

export interface RefreshLease {
  feed: string;
  holder: string;
}

export const refreshLease = {
  /** The lease, or null when another run holds one that has not expired. */
  async take(feed: string, now: Date): Promise<RefreshLease | null> {
    const holder = randomUUID();
    try {
      await transactWrite([
        tx.put(
          {
            ...keys.corpusFeedLease(feed),
            entity: 'CorpusFeedLease',
            holder,
            expiresAt: now.getTime() + LEASE_MS,
          },
          'attribute_not_exists(pk) OR #expiresAt < :now',
          { '#expiresAt': 'expiresAt' },
          { ':now': now.getTime() },
        ),
      ]);
      return { feed, holder };
    } catch (error) {
      if (error instanceof TransactionFailedError) return null;
      throw error;
    }
  },

  /** Gives the lease back, unless it expired and another run took it meanwhile. */
  async release(lease: RefreshLease): Promise<void> {
    const item = await getItem(keys.corpusFeedLease(lease.feed));
    if (item?.holder === lease.holder) await batchWrite([], [keys.corpusFeedLease(lease.feed)]);
  },
};
