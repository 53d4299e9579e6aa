/**
 * Severity from aliased records (docs/scanning.md "Severity from aliased records").
 * Go vulndb records, most PYSEC records and many others carry no CVSS; the GHSA or
 * NVD-derived record for the same vulnerability usually does. The import keeps an
 * alias index: one item per identifier a record lists in `aliases`, holding the
 * scores of every record that lists it. A record is not filed under its own id: its
 * advisory item already holds its scores. A record is found from either side: GO-x
 * listing GHSA-y reads GHSA-y's advisory item; GHSA-y listing GO-x or a CVE they share
 * puts GHSA-y's entry in item GO-x or the CVE's item. The index is a function of the
 * set of records present, so import order and chunking do not matter, and a refresh
 * that adds (or withdraws) a scored alias changes the result of the next scan. A scan
 * reads the alias items and the advisory items it needs in one batched read, only for
 * findings whose own advisory has no CVSS.
 *
 * A CVE's item also holds the package keys of every record naming the CVE, scored or not, apart from the
 * scores (`packagesJson`, cve-packages.ts): the watch's way from a KEV listing to packages. A scan does not
 * read them, and an unscored record is never among the scored entries.
 */
import { keys, type Key } from '../data/keys';
import { CVE_ID } from '../matching/cve-id';
import { batchGet, type Item } from '../data/table-client';
import type { Advisory, CvssScore, SeverityLevel } from './parse/advisory';
import { boundPackages, packagesOf, type CvePackages } from './cve-packages';

/** The scores one record carries, as the alias index keeps them. */
export interface RecordScores {
  cveId: string;
  cvssV2: CvssScore | null;
  cvssV3: CvssScore | null;
  cvssV4: CvssScore | null;
  databaseSeverity: SeverityLevel | null;
}

/** The entries of one identifier's item: advisory id → that record's scores. */
export type AliasEntries = Record<string, RecordScores>;

export interface SeverityResolution {
  severity: SeverityLevel;
  /** Which kind of score `severity` comes from (the documented `severity_source` values). */
  source: 'cvss_v4' | 'cvss_v3' | 'cvss_v2' | 'advisory' | null;
  /** The record the score was taken from: the finding's own advisory or an aliased one. */
  sourceId: string | null;
  cvssV2: CvssScore | null;
  cvssV3: CvssScore | null;
  cvssV4: CvssScore | null;
}

const LEVEL_RANK: Record<SeverityLevel, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1, NONE: 0 };
/** Batched reads in flight, as for the scan's other corpus reads. */
const READ_CONCURRENCY = 16;

/** The identifiers a record is known by: its id and its aliases (not `upstream`: those are other vulnerabilities it derives from). */
export function aliasIdentifiers(advisory: Pick<Advisory, 'id' | 'aliases'>): string[] {
  return [...new Set([advisory.id, ...advisory.aliases])].sort();
}

/** The CVE ids a record is known by: its id, aliases and `cveId` (which may come from `upstream`). */
export function cveIdsOf(advisory: Pick<Advisory, 'id' | 'aliases' | 'cveId'>): string[] {
  return [...new Set([advisory.cveId, ...aliasIdentifiers(advisory)])].filter((id) => CVE_ID.test(id)).sort();
}

/** The record's scores, or null when it has none worth lending. */
export function scoresOf(advisory: RecordScores): RecordScores | null {
  const { cveId, cvssV2, cvssV3, cvssV4, databaseSeverity } = advisory;
  if (!cvssV2 && !cvssV3 && !cvssV4 && !databaseSeverity) return null;
  return { cveId, cvssV2, cvssV3, cvssV4, databaseSeverity };
}

export function hasCvss(scores: Pick<RecordScores, 'cvssV2' | 'cvssV3' | 'cvssV4'> | undefined): boolean {
  return Boolean(scores?.cvssV4 ?? scores?.cvssV3 ?? scores?.cvssV2);
}

/** The record's best CVSS: the highest version it has (v4, then v3, then v2). */
function topCvss(
  scores: RecordScores,
): { source: 'cvss_v4' | 'cvss_v3' | 'cvss_v2'; rank: number; cvss: CvssScore } | null {
  if (scores.cvssV4) return { source: 'cvss_v4', rank: 3, cvss: scores.cvssV4 };
  if (scores.cvssV3) return { source: 'cvss_v3', rank: 2, cvss: scores.cvssV3 };
  if (scores.cvssV2) return { source: 'cvss_v2', rank: 1, cvss: scores.cvssV2 };
  return null;
}

function fromRecord(id: string, scores: RecordScores): SeverityResolution {
  const top = topCvss(scores);
  return {
    severity: top ? top.cvss.severity : (scores.databaseSeverity ?? 'NONE'),
    source: top ? top.source : scores.databaseSeverity ? 'advisory' : null,
    sourceId: top || scores.databaseSeverity ? id : null,
    cvssV2: scores.cvssV2,
    cvssV3: scores.cvssV3,
    cvssV4: scores.cvssV4,
  };
}

const NO_SEVERITY: SeverityResolution = {
  severity: 'NONE',
  source: null,
  sourceId: null,
  cvssV2: null,
  cvssV3: null,
  cvssV4: null,
};

/**
 * The finding's severity. Its own advisory's CVSS when it has any (the spec's
 * order: v4, v3, v2). Otherwise the best CVSS among its aliased records: highest
 * version, then highest score, then smallest id, so the choice depends only on
 * the set of records. Then its own database rating, then an alias's (highest
 * rating). A record tied to a different CVE than the finding's is never used:
 * records of two CVEs can share an alias (PYSEC-2021-88 and PYSEC-2021-104 both
 * list GHSA-5pr9-v234-jw36).
 */
export function resolveSeverity(
  own: ({ id: string } & RecordScores) | undefined,
  findingCveId: string,
  aliased: Iterable<[string, RecordScores]>,
): SeverityResolution {
  if (own && hasCvss(own)) return fromRecord(own.id, own);
  const candidates = [...aliased].filter(
    ([id, scores]) =>
      id !== own?.id && !(CVE_ID.test(findingCveId) && CVE_ID.test(scores.cveId) && scores.cveId !== findingCveId),
  );
  let best: { id: string; scores: RecordScores; rank: number; score: number } | undefined;
  for (const [id, scores] of candidates) {
    const top = topCvss(scores);
    if (!top) continue;
    if (
      !best ||
      top.rank > best.rank ||
      (top.rank === best.rank && (top.cvss.score > best.score || (top.cvss.score === best.score && id < best.id)))
    ) {
      best = { id, scores, rank: top.rank, score: top.cvss.score };
    }
  }
  if (best) return fromRecord(best.id, best.scores);
  if (own?.databaseSeverity) return fromRecord(own.id, own);
  let rated: { id: string; scores: RecordScores; level: SeverityLevel } | undefined;
  for (const [id, scores] of candidates) {
    const level = scores.databaseSeverity;
    if (level && (!rated || LEVEL_RANK[level] > LEVEL_RANK[rated.level] || (level === rated.level && id < rated.id)))
      rated = { id, scores, level };
  }
  return rated ? fromRecord(rated.id, { ...rated.scores, cvssV2: null, cvssV3: null, cvssV4: null }) : NO_SEVERITY;
}

/**
 * One change to the alias index: the identifiers whose items may hold the record's entry (its identifiers and
 * CVEs as last indexed; none if new or never indexed) and the record after (none if withdrawn): its
 * identifiers and scores, its CVEs (`cveId` and CVE aliases) and package keys.
 */
export interface AliasChange {
  advisoryId: string;
  before: readonly string[];
  after: {
    identifiers: readonly string[];
    scores: RecordScores | null;
    cveIds: readonly string[];
    packageKeys: readonly string[];
  } | null;
}

/** What one identifier's item holds: the scored records' entries and, for a CVE, its records' package keys. */
export interface AliasItemContent {
  entries: AliasEntries;
  packages: CvePackages;
}

/**
 * The items a record's entry goes into: those of its aliases, not its own id's (its advisory item holds
 * its scores). Items written before this rule may still hold a record's own entry: it is dropped, like
 * any other, when the record changes or is withdrawn (`before` names the record's id too).
 */
function filedUnder(change: AliasChange): string[] {
  return change.after?.scores ? change.after.identifiers.filter((id) => id !== change.advisoryId) : [];
}

/**
 * The CVE items a record's package keys go into, scored or not: not its own id's (its advisory item holds
 * them), none when it has none (its ecosystems are not ones the matcher evaluates).
 */
function packagesFiledUnder(change: AliasChange): string[] {
  return change.after && change.after.packageKeys.length > 0
    ? change.after.cveIds.filter((id) => id !== change.advisoryId)
    : [];
}

/** The identifiers whose items a set of changes reads and rewrites. */
export function touchedIdentifiers(changes: readonly AliasChange[]): string[] {
  const touched = new Set<string>();
  for (const change of changes) {
    change.before.forEach((id) => touched.add(id));
    filedUnder(change).forEach((id) => touched.add(id));
    packagesFiledUnder(change).forEach((id) => touched.add(id));
  }
  return [...touched];
}

/**
 * Applies changes to the current content of the touched identifiers' items (pure: the import reads and
 * writes the items). A changed record leaves every item it was in and joins the items of its new aliases
 * when it has scores, and those of its CVEs with its package keys. Returns the new content per
 * identifier; nothing left in it means delete the item.
 */
export function applyAliasChanges(
  current: ReadonlyMap<string, AliasItemContent>,
  changes: readonly AliasChange[],
): Map<string, AliasItemContent> {
  const result = new Map<string, AliasItemContent>();
  for (const identifier of touchedIdentifiers(changes)) {
    const item = current.get(identifier);
    result.set(identifier, { entries: { ...item?.entries }, packages: { ...item?.packages } });
  }
  // A record can only be in the items it was indexed under (or, after a cut-off run, its new ones).
  for (const change of changes) {
    for (const identifier of [...change.before, ...filedUnder(change), ...packagesFiledUnder(change)]) {
      const item = result.get(identifier);
      delete item?.entries[change.advisoryId];
      delete item?.packages[change.advisoryId];
    }
  }
  for (const change of changes) {
    const { after } = change;
    if (!after) continue;
    if (after.scores)
      for (const identifier of filedUnder(change)) result.get(identifier)!.entries[change.advisoryId] = after.scores;
    for (const identifier of packagesFiledUnder(change))
      result.get(identifier)!.packages[change.advisoryId] = [...after.packageKeys];
  }
  for (const item of result.values()) item.packages = boundPackages(item.packages);
  return result;
}

function isEmpty(content: AliasItemContent): boolean {
  return Object.keys(content.entries).length === 0 && Object.keys(content.packages).length === 0;
}

function aliasItem(identifier: string, { entries, packages }: AliasItemContent): Item {
  // String attributes, as for package items: nested maps cost most of a read's time. The scan reads `entriesJson` only.
  return {
    ...keys.corpusAlias(identifier),
    entity: 'CorpusAlias',
    identifier,
    entriesJson: JSON.stringify(entries),
    ...(Object.keys(packages).length > 0 ? { packagesJson: JSON.stringify(packages) } : {}),
  };
}

function entriesOf(item: Item): AliasEntries {
  return typeof item.entriesJson === 'string' ? (JSON.parse(item.entriesJson) as AliasEntries) : {};
}

async function readContent(identifiers: Iterable<string>): Promise<Map<string, AliasItemContent>> {
  const items = await batchGet(
    [...new Set(identifiers)].map((identifier) => keys.corpusAlias(identifier)),
    { concurrency: READ_CONCURRENCY },
  );
  return new Map(
    items.map((item) => [String(item.identifier), { entries: entriesOf(item), packages: packagesOf(item) }]),
  );
}

/** The writes that bring the alias index up to date with a chunk of import changes. */
export async function aliasIndexWrites(changes: readonly AliasChange[]): Promise<{ puts: Item[]; deletes: Key[] }> {
  const touched = touchedIdentifiers(changes);
  if (touched.length === 0) return { puts: [], deletes: [] };
  const current = await readContent(touched);
  const puts: Item[] = [];
  const deletes: Key[] = [];
  for (const [identifier, content] of applyAliasChanges(current, changes)) {
    if (!isEmpty(content)) puts.push(aliasItem(identifier, content));
    else if (current.has(identifier)) deletes.push(keys.corpusAlias(identifier));
  }
  return { puts, deletes };
}

/**
 * The scores an advisory item lends: its `scoresJson` (none when the record has no scores), or, on an item
 * written when advisory items held the whole record, parsed from its `advisoryJson`. An item of that time
 * spilled to S3 without `scoresJson` predates the alias layout: its own alias item still holds its entry.
 */
function advisoryItemScores(item: Item): RecordScores | null {
  if (typeof item.scoresJson === 'string') return JSON.parse(item.scoresJson) as RecordScores | null;
  if (typeof item.advisoryJson === 'string') return scoresOf(JSON.parse(item.advisoryJson) as Advisory);
  return null;
}

/** What a scan reads of alias items and advisory items: the same batch holds both. */
const SEVERITY_READ_FIELDS = ['entity', 'identifier', 'entriesJson', 'advisoryId', 'advisoryJson', 'scoresJson'];

/**
 * The entries of the alias items of `identifiers` and the scores of the advisory items of `records`,
 * in one batched read.
 */
async function readSeverityInputs(
  identifiers: ReadonlySet<string>,
  records: ReadonlySet<string>,
): Promise<{ entries: Map<string, AliasEntries>; recordScores: Map<string, RecordScores> }> {
  const items = await batchGet(
    [
      ...[...identifiers].map((identifier) => keys.corpusAlias(identifier)),
      ...[...records].map((id) => keys.corpusAdvisory(id)),
    ],
    { concurrency: READ_CONCURRENCY, projection: SEVERITY_READ_FIELDS },
  );
  const entries = new Map<string, AliasEntries>();
  const recordScores = new Map<string, RecordScores>();
  for (const item of items) {
    if (item.entity === 'CorpusAlias') entries.set(String(item.identifier), entriesOf(item));
    else {
      const scores = advisoryItemScores(item);
      if (scores) recordScores.set(String(item.advisoryId), scores);
    }
  }
  return { entries, recordScores };
}

/** What the scan knows of a finding: its primary advisory, CVE and the other advisories merged into it. */
export interface FindingRef {
  advisoryId: string;
  cveId: string;
  relatedAdvisoryIds: readonly string[];
}

/**
 * Resolves the severity of a scan's findings: one batched read of the alias items of the identifiers
 * of the findings whose own advisory has no CVSS, and of the advisory items of those identifiers the
 * scan has not matched itself (none at all when every finding's advisory has CVSS).
 */
export async function severityResolver(
  findings: readonly FindingRef[],
  advisoryOf: (id: string) => Advisory | undefined,
): Promise<(finding: FindingRef) => SeverityResolution> {
  const identifiersOf = (finding: FindingRef, advisory: Advisory | undefined) => [
    ...(advisory ? aliasIdentifiers(advisory) : [finding.advisoryId]),
    ...finding.relatedAdvisoryIds,
    finding.cveId,
  ];
  const wanted = new Set<string>();
  const records = new Set<string>();
  for (const finding of findings) {
    const advisory = advisoryOf(finding.advisoryId);
    if (hasCvss(advisory)) continue;
    for (const identifier of identifiersOf(finding, advisory)) {
      wanted.add(identifier);
      if (!advisoryOf(identifier)) records.add(identifier);
    }
  }
  const { entries, recordScores } =
    wanted.size > 0
      ? await readSeverityInputs(wanted, records)
      : { entries: new Map<string, AliasEntries>(), recordScores: new Map<string, RecordScores>() };
  return (finding) => {
    const advisory = advisoryOf(finding.advisoryId);
    if (hasCvss(advisory)) return resolveSeverity(advisory, finding.cveId, []);
    const aliased = new Map<string, RecordScores>();
    for (const identifier of identifiersOf(finding, advisory)) {
      // The record of that id, if there is one: matched by the scan, else its advisory item.
      const known = advisoryOf(identifier);
      const own = known ? scoresOf(known) : recordScores.get(identifier);
      if (own) aliased.set(identifier, own);
      for (const [id, scores] of Object.entries(entries.get(identifier) ?? {})) aliased.set(id, scores);
    }
    return resolveSeverity(advisory, finding.cveId, aliased);
  };
}
