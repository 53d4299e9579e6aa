/**
 * The package items one import run wrote, as their own entries' JSON and sealed part: a later chunk of
 * the same run that touches the package again (a busy package is in nearly every chunk of a large
 * archive) takes them from here instead of reading back the item it just wrote. Read back, such an item
 * costs the engine a read, a parse and a response as large as the write, and the importing process a
 * parse of that response (docs/corpus-at-scale.md).
 *
 * One run is the only writer of package items while it runs (the scheduled refresh holds the feed's
 * lease; refresh-lease.ts), so what it wrote is what the table holds. Bounded by the JSON's length:
 * the packages written longest ago leave first and are read from the table again when touched
 * (32 M characters: more than one chunk's package items at 520,000 records, about 22 MB, so the busy
 * packages, rewritten every chunk, stay).
 */
import type { StoredPackage } from './package-segments';

export const PACKAGE_CACHE_CHARS = 32 * 1024 * 1024;

export class PackageItemCache {
  private readonly entries = new Map<string, StoredPackage>();
  private chars = 0;

  constructor(private readonly limit = PACKAGE_CACHE_CHARS) {}

  /** The package item this run last wrote, if still held. */
  get(packageKey: string): StoredPackage | undefined {
    return this.entries.get(packageKey);
  }

  /** The package item was written with these entries (their JSON, as stored or spilled) and sealed part. */
  written(packageKey: string, stored: StoredPackage): void {
    this.forget(packageKey);
    if (stored.entriesJson.length > this.limit) return;
    this.entries.set(packageKey, stored);
    this.chars += stored.entriesJson.length;
    for (const [key, held] of this.entries) {
      if (this.chars <= this.limit) break;
      this.entries.delete(key);
      this.chars -= held.entriesJson.length;
    }
  }

  /** The item was deleted, or its write failed: read it from the table next time. */
  forget(packageKey: string): void {
    const held = this.entries.get(packageKey);
    if (held === undefined) return;
    this.entries.delete(packageKey);
    this.chars -= held.entriesJson.length;
  }
}
