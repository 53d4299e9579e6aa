/**
 * Corpus import (admin CLI `corpus import`, the scheduled refresh, first start).
 * Idempotent and incremental: an advisory whose normalised content is
 * unchanged is not written again; withdrawn advisories drop out; the package
 * items an advisory touches are rewritten with its new match data.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { keys } from '../data/keys';
import { batchGet, batchWrite } from '../data/table-client';
import { EPSS_LAYOUT, writeEpssBuckets } from './epss-buckets';
import { parseEpssCsv, type EpssScores } from './parse/epss';
import { parseKevCatalog, type KevCatalog } from './parse/kev';
import { readOsvDirectory } from './parse/osv-archive';
import { fileSource } from './parse/zip-entries';
import { importAdvisories, importOsvArchive, type ImportProgress } from './osv-import';
import { completedSources, recordImport, type CorpusSource } from './source-imports';
import { corpusChanges } from '../watch/corpus-changes';
import { ECOSYSTEMS } from '../matching/ecosystems';
import { feedName } from './feed-state';
import { holdingFeeds } from './refresh-lease';

export { importAdvisories, type AdvisoryImportSummary } from './osv-import';
export { completedSources, type CorpusSource } from './source-imports';

/**
 * `removeUnlisted`: the catalog is CISA's whole feed (the scheduled refresh), so an entry of the previous
 * feed that is not in it was removed from KEV. A file given to `corpus import` may be a part of the
 * catalog and only adds and updates.
 */
export async function importKev(
  catalog: KevCatalog,
  { removeUnlisted = false }: { removeUnlisted?: boolean } = {},
): Promise<{ entries: number; written: number; unchanged: number; removed: number }> {
  const entries = [...catalog.entries.values()];
  const [existingItems, [previousImport]] = await Promise.all([
    batchGet(entries.map((entry) => keys.corpusKev(entry.cveID))),
    batchGet([keys.corpusSourceImport('kev')]),
  ]);
  const existing = new Map(existingItems.map((item) => [String(item.cveId), item]));
  // CISA removes an entry now and then (a misattribution): the previous catalog's list says which.
  const listed = new Set(entries.map((entry) => entry.cveID));
  const previouslyListed = (previousImport?.cveIds as string[] | undefined) ?? [];
  const removed = removeUnlisted ? previouslyListed.filter((cveId) => !listed.has(cveId)) : [];
  const puts = entries
    .map((entry) => ({
      ...keys.corpusKev(entry.cveID),
      entity: 'CorpusKev',
      cveId: entry.cveID,
      dateAdded: entry.dateAdded,
      dueDate: entry.dueDate,
      knownRansomwareCampaignUse: entry.knownRansomwareCampaignUse,
      vendorProject: entry.vendorProject,
      product: entry.product,
      catalogVersion: catalog.catalogVersion,
    }))
    .filter((item) => {
      const previous = existing.get(item.cveId);
      return (
        !previous ||
        previous.dateAdded !== item.dateAdded ||
        previous.dueDate !== item.dueDate ||
        previous.knownRansomwareCampaignUse !== item.knownRansomwareCampaignUse
      );
    });
  await batchWrite(
    puts,
    removed.map((cveId) => keys.corpusKev(cveId)),
  );
  await corpusChanges.record('kev', [], [...puts.map((item) => item.cveId), ...removed]);
  await recordImport('kev', {
    catalogVersion: catalog.catalogVersion,
    importedAt: new Date().toISOString(),
    cveIds: [...new Set([...previouslyListed.filter((cveId) => !removed.includes(cveId)), ...listed])].sort(),
  });
  return {
    entries: entries.length,
    written: puts.length,
    unchanged: entries.length - puts.length,
    removed: removed.length,
  };
}

/**
 * EPSS is republished daily for every CVE: a file for a score date already imported is skipped whole, unless the
 * store's items are of another layout (per-CVE items before buckets), which the import rewrites as buckets. The
 * per-CVE items of a store imported before buckets are left in place: unread once the record names buckets.
 */
export async function importEpss(
  scores: EpssScores,
): Promise<{ rows: number; written: number; deleted: number; skipped: boolean }> {
  const [previous] = await batchGet([keys.corpusSourceImport('epss')]);
  if (
    scores.scoreDate &&
    previous?.scoreDate === scores.scoreDate &&
    previous?.modelVersion === scores.modelVersion &&
    previous?.layout === EPSS_LAYOUT
  ) {
    return { rows: scores.scores.size, written: 0, deleted: 0, skipped: true };
  }
  const { written, deleted } = await writeEpssBuckets(scores);
  await recordImport('epss', {
    scoreDate: scores.scoreDate,
    modelVersion: scores.modelVersion,
    layout: EPSS_LAYOUT,
    importedAt: new Date().toISOString(),
  });
  return { rows: scores.scores.size, written, deleted, skipped: false };
}

/**
 * Imports each given source whose import never completed (first start, or a
 * start that died mid-import), and leaves completed ones alone. Every import
 * is idempotent, so re-running a half-done source only writes what is missing.
 */
export async function completeCorpusImport(sources: { source: CorpusSource; path: string }[]) {
  const done = await completedSources();
  return importCorpusFiles(sources.filter((entry) => !done.has(entry.source)).map((entry) => entry.path));
}

export type CorpusFileKind = 'osv-zip' | 'osv-directory' | 'kev' | 'epss' | 'osv-file';

/** Recognises a corpus file by its shape, not only its name. */
export function detectCorpusFile(path: string): CorpusFileKind {
  if (statSync(path).isDirectory()) return 'osv-directory';
  const name = basename(path).toLowerCase();
  if (name.endsWith('.zip')) return 'osv-zip';
  if (name.endsWith('.csv') || name.endsWith('.csv.gz')) return 'epss';
  if (name.endsWith('.json')) {
    const head = readFileSync(path, 'utf8').slice(0, 4096);
    if (head.includes('"catalogVersion"') || (head.includes('"vulnerabilities"') && head.includes('"cveID"')))
      return 'kev';
    return 'osv-file';
  }
  throw new Error(`${path}: not a recognised corpus file (OSV .zip or directory, KEV .json, EPSS .csv or .csv.gz)`);
}

export type CorpusFileProgress = ImportProgress & { path: string };

/** Imports each path in turn and reports what each one did; `onProgress` hears of each OSV chunk. */
export async function importCorpusFiles(
  paths: string[],
  options: { onProgress?: (progress: CorpusFileProgress) => void } = {},
) {
  const results: Record<string, unknown>[] = [];
  for (const path of paths) {
    const kind = detectCorpusFile(path);
    const onProgress = (progress: ImportProgress) => options.onProgress?.({ path, ...progress });
    switch (kind) {
      case 'osv-directory':
        results.push({ path, kind, ...(await importAdvisories(readOsvDirectory(path), { onProgress })) });
        break;
      case 'osv-zip': {
        const source = await fileSource(path);
        try {
          // The file's path names the archive whose bucket fingerprints a re-import of it compares.
          const scope = `file:${resolve(path)}`;
          // Nothing is stored at a checkpoint here (a re-run starts over and skips what is done by content
          // hash), so the writes follow the run's memory bound alone (package-write-window.ts).
          const unit = await importOsvArchive(source, { onProgress, scope, checkpointRecords: Infinity });
          const { next: _next, done: _done, errorBuckets: _errorBuckets, ...summary } = unit;
          results.push({ path, kind, ...summary });
        } finally {
          await source.close?.();
        }
        break;
      }
      case 'osv-file': {
        const { parseOsvAdvisory } = await import('./parse/osv');
        const advisory = parseOsvAdvisory(JSON.parse(readFileSync(path, 'utf8')));
        results.push({ path, kind, ...(await importAdvisories([{ source: path, advisory }])) });
        break;
      }
      case 'kev':
        results.push({ path, kind, ...(await importKev(parseKevCatalog(JSON.parse(readFileSync(path, 'utf8'))))) });
        break;
      case 'epss':
        results.push({ path, kind, ...(await importEpss(parseEpssCsv(readFileSync(path)))) });
        break;
    }
  }
  return { imported: results };
}

/** The refresh's feeds whose items importing these files writes: an OSV file may name any ecosystem. */
export function feedsWrittenBy(paths: readonly string[]): string[] {
  const feeds = new Set<string>();
  for (const path of paths) {
    const kind = detectCorpusFile(path);
    if (kind === 'kev' || kind === 'epss') feeds.add(feedName({ source: kind }));
    else for (const ecosystem of ECOSYSTEMS) feeds.add(feedName({ source: 'osv', ecosystem }));
  }
  return [...feeds];
}

/**
 * `importCorpusFiles` holding the leases of the feeds it writes (`admin corpus import`): a scheduled
 * refresh of those feeds waits for it, and it refuses to start while one runs. An import run holds the
 * package items it wrote in memory (package-item-cache.ts), which is right only while it is their one writer.
 */
export async function importCorpusFilesExclusively(
  paths: string[],
  options: { onProgress?: (progress: CorpusFileProgress) => void } = {},
) {
  return holdingFeeds(feedsWrittenBy(paths), async (held) => {
    const result = await importCorpusFiles(paths, {
      onProgress: (progress) => {
        held.assertHeld();
        options.onProgress?.(progress);
      },
    });
    held.assertHeld();
    return result;
  });
}
