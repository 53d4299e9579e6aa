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
 * a chunk touching a busy package costs neither a parse nor a serialisation of its entries. Only the
 * package item's own entries are held: its sealed segments (package-segments.ts) are read only when a
 * revised or withdrawn record may have an entry there, and rewritten if it has. Within a window, new
 * segments go before the package items counting them, and rewritten segments after the package items
 * (so a cut in between leaves a record's old entry beside its new one, which a read shadows, never
 * neither), all before the journal: a re-evaluation reads every item the journal names.
 */
import { keys, type Key } from '../data/keys';
import { batchGet, batchWrite, type Item } from '../data/table-client';
import { corpusChanges } from '../watch/corpus-changes';
import {
  entriesJsonOf,
  MAX_INLINE_BYTES,
  packageItemKey,
  packageSegmentKey,
  spillToS3,
  storedPackageOf,
  type MatchData,
} from './corpus-store';
import type { PackageItemCache } from './package-item-cache';
import { arrayJson, dropFromSegment, sealIfFull, type EntryJson, type StoredPackage } from './package-segments';

/**
 * Characters a window may take in before it is written: the entries and records it adds, and the stored
 * entries and sealed segments it read from the table. Stored entries it took from the run's cache are not
 * counted: they left the cache for the window, which gives them back once written.
 */
export const WINDOW_CHARS = 32 * 1024 * 1024;

/** Package items are written in parts of about this many characters, so that the window's JSON is not all built at once. */
const WRITE_PART_CHARS = 4 * 1024 * 1024;

interface PackageSlot {
  /** The package item as stored before this window; undefined: no item. */
  stored: StoredPackage | undefined;
  /** Ids whose stored entry is dropped (a changed or withdrawn record). */
  dropped: Set<string>;
  /** Dropped ids of records stored before (revised or withdrawn) not yet looked for in the sealed segments. */
  sealedDrops: Set<string>;
  /** The sealed segments read (once a record stored before is dropped): their JSON now, and whether it changed. */
  segments: Map<number, { entriesJson: string; changed: boolean }>;
  /** Entries dropped from the sealed segments. */
  sealedDropped: number;
  /** This window's entries' JSON, by advisory id (a later chunk's version of a record replaces an earlier one's). */
  added: Map<string, string>;
}

/** What a chunk reads of an advisory item it may replace (advisory-chunk.ts): the pending one if the window holds it. */
export type PendingAdvisory = { item: Item } | { deleted: true };

const newSlot = (stored: StoredPackage | undefined): PackageSlot => ({
  stored,
  dropped: new Set(),
  sealedDrops: new Set(),
  segments: new Map(),
  sealedDropped: 0,
  added: new Map(),
});

export class PackageWriteWindow {
  private readonly slots = new Map<string, PackageSlot>();
  private readonly advisories = new Map<string, PendingAdvisory>();
  private chars = 0;
  packagesWritten = 0;
  segmentsWritten = 0;

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
        this.slots.set(key, newSlot(held));
      }
      opened.push(key);
    }
    for (const item of await batchGet(unread.map(packageItemKey))) {
      const stored = await storedPackageOf(item);
      this.slots.set(String(item.packageKey), newSlot(stored));
      this.chars += stored.entriesJson.length;
    }
    const fresh: string[] = [];
    for (const key of opened) {
      if (!this.slots.has(key)) {
        this.slots.set(key, newSlot(undefined));
        fresh.push(key);
      }
    }
    return fresh;
  }

  /**
   * Drops the package's entry for each id (stored or added in this window), then adds `entries`. `storedIds`
   * (of `dropIds`) are records stored before: their entry may sit in a sealed segment, which
   * `dropFromSealed` then reads. A new record's id is dropped too, in case a run cut off before marking it
   * done had added it: from the package item's own entries only (a sealed copy is shadowed on read).
   */
  update(
    packageKey: string,
    dropIds: ReadonlySet<string>,
    entries: readonly MatchData[],
    storedIds: ReadonlySet<string> = new Set(),
  ): void {
    const slot = this.slots.get(packageKey);
    if (!slot) throw new Error(`package ${packageKey} was not opened in this window`);
    for (const id of dropIds) {
      if (slot.stored !== undefined) slot.dropped.add(id);
      if (slot.stored !== undefined && slot.stored.sealedSegments > 0 && storedIds.has(id)) slot.sealedDrops.add(id);
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

  /** Drops the pending sealed ids from the sealed segments, reading those not yet read (in one batched read). */
  async dropFromSealed(): Promise<void> {
    const pending = [...this.slots].filter(([, slot]) => slot.sealedDrops.size > 0);
    if (pending.length === 0) return;
    const unread = pending.flatMap(([key, slot]) =>
      Array.from({ length: slot.stored?.sealedSegments ?? 0 }, (_, segment) => segment)
        .filter((segment) => !slot.segments.has(segment))
        .map((segment) => packageSegmentKey(key, segment)),
    );
    for (const item of await batchGet(unread)) {
      const slot = this.slots.get(String(item.packageKey));
      const entriesJson = await entriesJsonOf(item);
      slot?.segments.set(Number(item.segment), { entriesJson, changed: false });
      this.chars += entriesJson.length;
    }
    for (const [, slot] of pending) {
      for (const [, segment] of slot.segments) {
        const kept = dropFromSegment(segment.entriesJson, slot.sealedDrops);
        if (!kept) continue;
        this.chars += kept.entriesJson.length - segment.entriesJson.length;
        segment.entriesJson = kept.entriesJson;
        segment.changed = true;
        slot.sealedDropped += kept.dropped;
      }
      slot.sealedDrops.clear();
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

  /**
   * Writes the new sealed segments, the package items, the rewritten segments, the journal naming the
   * packages, then the advisory items; empties the window.
   */
  async flush(): Promise<void> {
    if (this.slots.size === 0 && this.advisories.size === 0) return;
    await this.dropFromSealed();
    const touched = [...this.slots.keys()];
    let segmentPuts: Item[] = [];
    let puts: Item[] = [];
    let partChars = 0;
    const deletes: Key[] = [];
    const rewritten: Item[] = [];
    let written = new Map<string, StoredPackage>();
    const writePart = async () => {
      // A segment before the package item that counts it; one left by a cut here is overwritten by the next seal.
      await batchWrite(segmentPuts);
      await batchWrite(puts);
      this.segmentsWritten += segmentPuts.length;
      this.packagesWritten += puts.length;
      for (const [key, stored] of written) this.cache.written(key, stored);
      segmentPuts = [];
      puts = [];
      written = new Map();
      partChars = 0;
    };
    for (const [key, slot] of this.slots) {
      this.slots.delete(key);
      for (const [segment, { entriesJson, changed }] of slot.segments)
        if (changed) rewritten.push(await segmentItem(key, segment, entriesJson));
      if (slot.dropped.size === 0 && slot.added.size === 0) continue;
      const entries = mergedEntries(slot);
      const { open, sealed } = sealIfFull(entries);
      const firstSegment = slot.stored?.sealedSegments ?? 0;
      for (const [index, entriesJson] of sealed.entries()) {
        segmentPuts.push(await segmentItem(key, firstSegment + index, entriesJson));
        partChars += entriesJson.length;
      }
      const stored: StoredPackage = {
        entriesJson: arrayJson(open),
        sealedSegments: firstSegment + sealed.length,
        sealedEntries: (slot.stored?.sealedEntries ?? 0) - slot.sealedDropped + entries.length - open.length,
      };
      if (open.length > 0 || stored.sealedSegments > 0) {
        puts.push(await packageItem(key, stored, open.length));
        written.set(key, stored);
        partChars += stored.entriesJson.length;
        if (partChars >= WRITE_PART_CHARS) await writePart();
      } else if (slot.stored !== undefined) deletes.push(packageItemKey(key));
    }
    await writePart();
    await batchWrite(rewritten, deletes);
    this.segmentsWritten += rewritten.length;
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
}

/** The package item's own stored entries not dropped and the window's, as [id, JSON], in the order of their ids. */
function mergedEntries(slot: PackageSlot): EntryJson[] {
  const stored = slot.stored === undefined ? [] : (JSON.parse(slot.stored.entriesJson) as MatchData[]);
  const entries: [string, string][] = [];
  for (const entry of stored) if (!slot.dropped.has(entry.id)) entries.push([entry.id, JSON.stringify(entry)]);
  entries.push(...slot.added);
  return entries.sort((a, b) => a[0].localeCompare(b[0]));
}

/** One string attribute, inline or spilled to S3 (only an entry larger than a segment's bound gets that large). */
async function withEntries(base: Item, spillId: string, entriesJson: string): Promise<Item> {
  // One string attribute, not nested maps: a scan reads a thousand of these, and (un)marshalling
  // nested attribute maps was most of that read's cost (docs/scanning.md "Where scan time goes").
  if (Buffer.byteLength(entriesJson) <= MAX_INLINE_BYTES) return { ...base, entriesJson };
  return { ...base, spillKey: await spillToS3('package', spillId, JSON.parse(entriesJson) as unknown) };
}

function packageItem(key: string, stored: StoredPackage, ownEntries: number): Promise<Item> {
  const base = {
    ...packageItemKey(key),
    entity: 'CorpusPackage',
    packageKey: key,
    advisoryCount: ownEntries + stored.sealedEntries,
    ...(stored.sealedSegments > 0
      ? { sealedSegments: stored.sealedSegments, sealedEntries: stored.sealedEntries }
      : {}),
  };
  return withEntries(base, key, stored.entriesJson);
}

function segmentItem(key: string, segment: number, entriesJson: string): Promise<Item> {
  const base = { ...packageSegmentKey(key, segment), entity: 'CorpusPackageSegment', packageKey: key, segment };
  return withEntries(base, `${key}#SEG#${segment}`, entriesJson);
}
