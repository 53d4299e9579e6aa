/**
 * Readers-writer locks used by the embedded engines to give them the isolation
 * the real services have (and dynalite / s3rver lack).
 */

export type Release = () => void;

interface Waiter {
  exclusive: boolean;
  grant: () => void;
}

/**
 * FIFO readers-writer lock: shared holders run together, an exclusive holder runs
 * alone. Strict arrival order, so a waiting writer is never starved by a stream of
 * readers (and a reader that arrives after a waiting writer observes its result).
 */
export class ReadWriteLock {
  private readers = 0;
  private writer = false;
  private readonly queue: Waiter[] = [];

  /** True when nobody holds or waits for the lock. */
  get idle(): boolean {
    return this.readers === 0 && !this.writer && this.queue.length === 0;
  }

  shared(): Promise<Release> {
    return this.acquire(false);
  }

  exclusive(): Promise<Release> {
    return this.acquire(true);
  }

  private acquire(exclusive: boolean): Promise<Release> {
    return new Promise<Release>((resolve) => {
      this.queue.push({
        exclusive,
        grant: () => {
          let released = false;
          resolve(() => {
            if (released) return; // releasing twice must not corrupt the counters
            released = true;
            if (exclusive) this.writer = false;
            else this.readers -= 1;
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
      if (!next || this.writer) return;
      if (next.exclusive) {
        if (this.readers > 0) return;
        this.writer = true;
      } else {
        this.readers += 1;
      }
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
