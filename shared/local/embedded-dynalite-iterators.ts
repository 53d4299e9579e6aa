/**
 * dynalite's Query and Scan streams, made to close their LevelDB iterator (dynalite 4.0.0 with
 * abstract-level 3). dynalite's streams close it on destroy only through `iterator.return()`, which
 * abstract-level's iterators do not have: every Query and Scan left its iterator open, registered
 * with the database for good. An open LevelDB iterator pins the version of the store it started on
 * (every table file of it, so compaction's obsolete files were never deleted: 8.5 GB of them after
 * 100,000 records) and the memtables of that moment (anonymous memory: the server's RSS grew to
 * several GB). The streams here close the iterator when they end or are destroyed (dynalite destroys a query's
 * stream once it has what it needs).
 */
import { Readable } from 'node:stream';

interface LevelIterator {
  next(): Promise<unknown>;
  close(): Promise<void>;
}

/** The main LevelDB of dynalite's store (`store.db`), with the stream methods dynalite set on it. */
export interface IteratorStore {
  keys(options: unknown): LevelIterator;
  values(options: unknown): LevelIterator;
  createKeyStream: (options: unknown) => Readable;
  createValueStream: (options: unknown) => Readable;
}

/** An object stream over a LevelDB iterator that closes the iterator when it ends or is destroyed. */
function iteratorStream(iterator: LevelIterator): Readable {
  return new Readable({
    objectMode: true,
    read() {
      iterator.next().then(
        (value) => this.push(value === undefined ? null : value),
        (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
      );
    },
    destroy(error, callback) {
      // abstract-level waits for a read in flight before closing.
      iterator.close().then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
}

/** Replaces dynalite's key and value streams (its Query, Scan, ListTables...) with ones that close their iterator. */
export function closeIteratorsOnDestroy(db: IteratorStore): void {
  db.createKeyStream = (options) => iteratorStream(db.keys(options));
  db.createValueStream = (options) => iteratorStream(db.values(options));
}
