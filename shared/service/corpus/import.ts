/**
 * Corpus import (admin CLI `corpus import`, the scheduled refresh, first start).
 * Idempotent and incremental: an advisory whose normalised content is
 * unchanged is not written again; withdrawn advisories drop out; the package
 * items an advisory touches are rewritten with its new match data.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { keys, type Key } from '../data/keys';
import { batchGet, batchWrite, type Item } from '../data/table-client';
import { logger } from '../logger';
import { packageKey } from '../matching/component-identity';
import { splitEcosystem } from '../matching/ecosystems';
import { shortName } from '../matching/package-name';
import type { Advisory } from './parse/advisory';
import { aliasIdentifiers, aliasIndexWrites, scoresOf, type AliasChange } from './alias-severity';
import { parseEpssCsv, type EpssScores } from './parse/epss';
import { parseKevCatalog, type KevCatalog } from './parse/kev';
import { readOsvDirectory, readOsvZip, type OsvReadResult } from './parse/osv-archive';
import { PackageFilter, packageFilterStore } from './package-filter';
import { corpusChanges } from '../watch/corpus-changes';
import {
  MAX_INLINE_BYTES,
  packageEntries,
  packageItemKey,
  spillToS3,
  toMatchData,
  type MatchData,
} from './corpus-store';

export interface AdvisoryImportSummary {
  read: number;
  written: number;
  unchanged: number;
  withdrawn: number;
  errors: number;
  packagesWritten: number;
}

const CHUNK = 1000;

function contentHash(advisory: Advisory): string {
  return createHash('sha256').update(JSON.stringify(advisory)).digest('hex');
}

function packageKeysOf(advisory: Advisory): string[] {
  const result = new Set<string>();
  for (const affected of advisory.affected) {
    const split = splitEcosystem(affected.ecosystem);
    if (split) result.add(packageKey(split.ecosystem, affected.name));
  }
  return [...result];
}

/** The advisory restricted to the affected entries of one package. */
function matchDataFor(advisory: Advisory, key: string): MatchData {
  const data = toMatchData(advisory);
  return {
    ...data,
    affected: data.affected.filter((affected) => {
      const split = splitEcosystem(affected.ecosystem);
      return split !== null && packageKey(split.ecosystem, affected.name) === key;
    }),
  };
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;

/** The CVE ids a record is known by. */
function cveIdsOf(advisory: Advisory): string[] {
  return [...new Set([advisory.cveId, ...aliasIdentifiers(advisory)])].filter((id) => CVE_ID.test(id)).sort();
}

/**
 * The CVE index: an item per (CVE, record naming it) with the record's package keys, so that a KEV
 * listing or a score change of a CVE finds the packages whose SBOMs to re-evaluate. Each item is the
 * record's own: no read-modify-write, a changed record replaces its items and drops those it no longer names.
 */
function cveIndexWrites(
  changed: readonly Advisory[],
  removed: readonly Item[],
  existing: ReadonlyMap<string, Item>,
  withdrawnIds: ReadonlyMap<string, readonly string[]>,
): { puts: Item[]; deletes: Key[] } {
  const puts: Item[] = [];
  const deletes: Key[] = [];
  const dropStale = (advisoryId: string, keep: ReadonlySet<string>, before: readonly string[]) => {
    for (const cveId of before) if (!keep.has(cveId)) deletes.push(keys.corpusCveAdvisory(cveId, advisoryId));
  };
  for (const advisory of changed) {
    const cveIds = cveIdsOf(advisory);
    for (const cveId of cveIds)
      puts.push({
        ...keys.corpusCveAdvisory(cveId, advisory.id),
        entity: 'CorpusCveAdvisory',
        cveId,
        advisoryId: advisory.id,
        packageKeys: packageKeysOf(advisory),
      });
    dropStale(advisory.id, new Set(cveIds), (existing.get(advisory.id)?.cveIds as string[] | undefined) ?? []);
  }
  for (const item of removed) {
    const advisoryId = String(item.advisoryId);
    const before = [
      ...((item.cveIds as string[] | undefined) ?? []),
      ...(withdrawnIds.get(advisoryId) ?? []).filter((id) => CVE_ID.test(id)),
    ];
    dropStale(advisoryId, new Set(), [...new Set(before)]);
  }
  return { puts, deletes };
}

async function packageItem(key: string, entries: MatchData[]): Promise<Item> {
  const base = { ...packageItemKey(key), entity: 'CorpusPackage', packageKey: key, advisoryCount: entries.length };
  const inline = JSON.stringify(entries);
  // One string attribute, not nested maps: a scan reads a thousand of these, and (un)marshalling
  // nested attribute maps was most of that read's cost (docs/scanning.md "Where scan time goes").
  if (Buffer.byteLength(inline) <= MAX_INLINE_BYTES) return { ...base, entriesJson: inline };
  return { ...base, spillKey: await spillToS3('package', key, entries) };
}

async function importChunk(advisories: Advisory[], summary: AdvisoryImportSummary): Promise<void> {
  const existing = new Map(
    (await batchGet(advisories.map((advisory) => keys.corpusAdvisory(advisory.id)))).map((item) => [
      String(item.advisoryId),
      item,
    ]),
  );
  const changed: Advisory[] = [];
  const removed: Item[] = [];
  for (const advisory of advisories) {
    const previous = existing.get(advisory.id);
    if (advisory.withdrawn !== null) {
      summary.withdrawn += 1;
      if (previous) removed.push(previous);
    } else if (
      previous?.contentHash === contentHash(advisory) &&
      previous.aliasIds !== undefined &&
      previous.cveIds !== undefined
    ) {
      // An item without `aliasIds` or `cveIds` predates the alias or CVE index: imported once more to join it.
      summary.unchanged += 1;
    } else {
      changed.push(advisory);
    }
  }
  if (changed.length === 0 && removed.length === 0) return;

  const dropIds = new Set([
    ...changed.map((advisory) => advisory.id),
    ...removed.map((item) => String(item.advisoryId)),
  ]);
  const touched = new Set<string>();
  for (const item of [
    ...removed,
    ...changed.map((advisory) => existing.get(advisory.id)).filter((item): item is Item => item !== undefined),
  ]) {
    for (const key of (item.packageKeys as string[] | undefined) ?? []) touched.add(key);
  }
  const additions = new Map<string, MatchData[]>();
  for (const advisory of changed) {
    for (const key of packageKeysOf(advisory)) {
      touched.add(key);
      additions.set(key, [...(additions.get(key) ?? []), matchDataFor(advisory, key)]);
    }
  }
  const current = new Map<string, MatchData[]>();
  for (const item of await batchGet([...touched].map(packageItemKey)))
    current.set(String(item.packageKey), await packageEntries(item));

  const puts: Item[] = [];
  const deletes = [];
  const newPackages: string[] = [];
  for (const key of touched) {
    const before = current.get(key);
    if (!before) newPackages.push(key);
    const entries = [...(before ?? []).filter((entry) => !dropIds.has(entry.id)), ...(additions.get(key) ?? [])].sort(
      (a, b) => a.id.localeCompare(b.id),
    );
    if (entries.length > 0) puts.push(await packageItem(key, entries));
    else if (before) deletes.push(packageItemKey(key));
  }
  summary.packagesWritten += puts.length;

  // New packages join their short-name item, which CPE and name-only matching read.
  const byShortName = new Map<string, string[]>();
  for (const key of newPackages) {
    const short = shortName(key.slice(key.indexOf('\u0000') + 1));
    byShortName.set(short, [...(byShortName.get(short) ?? []), key]);
  }
  const shortItems = new Map(
    (await batchGet([...byShortName.keys()].map((short) => keys.corpusShortName(short)))).map((item) => [
      String(item.shortName),
      item,
    ]),
  );
  for (const [short, added] of byShortName) {
    const known = (shortItems.get(short)?.packageKeys as string[] | undefined) ?? [];
    puts.push({
      ...keys.corpusShortName(short),
      entity: 'CorpusShortName',
      shortName: short,
      packageKeys: [...new Set([...known, ...added])].sort(),
    });
  }

  const advisoryPuts: Item[] = [];
  for (const advisory of changed) {
    const hash = contentHash(advisory);
    const record = {
      ...keys.corpusAdvisory(advisory.id),
      entity: 'CorpusAdvisory',
      advisoryId: advisory.id,
      cveId: advisory.cveId,
      modified: advisory.modified,
      contentHash: hash,
      packageKeys: packageKeysOf(advisory),
      aliasIds: aliasIdentifiers(advisory),
      cveIds: cveIdsOf(advisory),
    };
    const full = JSON.stringify(advisory);
    advisoryPuts.push(
      Buffer.byteLength(full) <= MAX_INLINE_BYTES
        ? { ...record, advisory }
        : { ...record, spillKey: await spillToS3('advisory', advisory.id, advisory) },
    );
  }
  // Items written before the alias index existed have no `aliasIds`: they were never in it. A withdrawn
  // record still lists its aliases: those items are cleaned too, in case an earlier run was cut off
  // after writing them but before its advisory item.
  const withdrawnIds = new Map(
    advisories
      .filter((advisory) => advisory.withdrawn !== null)
      .map((advisory) => [advisory.id, aliasIdentifiers(advisory)]),
  );
  const aliasChanges: AliasChange[] = [
    ...changed.map((advisory) => ({
      advisoryId: advisory.id,
      before: (existing.get(advisory.id)?.aliasIds as string[] | undefined) ?? [],
      after: { identifiers: aliasIdentifiers(advisory), scores: scoresOf(advisory) },
    })),
    ...removed.map((item) => ({
      advisoryId: String(item.advisoryId),
      before: [
        ...new Set([
          ...((item.aliasIds as string[] | undefined) ?? []),
          ...(withdrawnIds.get(String(item.advisoryId)) ?? []),
        ]),
      ],
      after: null,
    })),
  ];
  const aliasWrites = await aliasIndexWrites(aliasChanges);
  puts.push(...aliasWrites.puts);
  deletes.push(...aliasWrites.deletes);
  const cveWrites = cveIndexWrites(changed, removed, existing, withdrawnIds);
  puts.push(...cveWrites.puts);
  deletes.push(...cveWrites.deletes);
  // The advisory items go last: their content hash marks the work done, so an import cut off before
  // them redoes the package and alias items on the next run instead of skipping them as unchanged.
  await batchWrite(puts, deletes);
  // Recorded before the advisory items mark the chunk done: a run cut off here records it again, never not at all.
  await corpusChanges.record('osv', touched, []);
  await batchWrite(
    advisoryPuts,
    removed.map((item) => keys.corpusAdvisory(String(item.advisoryId))),
  );
  summary.written += changed.length;
}

export async function importAdvisories(source: Iterable<OsvReadResult>): Promise<AdvisoryImportSummary> {
  const summary: AdvisoryImportSummary = {
    read: 0,
    written: 0,
    unchanged: 0,
    withdrawn: 0,
    errors: 0,
    packagesWritten: 0,
  };
  let chunk: Advisory[] = [];
  const seen = new Set<string>();
  // Every package this import names, unchanged ones included. A corpus that had OSV data before the
  // filter existed gets none: this import alone cannot list the packages earlier imports wrote.
  const filter =
    (await packageFilterStore.exists()) || !(await completedSources()).has('osv') ? new PackageFilter() : undefined;
  for (const result of source) {
    if ('error' in result) {
      summary.errors += 1;
      logger.warn('skipped an OSV record', { source: result.source, error: result.error });
      continue;
    }
    // One advisory per chunk: a duplicate id in one import would race with itself.
    if (seen.has(result.advisory.id)) continue;
    seen.add(result.advisory.id);
    summary.read += 1;
    if (filter) for (const key of packageKeysOf(result.advisory)) filter.add(key);
    chunk.push(result.advisory);
    if (chunk.length >= CHUNK) {
      await importChunk(chunk, summary);
      chunk = [];
    }
  }
  if (chunk.length > 0) await importChunk(chunk, summary);
  // Before the completion record: a scan must never skip a package an import already wrote.
  if (filter) await packageFilterStore.add(filter);
  await recordImport('osv', { importedAt: new Date().toISOString() });
  return summary;
}

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

/** EPSS is republished daily for every CVE: a file for a score date already imported is skipped whole. */
export async function importEpss(scores: EpssScores): Promise<{ rows: number; written: number; skipped: boolean }> {
  const [previous] = await batchGet([keys.corpusSourceImport('epss')]);
  if (scores.scoreDate && previous?.scoreDate === scores.scoreDate && previous?.modelVersion === scores.modelVersion) {
    return { rows: scores.scores.size, written: 0, skipped: true };
  }
  const puts = [...scores.scores].map(([cveId, score]) => ({
    ...keys.corpusEpss(cveId),
    entity: 'CorpusEpss',
    cveId,
    epss: score.epss,
    percentile: score.percentile,
    scoreDate: scores.scoreDate,
    modelVersion: scores.modelVersion,
  }));
  await batchWrite(puts);
  await recordImport('epss', {
    scoreDate: scores.scoreDate,
    modelVersion: scores.modelVersion,
    importedAt: new Date().toISOString(),
  });
  return { rows: scores.scores.size, written: puts.length, skipped: false };
}

export type CorpusSource = 'osv' | 'kev' | 'epss';

/**
 * Written as the last step of a source's import, never before: its presence
 * means one import of that source ran to the end (a crash mid-import leaves
 * it absent, and `completeCorpusImport` runs that source again).
 */
async function recordImport(source: CorpusSource, fields: Record<string, unknown>): Promise<void> {
  await batchWrite([{ ...keys.corpusSourceImport(source), entity: 'CorpusSourceImport', source, ...fields }]);
}

/** The sources at least one import has completed for. */
export async function completedSources(): Promise<Set<CorpusSource>> {
  const items = await batchGet((['osv', 'kev', 'epss'] as const).map((source) => keys.corpusSourceImport(source)));
  return new Set(items.map((item) => item.source as CorpusSource));
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

/** Imports each path in turn and reports what each one did. */
export async function importCorpusFiles(paths: string[]) {
  const results: Record<string, unknown>[] = [];
  for (const path of paths) {
    const kind = detectCorpusFile(path);
    switch (kind) {
      case 'osv-directory':
        results.push({ path, kind, ...(await importAdvisories(readOsvDirectory(path))) });
        break;
      case 'osv-zip':
        results.push({ path, kind, ...(await importAdvisories(readOsvZip(readFileSync(path)))) });
        break;
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
