/**
 * One scan per SBOM at a time (docs/scanning.md "One scan
 * per SBOM"). A lease item beside the SBOM, taken with a conditional put: free
 * when absent or past its expiry. The holder renews it while it works and
 * deletes it in the transaction that stores the scan's result, so "the lease
 * is gone" means "that scan's findings are stored". A holder that dies simply
 * stops renewing: the next request takes the expired lease over. The item
 * carries the table's TTL attribute so DynamoDB removes abandoned leases; the
 * condition reads the lease's own expiry, since TTL deletion lags by hours.
 */
import { randomUUID } from 'node:crypto';
import type { Key } from '../data/keys';
import { getItem, transactWrite, TransactionFailedError, tx, type Item, type TransactItem } from '../data/table-client';
import { tableDefinition } from '../data/table-definition';

/** How long a lease outlives its last renewal: a crashed scan blocks its SBOM this long at most. */
export const SCAN_LEASE_MS = 60_000;
/** Renewals per lease period, so a busy event loop or a slow write does not lose it. */
const RENEWALS_PER_LEASE = 4;
/** Joiners poll the lease with backoff from the first to the last delay. */
const POLL_FIRST_MS = 25;
const POLL_MAX_MS = 500;

export interface LeaseState {
  token: string;
  startedAt: string;
  /** Epoch milliseconds after which the lease is free to take. */
  expiresAt: number;
}

const TTL = tableDefinition.timeToLiveAttribute;

function leaseItem(key: Key, sbomId: string, state: LeaseState): Item {
  return { ...key, entity: 'ScanLease', sbomId, ...state, [TTL]: Math.ceil(state.expiresAt / 1000) };
}

function toState(item: Item): LeaseState {
  return { token: String(item.token), startedAt: String(item.startedAt), expiresAt: Number(item.expiresAt) };
}

/** A lease this process holds: renewed in the background until it is released or lost. */
export class HeldLease {
  private timer: NodeJS.Timeout | undefined;
  /** Set when a renewal found the lease taken over (this holder stalled past its expiry). */
  lost = false;

  constructor(
    readonly key: Key,
    readonly sbomId: string,
    readonly state: LeaseState,
    private readonly durationMs: number,
  ) {
    this.timer = setInterval(() => void this.renew(), durationMs / RENEWALS_PER_LEASE);
    this.timer.unref(); // a lease never keeps a process alive
  }

  private async renew(): Promise<void> {
    const expiresAt = Date.now() + this.durationMs;
    try {
      await transactWrite([
        tx.update(
          this.key,
          'SET #expiresAt = :expiresAt, #ttl = :ttl',
          { '#expiresAt': 'expiresAt', '#ttl': TTL, '#token': 'token' },
          { ':expiresAt': expiresAt, ':ttl': Math.ceil(expiresAt / 1000), ':token': this.state.token },
          '#token = :token',
        ),
      ]);
    } catch (error) {
      if (error instanceof TransactionFailedError) {
        this.lost = true;
        this.stop();
      }
      // Any other failure (a throttle, a timeout): the next renewal tries again well before expiry.
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Deletes the lease inside the transaction that stores the result; fails that transaction if the lease was lost. */
  releaseItem(): TransactItem {
    return tx.delete(this.key, '#token = :token', { '#token': 'token' }, { ':token': this.state.token });
  }

  /** Gives the lease up without a result (the scan failed): joiners stop waiting at once. */
  async release(): Promise<void> {
    this.stop();
    try {
      await transactWrite([this.releaseItem()]);
    } catch (error) {
      if (!(error instanceof TransactionFailedError)) throw error; // already taken over: nothing of ours to delete
    }
  }
}

export const scanLease = {
  /** Takes the lease, or reports who holds it. `durationMs` is for tests that play a crashed holder. */
  async take(
    key: Key,
    sbomId: string,
    durationMs = SCAN_LEASE_MS,
  ): Promise<{ held: HeldLease } | { holder: LeaseState }> {
    for (;;) {
      const now = Date.now();
      const state: LeaseState = {
        token: randomUUID(),
        startedAt: new Date(now).toISOString(),
        expiresAt: now + durationMs,
      };
      try {
        await transactWrite([
          tx.put(
            leaseItem(key, sbomId, state),
            'attribute_not_exists(pk) OR #expiresAt < :now',
            { '#expiresAt': 'expiresAt' },
            { ':now': now },
          ),
        ]);
        return { held: new HeldLease(key, sbomId, state, durationMs) };
      } catch (error) {
        if (!(error instanceof TransactionFailedError)) throw error;
      }
      const current = await scanLease.read(key);
      if (current && current.expiresAt >= Date.now()) return { holder: current };
      // Released or expired between the put and the read: try again.
    }
  },

  /**
   * Removes the lease when it was last renewed before `renewedBefore` (epoch ms): for a caller that
   * knows every holder from before that time is gone (the sweep at local start, before serving),
   * so the scans it resumes need not wait out the lease.
   */
  async breakAbandoned(key: Key, renewedBefore: number): Promise<void> {
    try {
      await transactWrite([
        tx.delete(
          key,
          '#expiresAt < :cutoff',
          { '#expiresAt': 'expiresAt' },
          { ':cutoff': renewedBefore + SCAN_LEASE_MS },
        ),
      ]);
    } catch (error) {
      if (!(error instanceof TransactionFailedError)) throw error; // no lease, or one renewed since: nothing to break
    }
  },

  async read(key: Key): Promise<LeaseState | undefined> {
    const item = await getItem(key);
    return item && toState(item);
  },

  /**
   * Waits until `holder` no longer holds the lease (released with its result,
   * given up, or expired), polling with backoff. False when `deadline` (epoch
   * ms) comes first.
   */
  async waitUntilReleased(key: Key, holder: LeaseState, deadline: number): Promise<boolean> {
    let delay = POLL_FIRST_MS;
    for (;;) {
      const current = await scanLease.read(key);
      if (!current || current.token !== holder.token || current.expiresAt < Date.now()) return true;
      if (Date.now() + delay > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, POLL_MAX_MS);
    }
  },
};
