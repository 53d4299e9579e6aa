/**
 * The write-ahead journal earlier versions of the embedded DynamoDB engine kept for transactions, which
 * they applied one item at a time (a process killed between two writes left the transaction torn).
 * Transactions are now one LevelDB batch, atomic by themselves (embedded-transaction-engine.ts), and
 * write no record; a data directory an earlier version crashed on may still hold some, and start-up
 * undoes them, as that version would have, before the engine accepts a request.
 *
 * A record was one file per transaction holding the before-image of every item it wrote, made durable
 * before its first write and removed after its last: a file left over is a transaction that never
 * answered its client. Undoing it restores its before-images (idempotent, so a crash during recovery is
 * harmless). A file that does not parse was cut short while being written, before any item write could
 * start: it is discarded.
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
    return undone;
  }
}
