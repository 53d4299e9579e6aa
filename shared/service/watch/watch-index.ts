/**
 * The package index (docs/watch.md "The package index"): which SBOMs contain a package, for every
 * team. One item per (package identity, SBOM) in a global partition per identity, sharded by SBOM
 * (WATCH_SHARDS), the team id leading the sort key:
 * - a corpus change names packages; `sbomsContaining` finds every SBOM to re-evaluate, reading
 *   every shard of each key, never an SBOM without the package;
 * - `teamEntries` answers "where do we ship package X" for one team (team id in the key condition).
 * The scan writes an SBOM's entries once (the SBOM item then carries `watchIndexedAt`); an SBOM
 * delete removes them best effort, so readers drop entries whose SBOM is gone. Presence items, one per
 * key and shard, are shared by every SBOM with the key in that shard and never removed: they are written
 * only when not yet stored, and readers query only the shards that have one.
 */
import { createHash } from 'node:crypto';
import { inParallel } from '../concurrency';
import { keys, type Key } from '../data/keys';
import { batchGet, batchWrite, queryAll, type Item } from '../data/table-client';
import { identify, splitPackageKey, type PackageLookup } from '../matching/component-identity';
import { parseCpe } from '../matching/cpe';
import { shortName } from '../matching/package-name';
import type { SbomComponent } from '../sbom/model';

export const WATCH_SHARDS = 8;
/** Bounds of one entry, so a hostile SBOM (10,000 versions of one name) cannot exceed DynamoDB's 400 KB item. */
const MAX_VERSIONS = 200;
const MAX_PURLS = 20;
const MAX_NAMES = 20;
const MAX_VALUE_LENGTH = 512;
/** Queries in flight when reading many keys' shards. */
const READ_CONCURRENCY = 16;
/** Presence items read before the rest of an SBOM's, and the share of them stored below which the rest are written unread. */
const PRESENCE_SAMPLE = 100;
const MOSTLY_NEW_BELOW = 0.1;

/** Accepts every key, so `identify` yields a purl's candidate without the corpus (as the scan's matching does). */
const PERMISSIVE: PackageLookup = { hasPackage: () => true, keysWithShortName: () => [] };

export interface WatchEntry {
  teamId: string;
  productId: string;
  releaseId: string;
  sbomId: string;
  indexKey: string;
  /** Distinct component versions found under this key, sorted. */
  versions: string[];
  purls: string[];
  /** Component names as the SBOM spells them. */
  names: string[];
}

export interface WatchedSbom {
  teamId: string;
  productId: string;
  releaseId: string;
  sbomId: string;
  indexKeys: string[];
}

/** The index key of a component known only by name (or a CPE product): no ecosystem, its short name. */
export function nameKey(name: string): string {
  return `name:${shortName(name.trim().toLowerCase())}`;
}

/** The index key is a name key (a component without a usable purl), not a package key. */
export function isNameKey(indexKey: string): boolean {
  return indexKey.startsWith('name:');
}

function purlKeys(component: SbomComponent): string[] {
  if (component.purl === undefined) return [];
  return identify({ ...component, cpes: [] }, PERMISSIVE)
    .candidates.filter((candidate) => candidate.evidence.kind === 'purl')
    .map((candidate) => candidate.key);
}

/** The index keys of a component: its purl's package keys; without one, its name and CPE products. */
export function watchKeysOf(component: SbomComponent): string[] {
  const fromPurl = purlKeys(component);
  if (fromPurl.length > 0) return [...new Set(fromPurl)];
  const found = new Set<string>();
  if (component.name.trim() !== '') found.add(nameKey(component.name));
  for (const raw of component.cpes) {
    const cpe = parseCpe(raw);
    if (cpe) for (const product of [cpe.product, cpe.product.replace(/_/g, '-')]) found.add(nameKey(product));
  }
  return [...found];
}

/** Index keys a changed corpus package key may concern: the key itself and `name:<shortName(name)>`. */
export function watchKeysForPackage(packageKey: string): string[] {
  return [packageKey, nameKey(splitPackageKey(packageKey).name)];
}

export function watchShard(sbomId: string): number {
  return createHash('sha256').update(sbomId).digest().readUInt32BE(0) % WATCH_SHARDS;
}

function bounded(values: Set<string>, max: number): string[] {
  return [...values]
    .filter((value) => value.length <= MAX_VALUE_LENGTH)
    .sort()
    .slice(0, max);
}

/** The presence items and the any-SBOM marker: shared by every SBOM, the same for each. */
const isShared = (item: Item) => item.entity === 'WatchKey' || item.entity === 'WatchAny';
const itemId = (item: Item) => `${String(item.pk)}\u0000${String(item.sk)}`;

/** Every index key of the components, with what was found under it. */
function entriesOf(components: readonly SbomComponent[]) {
  const found = new Map<string, { versions: Set<string>; purls: Set<string>; names: Set<string> }>();
  for (const component of components) {
    for (const indexKey of watchKeysOf(component)) {
      const entry = found.get(indexKey) ?? { versions: new Set(), purls: new Set(), names: new Set() };
      if (component.version !== undefined) entry.versions.add(component.version);
      if (component.purl !== undefined) entry.purls.add(component.purl);
      entry.names.add(component.name);
      found.set(indexKey, entry);
    }
  }
  return found;
}

/** Index items for an SBOM's components (idempotent puts). */
export function watchIndexItems(
  sbom: { teamId: string; productId: string; releaseId: string; id: string },
  components: readonly SbomComponent[],
): Item[] {
  const shard = watchShard(sbom.id);
  const entries = entriesOf(components);
  // Presence items are the same for every SBOM with the key in the shard: never removed (a stale one only
  // costs the shard query that finds nothing); `watchIndexWrites` leaves out those already stored.
  const presence = [...entries.keys()].map((indexKey) => ({
    ...keys.watchShardPresence(indexKey, shard),
    entity: 'WatchKey',
    indexKey,
    shard,
  }));
  return [
    { ...keys.watchAnySbom(), entity: 'WatchAny' },
    ...presence,
    ...[...entries].map(([indexKey, entry]) => ({
      ...keys.watchEntry(indexKey, shard, sbom.teamId, sbom.id),
      entity: 'WatchEntry',
      teamId: sbom.teamId,
      productId: sbom.productId,
      releaseId: sbom.releaseId,
      sbomId: sbom.id,
      indexKey,
      versions: bounded(entry.versions, MAX_VERSIONS),
      purls: bounded(entry.purls, MAX_PURLS),
      names: bounded(entry.names, MAX_NAMES),
    })),
  ];
}

/**
 * What indexing an SBOM must write: all its entries, and of the shared items only those not stored as
 * they are. A product's next release names mostly the packages of its last one, and reading a key costs
 * a fraction of writing it (a tenth on DynamoDB, eventually consistent; about a third in the embedded
 * engine). An SBOM of mostly new packages would pay the reads for nothing: a sample spread over its keys
 * is read first, and when few of them are stored the rest are written unread (idempotent puts).
 * Nothing removes a presence item, so one read as present stays present; an entry written by a run
 * cut off before its presence item finds it missing on the re-run, which writes it (the SBOM has no
 * `watchIndexedAt` until its scan's result).
 */
export async function watchIndexWrites(
  sbom: { teamId: string; productId: string; releaseId: string; id: string },
  components: readonly SbomComponent[],
): Promise<Item[]> {
  const items = watchIndexItems(sbom, components);
  const shared = items.filter(isShared);
  const sample =
    shared.length <= PRESENCE_SAMPLE
      ? shared
      : Array.from(
          { length: PRESENCE_SAMPLE },
          (_, index) => shared[Math.floor((index * shared.length) / PRESENCE_SAMPLE)]!,
        );
  const stored = await storedAsIs(sample);
  const mostlyNew = sample.length < shared.length && stored.size < sample.length * MOSTLY_NEW_BELOW;
  if (!mostlyNew) {
    const sampled = new Set(sample.map(itemId));
    for (const id of await storedAsIs(shared.filter((item) => !sampled.has(itemId(item))))) stored.add(id);
  }
  return items.filter((item) => !stored.has(itemId(item)));
}

/** The ids of the items stored with the same content (the key, `entity`, `indexKey`, `shard`). */
async function storedAsIs(wanted: readonly Item[]): Promise<Set<string>> {
  if (wanted.length === 0) return new Set();
  const found = await batchGet(
    wanted.map((item): Key => ({ pk: String(item.pk), sk: String(item.sk) })),
    // A read that misses an item written a moment ago only writes it again.
    {
      concurrency: READ_CONCURRENCY,
      projection: ['pk', 'sk', 'entity', 'indexKey', 'shard'],
      eventuallyConsistent: true,
    },
  );
  const byId = new Map(wanted.map((item) => [itemId(item), item]));
  return new Set(
    found
      .filter((item) => {
        const expected = byId.get(itemId(item));
        return (
          expected !== undefined &&
          item.entity === expected.entity &&
          item.indexKey === expected.indexKey &&
          item.shard === expected.shard
        );
      })
      .map(itemId),
  );
}

function toEntry(item: Item): WatchEntry {
  return {
    teamId: String(item.teamId),
    productId: String(item.productId),
    releaseId: String(item.releaseId),
    sbomId: String(item.sbomId),
    indexKey: String(item.indexKey),
    versions: (item.versions as string[] | undefined) ?? [],
    purls: (item.purls as string[] | undefined) ?? [],
    names: (item.names as string[] | undefined) ?? [],
  };
}

/** `read` over the inputs, READ_CONCURRENCY at a time; the results in the inputs' order. */
async function readAll<T, R>(inputs: readonly T[], read: (input: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(inputs.length);
  await inParallel(inputs, READ_CONCURRENCY, async (input, index) => {
    results[index] = await read(input);
  });
  return results;
}

const shards = Array.from({ length: WATCH_SHARDS }, (_, shard) => shard);

/** Whether any SBOM of any team was ever indexed. */
export async function anySbomWatched(): Promise<boolean> {
  return (await batchGet([keys.watchAnySbom()])).length > 0;
}

/**
 * The shards of each key that hold entries, from the presence items in one batched read: the shards with a
 * presence item, or every shard of a key that has the presence item of the layout before (any shard).
 */
async function presentShards(indexKeys: Iterable<string>): Promise<{ indexKey: string; shard: number }[]> {
  const unique = [...new Set(indexKeys)];
  const present = await batchGet(
    unique.flatMap((indexKey) => [
      keys.watchKeyPresence(indexKey),
      ...shards.map((shard) => keys.watchShardPresence(indexKey, shard)),
    ]),
    { concurrency: READ_CONCURRENCY },
  );
  const found = new Map<string, Set<number>>();
  for (const item of present) {
    const indexKey = String(item.indexKey);
    const inKey = found.get(indexKey) ?? new Set<number>();
    for (const shard of typeof item.shard === 'number' ? [item.shard] : shards) inKey.add(shard);
    found.set(indexKey, inKey);
  }
  return [...found].flatMap(([indexKey, inKey]) =>
    [...inKey].sort((a, b) => a - b).map((shard) => ({ indexKey, shard })),
  );
}

/** Every SBOM (all teams) indexed under any of the keys, grouped per SBOM. Reads the shards that hold entries. */
export async function sbomsContaining(indexKeys: Iterable<string>): Promise<WatchedSbom[]> {
  const reads = await presentShards(indexKeys);
  const pages = await readAll(reads, ({ indexKey, shard }) =>
    queryAll({
      ...keys.watchShard(indexKey, shard),
      projection: ['teamId', 'productId', 'releaseId', 'sbomId', 'indexKey'],
    }),
  );
  const bySbom = new Map<string, WatchedSbom>();
  for (const item of pages.flat()) {
    const { teamId, productId, releaseId, sbomId, indexKey } = toEntry(item);
    const id = `${teamId}#${sbomId}`;
    let watched = bySbom.get(id);
    if (!watched) {
      watched = { teamId, productId, releaseId, sbomId, indexKeys: [] };
      bySbom.set(id, watched);
    }
    if (!watched.indexKeys.includes(indexKey)) watched.indexKeys.push(indexKey);
  }
  return [...bySbom.values()];
}

/** One team's entries for one index key (team id in the sort key condition): the components query. */
export async function teamEntries(teamId: string, indexKey: string): Promise<WatchEntry[]> {
  const pages = await readAll(await presentShards([indexKey]), ({ shard }) =>
    queryAll({ ...keys.watchShard(indexKey, shard), ...keys.watchTeamPrefix(teamId) }),
  );
  return pages.flat().map(toEntry);
}

/** The keys of an SBOM's entries, from its components. */
export function watchEntryKeys(sbom: { teamId: string; id: string }, components: readonly SbomComponent[]): Key[] {
  const shard = watchShard(sbom.id);
  return [...entriesOf(components).keys()].map((indexKey) => keys.watchEntry(indexKey, shard, sbom.teamId, sbom.id));
}

/** Removes an SBOM's entries (on its delete; best effort: readers drop entries whose SBOM is gone). */
export async function removeSbom(
  sbom: { teamId: string; id: string },
  components: readonly SbomComponent[],
): Promise<void> {
  await batchWrite([], watchEntryKeys(sbom, components));
}
