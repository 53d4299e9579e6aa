/**
 * The corpus change journal: what each import changed, recorded after its writes, until the watched
 * SBOMs have been re-evaluated for it (shared/service/watch/watch.ts). An import that dies after its
 * writes but before its record leaves the change unrecorded; the next import of the same records finds
 * them unchanged by content hash and so would not record them again, which is why the record goes in
 * right after each chunk's writes, before the chunk's advisory items mark it done (import.ts).
 *
 * A change names corpus package keys (`<ecosystem>\u0000<normalised name>`: advisories added, modified
 * or withdrawn) and CVE ids (KEV entries added or removed, scores that moved). Items hold a few hundred
 * keys each; a large import writes many.
 */
import { randomBytes } from 'node:crypto';
import { keys } from '../data/keys';
import { batchGet, batchWrite, queryPages, type Item } from '../data/table-client';

export type CorpusChangeSource = 'osv' | 'kev' | 'epss';

export interface CorpusChange {
  changeId: string;
  part: number;
  source: CorpusChangeSource;
  recordedAt: string;
  packageKeys: string[];
  cveIds: string[];
}

/** Keys per journal item: well under DynamoDB's 400 KB with long package names. */
const KEYS_PER_ITEM = 400;

/** Time-ordered and unique: the journal's sort key and the corpus version findings carry. */
function newChangeId(at: string): string {
  return `${at}-${randomBytes(4).toString('hex')}`;
}

function toChange(item: Item): CorpusChange {
  return {
    changeId: String(item.changeId),
    part: Number(item.part),
    source: item.source as CorpusChangeSource,
    recordedAt: String(item.recordedAt),
    packageKeys: (item.packageKeys as string[] | undefined) ?? [],
    cveIds: (item.cveIds as string[] | undefined) ?? [],
  };
}

export const corpusChanges = {
  /** Records a change (nothing when it names nothing) and makes it the corpus version. */
  async record(source: CorpusChangeSource, packageKeys: Iterable<string>, cveIds: Iterable<string>): Promise<void> {
    const packages = [...new Set(packageKeys)].sort();
    const cves = [...new Set(cveIds)].sort();
    if (packages.length === 0 && cves.length === 0) return;
    const recordedAt = new Date().toISOString();
    const changeId = newChangeId(recordedAt);
    const items: Item[] = [];
    const parts = Math.max(Math.ceil(packages.length / KEYS_PER_ITEM), Math.ceil(cves.length / KEYS_PER_ITEM));
    for (let part = 0; part < parts; part += 1) {
      items.push({
        ...keys.corpusChange(changeId, part),
        entity: 'CorpusChange',
        changeId,
        part,
        source,
        recordedAt,
        packageKeys: packages.slice(part * KEYS_PER_ITEM, (part + 1) * KEYS_PER_ITEM),
        cveIds: cves.slice(part * KEYS_PER_ITEM, (part + 1) * KEYS_PER_ITEM),
      });
    }
    await batchWrite([...items, { ...keys.corpusVersion(), entity: 'CorpusVersion', version: changeId, recordedAt }]);
  },

  /** Up to `limit` journal items not yet applied, oldest first. */
  async pending(limit: number): Promise<CorpusChange[]> {
    const changes: CorpusChange[] = [];
    for await (const page of queryPages({ ...keys.corpusChangePartition(), pageSize: Math.min(limit, 100) })) {
      for (const item of page) {
        changes.push(toChange(item));
        if (changes.length >= limit) return changes;
      }
    }
    return changes;
  },

  /** The journal items are applied: removed. */
  async applied(changes: readonly CorpusChange[]): Promise<void> {
    await batchWrite(
      [],
      changes.map((change) => keys.corpusChange(change.changeId, change.part)),
    );
  },

  /**
   * The latest recorded change, or null before the first. A batch read, like the scan's other corpus reads,
   * so the functions that scan need no other permission on the corpus.
   */
  async version(): Promise<string | null> {
    const [item] = await batchGet([keys.corpusVersion()]);
    return typeof item?.version === 'string' ? item.version : null;
  },
};
