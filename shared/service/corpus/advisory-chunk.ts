/**
 * One chunk of an OSV import (osv-import.ts reads the records and cuts them into chunks): its
 * short-name and alias items are written now; its package entries and advisory items go
 * into the run's window (package-write-window.ts), written with it, advisory items last. An advisory
 * whose normalised content is unchanged is not written again; withdrawn advisories drop out; the
 * package items an advisory touches are rewritten with its new match data.
 */
import { createHash } from 'node:crypto';
import { keys, type Key } from '../data/keys';
import { batchGet, batchWrite, type Item } from '../data/table-client';
import { packageKey } from '../matching/component-identity';
import { splitEcosystem } from '../matching/ecosystems';
import { shortName } from '../matching/package-name';
import type { Advisory } from './parse/advisory';
import {
  aliasIdentifiers,
  aliasIndexWrites,
  cveIdsOf,
  scoresOf,
  type AliasChange,
  type RecordScores,
} from './alias-severity';
import { CVE_ID } from '../matching/cve-id';
import { toMatchData, type MatchData } from './corpus-store';
import { legacyCveIndexKeys } from './cve-packages';
import type { PackageWriteWindow } from './package-write-window';

/** What the chunk reads of an advisory item it may replace: not the advisory itself. */
const EXISTING_ADVISORY_FIELDS = [
  'advisoryId',
  'contentHash',
  'packageKeys',
  'aliasIds',
  'cveIds',
  'packagesInAlias',
] as const;

export interface AdvisoryImportSummary {
  read: number;
  written: number;
  unchanged: number;
  withdrawn: number;
  errors: number;
  packagesWritten: number;
}

export function emptyImportSummary(): AdvisoryImportSummary {
  return { read: 0, written: 0, unchanged: 0, withdrawn: 0, errors: 0, packagesWritten: 0 };
}

/** The hash over the record's JSON that marks it unchanged on its advisory item. */
function contentHash(advisory: Advisory): string {
  return createHash('sha256').update(JSON.stringify(advisory)).digest('hex');
}

/** About what an advisory item holds, in characters, for the window's memory bound. */
function approximateChars(item: {
  scoresJson?: string;
  packageKeys: string[];
  aliasIds: string[];
  cveIds: string[];
}): number {
  const listed = [...item.packageKeys, ...item.aliasIds, ...item.cveIds].reduce(
    (sum, value) => sum + value.length + 3,
    0,
  );
  return 256 + listed + (item.scoresJson?.length ?? 0);
}

/** What a changed record's items are built from, worked out once per record. */
interface ChangedRecord {
  advisory: Advisory;
  hash: string;
  scores: RecordScores | null;
  packageKeys: string[];
  aliasIds: string[];
  cveIds: string[];
}

export function packageKeysOf(advisory: Advisory): string[] {
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

/**
 * Imports one chunk into the run's window (package-write-window.ts): the short-name and alias items are
 * written now, the package items and advisory items when the window is.
 */
export async function importChunk(
  advisories: Advisory[],
  summary: AdvisoryImportSummary,
  window: PackageWriteWindow,
): Promise<void> {
  const existing = new Map(
    (
      await batchGet(
        advisories
          .filter((advisory) => !window.pendingAdvisory(advisory.id))
          .map((advisory) => keys.corpusAdvisory(advisory.id)),
        { projection: EXISTING_ADVISORY_FIELDS },
      )
    ).map((item) => [String(item.advisoryId), item]),
  );
  // A record an earlier chunk of this window wrote (or removed) is compared with that version.
  for (const advisory of advisories) {
    const pending = window.pendingAdvisory(advisory.id);
    if (pending && 'item' in pending) existing.set(advisory.id, pending.item);
  }
  const changed: ChangedRecord[] = [];
  const removed: Item[] = [];
  for (const advisory of advisories) {
    const previous = existing.get(advisory.id);
    if (advisory.withdrawn !== null) {
      summary.withdrawn += 1;
      if (previous) removed.push(previous);
      continue;
    }
    const hash = contentHash(advisory);
    if (previous?.contentHash === hash && previous.aliasIds !== undefined && previous.cveIds !== undefined) {
      // An item without `aliasIds` or `cveIds` predates the alias or CVE index: imported once more to join it.
      // One with them but without `packagesInAlias` is left as it is (its CVE index items are still read).
      summary.unchanged += 1;
    } else {
      const aliasIds = aliasIdentifiers(advisory);
      changed.push({
        advisory,
        hash,
        scores: scoresOf(advisory),
        packageKeys: packageKeysOf(advisory),
        aliasIds,
        cveIds: cveIdsOf(advisory),
      });
    }
  }
  if (changed.length === 0 && removed.length === 0) return;

  // Per package: the ids whose entry it may hold (the records' previous packages and their new ones), those
  // of records stored before (their entry may be in a sealed segment), and the new entries.
  const drops = new Map<string, Set<string>>();
  const storedDrops = new Map<string, Set<string>>();
  const dropFrom = (key: string, id: string, from = drops) => {
    const ids = from.get(key);
    if (ids) ids.add(id);
    else from.set(key, new Set([id]));
  };
  for (const item of [
    ...removed,
    ...changed.map(({ advisory }) => existing.get(advisory.id)).filter((item): item is Item => item !== undefined),
  ]) {
    for (const key of (item.packageKeys as string[] | undefined) ?? []) {
      dropFrom(key, String(item.advisoryId));
      dropFrom(key, String(item.advisoryId), storedDrops);
    }
  }
  const additions = new Map<string, MatchData[]>();
  for (const { advisory, packageKeys } of changed) {
    for (const key of packageKeys) {
      dropFrom(key, advisory.id);
      const entry = matchDataFor(advisory, key);
      const added = additions.get(key);
      if (added) added.push(entry);
      else additions.set(key, [entry]);
    }
  }
  const newPackages = await window.open(drops.keys());
  for (const [key, ids] of drops) window.update(key, ids, additions.get(key) ?? [], storedDrops.get(key));
  await window.dropFromSealed();

  const puts: Item[] = [];
  const deletes: Key[] = [];
  // New packages join their short-name item, which CPE and name-only matching read.
  const byShortName = new Map<string, string[]>();
  for (const key of newPackages) {
    if (!additions.has(key)) continue;
    const short = shortName(key.slice(key.indexOf('\u0000') + 1));
    const named = byShortName.get(short);
    if (named) named.push(key);
    else byShortName.set(short, [key]);
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

  for (const { advisory, hash, scores, packageKeys, aliasIds, cveIds } of changed) {
    // What is read back, not the record: its matching data is in its packages' entries, and a scan
    // borrowing its scores for an alias reads `scoresJson` (alias-severity.ts). The record's text (details,
    // references) is read by nothing, and was over a quarter of the bytes a full import wrote
    // (docs/corpus-at-scale.md "Stored form").
    const item = {
      ...keys.corpusAdvisory(advisory.id),
      entity: 'CorpusAdvisory',
      advisoryId: advisory.id,
      cveId: advisory.cveId,
      modified: advisory.modified,
      contentHash: hash,
      packageKeys,
      aliasIds,
      cveIds,
      // Its package keys are in its CVEs' alias items, not in CVE index items (cve-packages.ts).
      packagesInAlias: true,
      ...(scores ? { scoresJson: JSON.stringify(scores) } : {}),
    };
    window.putAdvisory(item, approximateChars(item));
  }
  for (const item of removed) window.deleteAdvisory(String(item.advisoryId));
  // `aliasIds` names the record's own id too: an item written before records left their own id's item
  // may still hold its entry there; `cveIds` names the CVEs whose items hold its package keys. Items
  // written before the alias index existed have no `aliasIds`: they were never in it. A withdrawn record
  // still lists its aliases and CVEs: those items are cleaned too, in case an earlier run was cut off
  // after writing them but before its advisory item.
  const indexedUnder = (item: Item | undefined, alsoNamed: readonly string[] = []) => [
    ...new Set([
      ...((item?.aliasIds as string[] | undefined) ?? []),
      ...((item?.cveIds as string[] | undefined) ?? []),
      ...alsoNamed,
    ]),
  ];
  const withdrawnIds = new Map(
    advisories
      .filter((advisory) => advisory.withdrawn !== null)
      .map((advisory) => [advisory.id, [...aliasIdentifiers(advisory), ...cveIdsOf(advisory)]]),
  );
  const aliasChanges: AliasChange[] = [
    ...changed.map(({ advisory, aliasIds, cveIds, packageKeys, scores }) => ({
      advisoryId: advisory.id,
      before: indexedUnder(existing.get(advisory.id)),
      after: { identifiers: aliasIds, scores, cveIds, packageKeys },
    })),
    ...removed.map((item) => ({
      advisoryId: String(item.advisoryId),
      before: indexedUnder(item, withdrawnIds.get(String(item.advisoryId))),
      after: null,
    })),
  ];
  const aliasWrites = await aliasIndexWrites(aliasChanges);
  puts.push(...aliasWrites.puts);
  deletes.push(...aliasWrites.deletes);
  // A record stored before its package keys went into alias items drops its CVE index items.
  for (const { advisory } of changed) deletes.push(...legacyCveIndexKeys(advisory.id, existing.get(advisory.id)));
  for (const item of removed) {
    const alsoNamed = (withdrawnIds.get(String(item.advisoryId)) ?? []).filter((id) => CVE_ID.test(id));
    deletes.push(...legacyCveIndexKeys(String(item.advisoryId), item, alsoNamed));
  }
  // The index items go now; the package and advisory items with the window, the advisory items last:
  // their content hash marks the work done, so an import cut off before them redoes the rest.
  await batchWrite(puts, deletes);
  summary.written += changed.length;
}
