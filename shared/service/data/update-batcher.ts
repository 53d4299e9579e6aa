/**
 * Gathers conditional updates made by many concurrent tasks into transactions of a few dozen items: one call
 * instead of one per update. A transaction is all or nothing, so when one of its conditions fails (or it is
 * refused) nothing was written and each update of it is made again on its own: every caller learns whether its
 * own condition held, as with a single update.
 */
import { transactWrite, tx, updateItem } from './table-client';
import type { Key } from './keys/partitions';

/** A conditional update of one item. */
export interface ConditionalUpdate {
  key: Key;
  update: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
  condition: string;
}

interface Waiting {
  write: ConditionalUpdate;
  done: (held: boolean) => void;
  failed: (error: unknown) => void;
}

/** DynamoDB allows 100 items per transaction; smaller batches keep one failed condition cheap to replay. */
const BATCH_SIZE = 25;
/** How long an update waits for others to join its batch. */
const GATHER_MS = 10;

export class UpdateBatcher {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();

  /** Resolves once the update is written: true, or false when its condition did not hold. */
  update(write: ConditionalUpdate): Promise<boolean> {
    return new Promise<boolean>((done, failed) => {
      this.waiting.push({ write, done, failed });
      if (this.waiting.length >= BATCH_SIZE) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), GATHER_MS);
    });
  }

  /** Writes what waits, and waits for every batch still in flight. */
  async drain(): Promise<void> {
    this.flush();
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, this.waiting.length);
    const written = writeBatch(batch).finally(() => this.inFlight.delete(written));
    this.inFlight.add(written);
  }
}

async function writeAlone({ write, done, failed }: Waiting): Promise<void> {
  try {
    done((await updateItem(write.key, write.update, write.names, write.values, write.condition)) !== undefined);
  } catch (error) {
    failed(error);
  }
}

async function writeBatch(batch: Waiting[]): Promise<void> {
  // Two writes to one item cannot share a transaction: those go alone.
  const seen = new Set<string>();
  const together = batch.filter(({ write }) => {
    const id = `${write.key.pk}\u0000${write.key.sk}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  const alone = batch.filter((waiting) => !together.includes(waiting));
  if (together.length > 1) {
    try {
      await transactWrite(
        together.map(({ write }) => tx.update(write.key, write.update, write.names, write.values, write.condition)),
      );
      for (const waiting of together) waiting.done(true);
    } catch {
      // Nothing of the transaction was written: each again on its own, to learn which condition failed.
      alone.push(...together);
    }
  } else alone.push(...together);
  await Promise.all(alone.map(writeAlone));
}
