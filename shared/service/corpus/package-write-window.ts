/**
 * The package items and advisory items of several chunks of one import run, written together: a busy
 * package is touched by nearly every chunk of a large archive, and each write rewrites all its entries,
 * so writing it once per window rather than once per chunk divides the bytes the engine writes (at
 * 520,000 records, chunks of 5,000 wrote 3.2 million package entries; docs/corpus-at-scale.md).
 *
 * Order is what keeps an interrupted run safe: a window's package items are written first, then the
 * change journal naming them, then its advisory items, whose content hash marks a record done. A run cut
 * off inside a window has written none of the window's advisory items (or, inside the last step, only
 * records whose package items are all written), so the next run reads those records as changed and redoes
 * them, dropping any entry of theirs by id before adding it: nothing is duplicated or skipped. A unit's
 * checkpoint flushes its window before it stores where the next unit starts.
 *
 * A package's entries are held as the stored JSON (unparsed) plus what this window added and dropped, so
 * a chunk touching a busy package costs neither a parse nor a serialisation of its entries.
 */
import { keys, type Key } from '../data/keys';
import { batchGet, batchWrite, type Item } from '../data/table-client';
import { corpusChanges } from '../watch/corpus-changes';
import { MAX_INLINE_BYTES, packageEntries, packageItemKey, spillToS3, type MatchData } from './corpus-store';
import type { PackageItemCache } from './package-item-cache';

/**
 * Characters a window may take in before it is written: the entries and records it adds, and the stored
 * entries it read from the table. Stored entries it took from the run's cache are not counted: they left
 * the cache for the window, which gives them back once written.
 */
export const WINDOW_CHARS = 32 * 1024 * 1024;

/** Package items are written in parts of about this many characters, so that the window's JSON is not all built at once. */
const WRITE_PART_CHARS = 4 * 1024 * 1024;

interface PackageSlot {
  /** The entries' JSON as stored before this window; undefined: no item. */
  stored: string | undefined;
  /** Ids whose stored entry is dropped (a changed or withdrawn record). */
  dropped: Set<string>;
  /** This window's entries' JSON, by advisory id (a later chunk's version of a record replaces an earlier one's). */
  added: Map<string, string>;
}

/** What a chunk reads of an advisory item it may replace (advisory-chunk.ts): the pending one if the window holds it. */
export type PendingAdvisory = { item: Item } | { deleted: true };

export class PackageWriteWindow {
  private readonly slots = new Map<string, PackageSlot>();
  private readonly advisories = new Map<string, PendingAdvisory>();
  private chars = 0;
  packagesWritten = 0;

  constructor(
    private readonly cache: PackageItemCache,
    private readonly limit = WINDOW_CHARS,
  ) {}

  get full(): boolean {
    return this.chars >= this.limit;
  }

  /** The window's version of an advisory item, if it holds one. */
  pendingAdvisory(advisoryId: string): PendingAdvisory | undefined {
    return this.advisories.get(advisoryId);
  }

  /**
   * Makes sure each package has a slot, reading the stored items this run neither holds nor wrote;
   * answers the packages with no stored item and none pending (they join their short-name item).
   */
  async open(packageKeys: Iterable<string>): Promise<string[]> {
    const unread: string[] = [];
    const opened: string[] = [];
    for (const key of packageKeys) {
      if (this.slots.has(key)) continue;
      const held = this.cache.get(key);
      if (held === undefined) unread.push(key);
      else {
        this.cache.forget(key);
        this.addSlot(key, held);
      }
      opened.push(key);
    }
    for (const item of await batchGet(unread.map(packageItemKey))) {
      const key = String(item.packageKey);
      const stored =
        typeof item.entriesJson === 'string' ? item.entriesJson : JSON.stringify(await packageEntries(item));
      this.addSlot(key, stored);
      this.chars += stored.length;
    }
    const fresh: string[] = [];
    for (const key of opened) {
      if (!this.slots.has(key)) {
        this.slots.set(key, { stored: undefined, dropped: new Set(), added: new Map() });
        fresh.push(key);
      }
    }
    return fresh;
  }

  /** Drops the package's entry for each id (stored or added in this window), then adds `entries`. */
  update(packageKey: string, dropIds: ReadonlySet<string>, entries: readonly MatchData[]): void {
    const slot = this.slots.get(packageKey);
    if (!slot) throw new Error(`package ${packageKey} was not opened in this window`);
    for (const id of dropIds) {
      if (slot.stored !== undefined) slot.dropped.add(id);
      const before = slot.added.get(id);
      if (before !== undefined) {
        slot.added.delete(id);
        this.chars -= before.length;
      }
    }
    for (const entry of entries) {
      const json = JSON.stringify(entry);
      slot.added.set(entry.id, json);
      this.chars += json.length;
    }
  }

  /** The advisory item goes out with the window, after its package items. */
  putAdvisory(item: Item, chars: number): void {
    this.advisories.set(String(item.advisoryId), { item });
    this.chars += chars;
  }

  deleteAdvisory(advisoryId: string): void {
    this.advisories.set(advisoryId, { deleted: true });
  }

  /** Writes the package items, the journal naming them, then the advisory items; empties the window. */
  async flush(): Promise<void> {
    if (this.slots.size === 0 && this.advisories.size === 0) return;
    const touched = [...this.slots.keys()];
    let puts: Item[] = [];
    let partChars = 0;
    const deletes: Key[] = [];
    let written = new Map<string, string>();
    const writePart = async () => {
      await batchWrite(puts);
      this.packagesWritten += puts.length;
      for (const [key, entriesJson] of written) this.cache.written(key, entriesJson);
      puts = [];
      written = new Map();
      partChars = 0;
    };
    for (const [key, slot] of this.slots) {
      this.slots.delete(key);
      if (slot.dropped.size === 0 && slot.added.size === 0) continue;
      const entries = mergedEntries(slot);
      if (entries.length > 0) {
        const entriesJson = `[${entries.map(([, json]) => json).join(',')}]`;
        puts.push(await packageItem(key, entriesJson, entries.length));
        written.set(key, entriesJson);
        partChars += entriesJson.length;
        if (partChars >= WRITE_PART_CHARS) await writePart();
      } else if (slot.stored !== undefined) deletes.push(packageItemKey(key));
    }
    await writePart();
    await batchWrite([], deletes);
    // Recorded before the advisory items mark the records done: a run cut off here records it again, never not at all.
    await corpusChanges.record('osv', touched, []);
    const advisoryPuts: Item[] = [];
    const advisoryDeletes: Key[] = [];
    for (const [advisoryId, pending] of this.advisories) {
      if ('item' in pending) advisoryPuts.push(pending.item);
      else advisoryDeletes.push(keys.corpusAdvisory(advisoryId));
    }
    await batchWrite(advisoryPuts, advisoryDeletes);
    this.slots.clear();
    this.advisories.clear();
    this.chars = 0;
  }

  private addSlot(key: string, stored: string): void {
    this.slots.set(key, { stored, dropped: new Set(), added: new Map() });
  }
}

/** The stored entries not dropped and the window's, as [id, JSON], in the order of their ids. */
function mergedEntries(slot: PackageSlot): [string, string][] {
  const stored = slot.stored === undefined ? [] : (JSON.parse(slot.stored) as MatchData[]);
  const entries: [string, string][] = [];
  for (const entry of stored) if (!slot.dropped.has(entry.id)) entries.push([entry.id, JSON.stringify(entry)]);
  entries.push(...slot.added);
  return entries.sort((a, b) => a[0].localeCompare(b[0]));
}

async function packageItem(key: string, entriesJson: string, advisoryCount: number): Promise<Item> {
  const base = { ...packageItemKey(key), entity: 'CorpusPackage', packageKey: key, advisoryCount };
  // One string attribute, not nested maps: a scan reads a thousand of these, and (un)marshalling
  // nested attribute maps was most of that read's cost (docs/scanning.md "Where scan time goes").
  if (Buffer.byteLength(entriesJson) <= MAX_INLINE_BYTES) return { ...base, entriesJson };
  return { ...base, spillKey: await spillToS3('package', key, JSON.parse(entriesJson) as unknown) };
}
