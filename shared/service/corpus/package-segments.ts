/**
 * A package's entries in bounded parts (docs/corpus-at-scale.md "Package entries in sealed segments"): the
 * package item holds the newest entries, up to OPEN_ENTRIES_CHARS, and the count of its sealed segments;
 * when a write would take it past that bound, all its entries move into sealed segment items (written
 * once, numbered from the count on) and it starts empty. An import window then rewrites a few kilobytes
 * per package it touches, not all the package's entries.
 *
 * Reading: the segments in order, then the package item; an id found twice is taken from the later place
 * (a run cut off after sealing a record's entry but before marking the record done redoes the record, and
 * its entry is then added again to the package item). Segments numbered at or past the count are not read:
 * a run cut off between writing a segment and the package item counting it leaves one, and the next seal
 * overwrites it.
 */
import type { MatchData } from './corpus-store';

/**
 * The package item's entries JSON at most before they are sealed. Every window that touches a package
 * rewrites this part, so it is the bytes written per touch; smaller means more segments for a scan to
 * read (a busy package of 1 MB of entries: about 120 segments, two batched reads). At 8 KB most packages
 * (a few entries of about 1 KB) never seal, and their single item is read as before.
 */
export const OPEN_ENTRIES_CHARS = 8 * 1024;

/**
 * A sealed segment's entries JSON at most, when a window seals more at once (a package's first import,
 * an old item of the previous layout): at 3 bytes per character at most, well under DynamoDB's item limit.
 */
export const SEGMENT_CHARS = 96 * 1024;

/** What a writer holds of a stored package item. */
export interface StoredPackage {
  /** The package item's own entries, as a JSON array. */
  entriesJson: string;
  /** Segments 0 … sealedSegments-1 are sealed. */
  sealedSegments: number;
  /** Entries in the sealed segments (the item's `advisoryCount` counts both parts). */
  sealedEntries: number;
}

/** An entry as [advisory id, its JSON]. */
export type EntryJson = readonly [string, string];

export const arrayJson = (entries: readonly EntryJson[]): string => `[${entries.map(([, json]) => json).join(',')}]`;

/**
 * The package item's entries after a write, and the segments to seal first: all of them when their JSON
 * would outgrow OPEN_ENTRIES_CHARS, cut into segments of at most SEGMENT_CHARS (an entry larger than
 * that is a segment of its own).
 */
export function sealIfFull(entries: readonly EntryJson[]): { open: readonly EntryJson[]; sealed: string[] } {
  if (arrayJson(entries).length <= OPEN_ENTRIES_CHARS) return { open: entries, sealed: [] };
  const sealed: string[] = [];
  let part: EntryJson[] = [];
  let chars = 2;
  for (const entry of entries) {
    if (part.length > 0 && chars + entry[1].length + 1 > SEGMENT_CHARS) {
      sealed.push(arrayJson(part));
      part = [];
      chars = 2;
    }
    part.push(entry);
    chars += entry[1].length + 1;
  }
  if (part.length > 0) sealed.push(arrayJson(part));
  return { open: [], sealed };
}

/** A sealed segment without the entries of `ids`: its new JSON and how many were dropped (none: undefined). */
export function dropFromSegment(
  entriesJson: string,
  ids: ReadonlySet<string>,
): { entriesJson: string; dropped: number } | undefined {
  const entries = JSON.parse(entriesJson) as MatchData[];
  const kept = entries.filter((entry) => !ids.has(entry.id));
  if (kept.length === entries.length) return undefined;
  return { entriesJson: JSON.stringify(kept), dropped: entries.length - kept.length };
}

/** A package's entries from its sealed segments (in order) and its own, each id once (the later place wins), by id. */
export function mergeEntries(segments: readonly (readonly MatchData[])[], own: readonly MatchData[]): MatchData[] {
  if (segments.length === 0) return [...own];
  const byId = new Map<string, MatchData>();
  for (const entries of [...segments, own]) for (const entry of entries) byId.set(entry.id, entry);
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}
