/**
 * OSV record (https://ossf.github.io/osv-schema/) -> normalised Advisory.
 * Lenient on the optional parts (real databases omit or null them), strict on
 * what identifies a record: `id` and `modified`.
 */
import { isRecord, readArray, readRecords, readString, type JsonRecord } from '../../sbom/json-value';
import type { Advisory, AffectedPackage, CvssScore, RangeEvent, SeverityLevel, VersionRange } from './advisory';
import { scoreCvss } from './cvss';
import { CVE_ID } from '../../matching/cve-id';

export class OsvRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OsvRecordError';
  }
}

const CWE_ID = /^CWE-\d+$/i;
const EVENT_KINDS = ['introduced', 'fixed', 'last_affected', 'limit'] as const;

/** GHSA writes MODERATE where CVSS says MEDIUM. */
const DATABASE_SEVERITY: Record<string, SeverityLevel> = {
  CRITICAL: 'CRITICAL',
  HIGH: 'HIGH',
  MODERATE: 'MEDIUM',
  MEDIUM: 'MEDIUM',
  LOW: 'LOW',
  NONE: 'NONE',
};

export function parseOsvAdvisory(json: unknown): Advisory {
  if (!isRecord(json)) throw new OsvRecordError('OSV record is not a JSON object');
  const id = readString(json.id);
  if (id === undefined) throw new OsvRecordError('OSV record has no id');
  const modified = readString(json.modified);
  if (modified === undefined) throw new OsvRecordError(`OSV record ${id} has no modified timestamp`);

  const aliases = strings(json.aliases);
  const upstream = strings(json.upstream);
  const affectedRecords = readRecords(json.affected);
  const scores = collectScores(json, affectedRecords);

  return {
    id,
    modified,
    published: readString(json.published) ?? null,
    withdrawn: readString(json.withdrawn) ?? null,
    cveId: pickCveId(id, aliases, upstream),
    aliases,
    summary: readString(json.summary) ?? '',
    details: readString(json.details) ?? '',
    cwes: collectCwes(json, affectedRecords),
    cvssV2: scores.v2,
    cvssV3: scores.v3,
    cvssV4: scores.v4,
    databaseSeverity: databaseSeverity(json),
    informational: informationalKind(json, affectedRecords),
    affected: affectedRecords.flatMap(toAffected),
    references: readRecords(json.references).flatMap((ref) => {
      const url = readString(ref.url);
      return url === undefined ? [] : [{ type: readString(ref.type) ?? 'WEB', url }];
    }),
  };
}

/**
 * RustSec marks notices that are not vulnerabilities (`unsound`, `unmaintained`, `notice`) in
 * `affected[].database_specific.informational`; the top-level `database_specific` is read too,
 * since the OSV schema lets a database put it either way.
 */
function informationalKind(json: JsonRecord, affected: JsonRecord[]): string | null {
  for (const source of [...affected, json]) {
    const kind = isRecord(source.database_specific) ? readString(source.database_specific.informational) : undefined;
    if (kind) return kind;
  }
  return null;
}

export function isWithdrawn(advisory: Advisory): boolean {
  return advisory.withdrawn !== null;
}

/** The advisory's own id when it is a CVE, else the first CVE alias, else the first CVE upstream, else its own id. */
function pickCveId(id: string, aliases: string[], upstream: string[]): string {
  if (CVE_ID.test(id)) return id;
  return aliases.find((a) => CVE_ID.test(a)) ?? upstream.find((a) => CVE_ID.test(a)) ?? id;
}

function strings(value: unknown): string[] {
  const out: string[] = [];
  for (const item of readArray(value)) {
    const s = readString(item);
    if (s !== undefined && !out.includes(s)) out.push(s);
  }
  return out;
}

function toAffected(entry: JsonRecord): AffectedPackage[] {
  const pkg = isRecord(entry.package) ? entry.package : undefined;
  const ecosystem = readString(pkg?.ecosystem);
  const name = readString(pkg?.name);
  if (ecosystem === undefined || name === undefined) return [];
  const ranges: VersionRange[] = [];
  for (const range of readRecords(entry.ranges)) {
    const type = readString(range.type);
    if (type !== 'SEMVER' && type !== 'ECOSYSTEM') continue;
    const events = readRecords(range.events).flatMap(toEvent);
    if (events.length > 0) ranges.push({ type, events });
  }
  return [{ ecosystem, name, ranges, versions: strings(entry.versions) }];
}

/** The schema allows exactly one key per event; the first known key wins if a record breaks that. */
function toEvent(event: JsonRecord): RangeEvent[] {
  for (const kind of EVENT_KINDS) {
    const version = readString(event[kind]);
    if (version !== undefined) return [{ kind, version }];
  }
  return [];
}

type Scores = { v2: CvssScore | null; v3: CvssScore | null; v4: CvssScore | null };

/**
 * Top-level `severity` first, then per-package `affected[].severity` (the schema
 * allows either), then RustSec's `affected[].database_specific.cvss` vector.
 */
function collectScores(json: JsonRecord, affected: JsonRecord[]): Scores {
  const vectors: string[] = [];
  for (const source of [json, ...affected]) {
    for (const severity of readRecords(source.severity)) {
      const vector = readString(severity.score);
      if (vector !== undefined && /^CVSS_V[234]$/.test(readString(severity.type) ?? '')) vectors.push(vector);
    }
  }
  for (const entry of affected) {
    const vector = isRecord(entry.database_specific) ? readString(entry.database_specific.cvss) : undefined;
    if (vector !== undefined) vectors.push(vector);
  }
  const scores: Scores = { v2: null, v3: null, v4: null };
  for (const vector of vectors) {
    const scored = scoreCvss(vector);
    if (scored && scores[scored.version] === null) scores[scored.version] = scored.score;
  }
  return scores;
}

/** GHSA: database_specific.cwe_ids; other databases use `cwes` (strings or {cweId}) or a single `cwe`. */
function collectCwes(json: JsonRecord, affected: JsonRecord[]): string[] {
  const found: string[] = [];
  const add = (value: unknown) => {
    const raw = readString(value) ?? (isRecord(value) ? (readString(value.cweId) ?? readString(value.id)) : undefined);
    const cwe = raw?.toUpperCase();
    if (cwe !== undefined && CWE_ID.test(cwe) && !found.includes(cwe)) found.push(cwe);
  };
  for (const source of [json.database_specific, ...affected.map((a) => a.database_specific)]) {
    if (!isRecord(source)) continue;
    readArray(source.cwe_ids).forEach(add);
    readArray(source.cwes).forEach(add);
    add(source.cwe);
  }
  return found;
}

function databaseSeverity(json: JsonRecord): SeverityLevel | null {
  const raw = isRecord(json.database_specific) ? readString(json.database_specific.severity) : undefined;
  return raw === undefined ? null : (DATABASE_SEVERITY[raw.toUpperCase()] ?? null);
}
