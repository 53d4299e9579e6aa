/**
 * Readers-writer locks used by the embedded engines to give them the isolation
 * the real services have (and dynalite / s3rver lack).
 */

export type Release = () => void;

/** Holders of one mode run together: readers with readers, single-item writers with writers; exclusive runs alone. */
type Mode = 'shared' | 'writers' | 'exclusive';

interface Waiter {
  mode: Mode;
  grant: () => void;
}

/**
 * FIFO readers-writer lock: shared holders run together, an exclusive holder runs
 * alone. Strict arrival order, so a waiting writer is never starved by a stream of
 * readers (and a reader that arrives after a waiting writer observes its result).
 * A third mode, `writers`, lets writers that need no isolation from each other run
 * together (never beside a reader or an exclusive holder).
 */
export class ReadWriteLock {
  private mode: Mode | undefined;
  private holders = 0;
  private readonly queue: Waiter[] = [];

  /** True when nobody holds or waits for the lock. */
  get idle(): boolean {
    return this.holders === 0 && this.queue.length === 0;
  }

  shared(): Promise<Release> {
    return this.acquire('shared');
  }

  exclusive(): Promise<Release> {
    return this.acquire('exclusive');
  }

  /** Beside other `writers` holders only. */
  writers(): Promise<Release> {
    return this.acquire('writers');
  }

  private acquire(mode: Mode): Promise<Release> {
    return new Promise<Release>((resolve) => {
      this.queue.push({
        mode,
        grant: () => {
          let released = false;
          resolve(() => {
            if (released) return; // releasing twice must not corrupt the counters
            released = true;
            this.holders -= 1;
            if (this.holders === 0) this.mode = undefined;
            this.pump();
          });
        },
      });
      this.pump();
    });
  }

  private pump(): void {
    for (;;) {
      const next = this.queue[0];
      if (!next) return;
      if (this.holders > 0 && (next.mode === 'exclusive' || next.mode !== this.mode)) return;
      this.mode = next.mode;
      this.holders += 1;
      this.queue.shift();
      next.grant();
    }
  }
}

/** One readers-writer lock per key, dropped again when nobody uses it. */
export class KeyedReadWriteLock {
  private readonly locks = new Map<string, ReadWriteLock>();

  shared(key: string): Promise<Release> {
    return this.acquire(key, false);
  }

  exclusive(key: string): Promise<Release> {
    return this.acquire(key, true);
  }

  private async acquire(key: string, exclusive: boolean): Promise<Release> {
    let lock = this.locks.get(key);
    if (!lock) {
      lock = new ReadWriteLock();
      this.locks.set(key, lock);
    }
    const owned = lock;
    const release = await (exclusive ? owned.exclusive() : owned.shared());
    return () => {
      release();
      if (owned.idle && this.locks.get(key) === owned) this.locks.delete(key);
    };
  }
}
