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

const leaseItem = (feed: string, holder: string, now: Date) => ({
  ...keys.corpusFeedLease(feed),
  entity: 'CorpusFeedLease',
  holder,
  expiresAt: now.getTime() + LEASE_MS,
});

/** Takes the leases of all `feeds` at once (one transaction, at most 100 feeds), or none of them. */
async function takeAll(feeds: readonly string[], now: Date): Promise<RefreshLease[] | null> {
  const holder = randomUUID();
  try {
    await transactWrite(
      feeds.map((feed) =>
        tx.put(
          leaseItem(feed, holder, now),
          'attribute_not_exists(pk) OR #expiresAt < :now',
          { '#expiresAt': 'expiresAt' },
          { ':now': now.getTime() },
        ),
      ),
    );
    return feeds.map((feed) => ({ feed, holder }));
  } catch (error) {
    if (error instanceof TransactionFailedError) return null;
    throw error;
  }
}

export const refreshLease = {
  /** The lease, or null when another run holds one that has not expired. */
  async take(feed: string, now: Date): Promise<RefreshLease | null> {
    return (await takeAll([feed], now))?.[0] ?? null;
  },

  takeAll,

  /** Extends leases this holder still holds; false when one was lost (it expired and another run took it). */
  async renew(leases: readonly RefreshLease[], now: Date): Promise<boolean> {
    try {
      await transactWrite(
        leases.map((lease) =>
          tx.put(
            leaseItem(lease.feed, lease.holder, now),
            '#holder = :holder',
            { '#holder': 'holder' },
            {
              ':holder': lease.holder,
            },
          ),
        ),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionFailedError) return false;
      throw error;
    }
  },

  /** Gives the lease back, unless it expired and another run took it meanwhile. */
  async release(lease: RefreshLease): Promise<void> {
    const item = await getItem(keys.corpusFeedLease(lease.feed));
    if (item?.holder === lease.holder) await batchWrite([], [keys.corpusFeedLease(lease.feed)]);
  },
};

/** Another run holds the lease of a feed the work would write. */
export class FeedsBusyError extends Error {
  constructor(feeds: readonly string[]) {
    super(
      `a corpus refresh or import is writing ${feeds.join(', ')}: try again once it is done (at most ${LEASE_MS / 60_000} minutes after it stops)`,
    );
    this.name = 'FeedsBusyError';
  }
}

/** Lost a lease while working: another run may now write the same items. */
export class FeedLeaseLostError extends Error {
  constructor() {
    super('lost the corpus feed lease while importing: stopped so that two imports do not write the same items');
    this.name = 'FeedLeaseLostError';
  }
}

export interface HeldFeeds {
  /** Throws FeedLeaseLostError once a renewal found a lease taken by another run. */
  assertHeld(): void;
}

/**
 * Runs `work` holding the leases of `feeds`, renewed every `renewEveryMs` while it runs (an import of
 * any length, where a refresh run's lease outlives the function's timeout instead), and gives them back.
 */
export async function holdingFeeds<T>(
  feeds: readonly string[],
  work: (held: HeldFeeds) => Promise<T>,
  { renewEveryMs = LEASE_MS / 3, now = () => new Date() }: { renewEveryMs?: number; now?: () => Date } = {},
): Promise<T> {
  const leases = await takeAll(feeds, now());
  if (!leases) throw new FeedsBusyError(feeds);
  let lost = false;
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(async () => {
      if (!lost && !(await refreshLease.renew(leases, now()).catch(() => true))) lost = true;
    });
  }, renewEveryMs);
  try {
    return await work({
      assertHeld: () => {
        if (lost) throw new FeedLeaseLostError();
      },
    });
  } finally {
    clearInterval(timer);
    await renewing;
    await Promise.all(leases.map((lease) => refreshLease.release(lease)));
  }
}
