/**
 * Write-ahead journal of the embedded DynamoDB engine's transactions (all or nothing, also across a crash). dynalite applies a transaction's writes one
 * item at a time, so a process killed between two of them would leave it torn.
 *
 * Before the first item write, the before-image of every item the transaction writes is
 * put in one file of its own, fsynced together with its directory entry; the file is
 * removed once the last write (or the rollback) is done, and only then is the client
 * answered. A transaction is therefore committed exactly when its file is gone. At start,
 * before the engine accepts a request, every file left over is undone: its before-images
 * are restored (idempotent, so a crash during recovery is harmless) and the file removed.
 * Undoing rather than replaying: the client was never answered, and restoring a stored
 * item needs no re-evaluation of update expressions against a state that may be half new.
 *
 * A file that does not parse was cut short by a crash while being written, before any
 * item write could start: it is discarded.
 */
import { mkdir, open, readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { AttributeMap } from './embedded-dynalite';

export interface BeforeImage {
  tableName: string;
  /** Primary key of the item. */
  key: AttributeMap;
  /** The whole item before the transaction; absent = it did not exist. */
  item?: AttributeMap;
}

interface JournalRecord {
  transaction: string;
  items: BeforeImage[];
}

export interface JournalEntry {
  /** Removes the record: the transaction is committed (or fully rolled back). */
  clear(): Promise<void>;
}

const SUFFIX = '.json';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseRecord(text: string): JournalRecord | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || typeof parsed.transaction !== 'string' || !Array.isArray(parsed.items)) return undefined;
  const items: BeforeImage[] = [];
  for (const item of parsed.items) {
    if (!isRecord(item) || typeof item.tableName !== 'string' || !isRecord(item.key)) return undefined;
    if (item.item !== undefined && !isRecord(item.item)) return undefined;
    items.push(item as unknown as BeforeImage);
  }
  return { transaction: parsed.transaction, items };
}

/** Makes a directory's entries (a created or removed file) durable. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class TransactionJournal {
  private sequence = 0;

  private constructor(private readonly directory: string) {}

  /** Opens (creating) the journal directory; call recover() before accepting requests. */
  static async open(directory: string): Promise<TransactionJournal> {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    return new TransactionJournal(directory);
  }

  /**
   * Undoes every transaction left over by a crash, newest first (so when several
   * touched one item, the oldest before-image is the one that stays), with `restore`
   * putting one transaction's before-images back. Returns how many transactions were undone.
   */
  async recover(restore: (images: readonly BeforeImage[]) => Promise<void>): Promise<number> {
    const names = (await readdir(this.directory))
      .filter((name) => name.endsWith(SUFFIX))
      .sort()
      .reverse();
    let undone = 0;
    for (const name of names) {
      const file = path.join(this.directory, name);
      const record = parseRecord(await readFile(file, 'utf8'));
      if (record) {
        await restore(record.items);
        undone += 1;
      }
      await rm(file, { force: true });
    }
    if (names.length > 0) await syncDirectory(this.directory);
    // Names sort in write order: continue after the newest one seen.
    this.sequence = names.length;
    return undone;
  }

  /** Records a transaction's before-images durably; resolves once they are on disk. */
  async write(transaction: string, items: BeforeImage[]): Promise<JournalEntry> {
    this.sequence += 1;
    // Time first, then a per-process sequence: names sort in write order across restarts.
    const name = `${Date.now().toString().padStart(15, '0')}-${this.sequence.toString().padStart(9, '0')}-${transaction}${SUFFIX}`;
    const file = path.join(this.directory, name);
    const handle = await open(file, 'wx', 0o600);
    try {
      await handle.writeFile(JSON.stringify({ transaction, items } satisfies JournalRecord));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncDirectory(this.directory);
    return {
      // No directory fsync here: for a process crash the removal is visible at once, and
      // a power loss could lose dynalite's own (unsynced) writes anyway; a removal lost
      // that way only undoes a transaction whose writes may be gone too.
      clear: () => rm(file),
    };
  }
}
