/**
 * Admission to the embedded DynamoDB engine: the one readers-writer lock every request
 * passes (writes exclusive until their response is complete, reads shared), and the two
 * states in which the engine refuses requests: stopped, and broken by a failure that left
 * the store for recovery to repair at the next start.
 */
import { ReadWriteLock, type Release } from './embedded-lock';

/** The engine is stopping: the request is dropped. */
export class EngineStopped extends Error {}

/** The engine refuses requests after a failure that left the store to be recovered at restart. */
export class EngineBroken extends Error {}

export type LockMode = 'shared' | 'exclusive';

export class EngineGate {
  private readonly lock = new ReadWriteLock();
  private stopped = false;
  private broken: Error | undefined;

  /** Takes the lock (exclusive for a write); refuses, lock released, once the engine is stopped or broken. */
  async enter(mode: LockMode): Promise<Release> {
    const release = await (mode === 'exclusive' ? this.lock.exclusive() : this.lock.shared());
    if (this.stopped) {
      release();
      throw new EngineStopped();
    }
    if (this.broken) {
      release();
      throw new EngineBroken(this.broken.message);
    }
    return release;
  }

  /** Runs work holding the lock. */
  async withLock<T>(mode: LockMode, work: () => Promise<T>): Promise<T> {
    const release = await this.enter(mode);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /**
   * Runs a step whose failure leaves the store for recovery to repair (a journal record
   * that may or may not be on disk, a rollback half done): from then on the engine
   * refuses every request, so no later write can be undone by that record at restart.
   */
  async guarded<T>(step: () => Promise<T> | undefined): Promise<T | undefined> {
    try {
      return await step();
    } catch (error) {
      this.broken = error instanceof Error ? error : new Error(String(error));
      console.error('[embedded-dynamo] refusing requests until restarted (recovery repairs the store)', this.broken);
      throw new EngineBroken(this.broken.message);
    }
  }

  /** Waits for every request already admitted; later ones are turned away. */
  async close(): Promise<void> {
    const release = await this.lock.exclusive();
    this.stopped = true;
    release();
  }
}
