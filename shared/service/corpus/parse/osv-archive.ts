/**
 * Reads OSV records from the two shapes databases publish them in: the per-
 * ecosystem `all.zip` of https://osv-vulnerabilities.storage.googleapis.com and
 * a directory tree of `<ID>.json` files (a git checkout of an advisory DB).
 * Both are generators so an importer can write as it reads.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import type { Advisory } from './advisory';
import { parseOsvAdvisory } from './osv';

export type OsvReadResult = { source: string; advisory: Advisory } | { source: string; error: string };

/**
 * Entries are inflated a window at a time (fflate's filter skips the rest), so
 * memory holds the compressed archive plus one window of JSON, not the whole
 * inflated database (npm's all.zip inflates to well over a gigabyte).
 */
export function* readOsvZip(zip: Uint8Array, windowSize = 2000): Generator<OsvReadResult> {
  let total = 0;
  unzipSync(zip, {
    filter: () => {
      total++;
      return false;
    },
  });
  const decoder = new TextDecoder('utf-8');
  for (let start = 0; start < total; start += windowSize) {
    let index = -1;
    const files = unzipSync(zip, {
      filter: (file) => {
        index++;
        return index >= start && index < start + windowSize && file.name.toLowerCase().endsWith('.json');
      },
    });
    for (const [name, bytes] of Object.entries(files))
      yield parseEntry(name, () => JSON.parse(decoder.decode(bytes)) as unknown);
  }
}

/** Every `*.json` below `dir`, in sorted path order so imports are reproducible. */
export function* readOsvDirectory(dir: string): Generator<OsvReadResult> {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* readOsvDirectory(path);
    else if (entry.isFile() && entry.name.toLowerCase().endsWith('.json')) {
      yield parseEntry(path, () => JSON.parse(readFileSync(path, 'utf8')) as unknown);
    }
  }
}

function parseEntry(source: string, read: () => unknown): OsvReadResult {
  try {
    return { source, advisory: parseOsvAdvisory(read()) };
  } catch (error) {
    return { source, error: error instanceof Error ? error.message : String(error) };
  }
}
