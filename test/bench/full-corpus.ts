/**
 * A synthetic OSV corpus at the real database's size (about 520,000 records across OSV's main
 * ecosystem exports), written to disk as it is generated: one all.zip, a KEV catalog and an EPSS
 * file of 326,000 rows. Nothing is held in memory but the record being written.
 *
 * The first 50,000 records are the scan bench's (synthetic-corpus.ts: `bench-vuln-<id>`), so the
 * synthetic SBOMs find the same vulnerabilities in the full corpus; the rest have each ecosystem's
 * name and version shapes (scoped npm names, Maven coordinates, Go module paths with major-version
 * suffixes, Debian/Ubuntu/Alpine source packages with their release-suffixed ecosystems and
 * revision-bearing versions) and a skewed number of records per package, as in OSV (a few source
 * packages, such as a distribution's kernel, have thousands).
 */
import { closeSync, existsSync, mkdirSync, openSync, renameSync, writeSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { crc32, createGzip, deflateRawSync } from 'node:zlib';
import { once } from 'node:events';
import { ADVISORIES, syntheticRecord } from './synthetic-corpus';

/** Bumped when the generated shapes change: a cached corpus of an older version is generated again. */
const GENERATOR_VERSION = 2;

export const FULL_RECORDS = 520_000;
export const EPSS_ROWS = 326_000;
const KEV_ENTRIES = 1_480;

interface Shape {
  ecosystem: (index: number) => string;
  weight: number;
  packages: number;
  name: (id: number) => string;
  rangeType: 'ECOSYSTEM' | 'SEMVER';
  version: (major: number, minor: number, patch: number) => string;
}

const WORDS = ['core', 'http', 'parser', 'json', 'auth', 'crypto', 'xml', 'image', 'util', 'server', 'client', 'yaml'];
const word = (id: number, salt: number) => WORDS[(id * 31 + salt * 7) % WORDS.length]!;

/** Weights: roughly OSV's 2026 mix of records per ecosystem export (percent). */
const SHAPES: Shape[] = [
  {
    ecosystem: (index) => `Debian:${11 + (index % 3)}`,
    weight: 24,
    packages: 9_000,
    name: (id) => `lib${word(id, 1)}${id}`,
    rangeType: 'ECOSYSTEM',
    version: (major, minor, patch) => `${major}.${minor}.${patch}-${1 + (patch % 4)}+deb12u${1 + (minor % 5)}`,
  },
  {
    ecosystem: (index) => ['Ubuntu:22.04:LTS', 'Ubuntu:24.04:LTS', 'Ubuntu:Pro:18.04:LTS'][index % 3]!,
    weight: 16,
    packages: 8_000,
    name: (id) => `${word(id, 2)}-tools${id}`,
    rangeType: 'ECOSYSTEM',
    version: (major, minor, patch) => `${major}.${minor}.${patch}-${patch % 9}ubuntu0.${minor % 4}`,
  },
  {
    ecosystem: () => 'npm',
    weight: 13,
    packages: 40_000,
    name: (id) => (id % 3 === 0 ? `@${word(id, 3)}-org${id % 997}/${word(id, 4)}-${id}` : `${word(id, 5)}-${id}-js`),
    rangeType: 'SEMVER',
    version: (major, minor, patch) =>
      patch === 0 && minor === 0 ? `${major}.0.0-beta.${major}` : `${major}.${minor}.${patch}`,
  },
  {
    ecosystem: () => 'PyPI',
    weight: 11,
    packages: 25_000,
    name: (id) => `${word(id, 6)}_${word(id, 7)}-py${id}`,
    rangeType: 'ECOSYSTEM',
    version: (major, minor, patch) => (patch % 5 === 4 ? `${major}.${minor}rc${patch}` : `${major}.${minor}.${patch}`),
  },
  {
    ecosystem: () => 'Maven',
    weight: 9,
    packages: 20_000,
    name: (id) => `org.${word(id, 8)}${id % 503}.${word(id, 9)}:${word(id, 10)}-${id}`,
    rangeType: 'ECOSYSTEM',
    version: (major, minor, patch) =>
      patch % 3 === 0 ? `${major}.${minor}.${patch}.Final` : `${major}.${minor}.${patch}`,
  },
  {
    ecosystem: (index) => `Alpine:v3.${17 + (index % 4)}`,
    weight: 8,
    packages: 3_000,
    name: (id) => `${word(id, 11)}${id}`,
    rangeType: 'ECOSYSTEM',
    version: (major, minor, patch) => `${major}.${minor}.${patch}-r${patch % 7}`,
  },
  {
    ecosystem: () => 'Go',
    weight: 7,
    packages: 15_000,
    name: (id) => `github.com/${word(id, 12)}${id % 2003}/${word(id, 13)}-${id}${id % 4 === 0 ? '/v2' : ''}`,
    rangeType: 'SEMVER',
    version: (major, minor, patch) => `${major}.${minor}.${patch}`,
  },
  {
    ecosystem: () => 'Packagist',
    weight: 5,
    packages: 8_000,
    name: (id) => `${word(id, 14)}${id % 701}/${word(id, 15)}-${id}`,
    rangeType: 'ECOSYSTEM',
    version: (major, minor, patch) => `${major}.${minor}.${patch}`,
  },
  {
    ecosystem: () => 'crates.io',
    weight: 4,
    packages: 6_000,
    name: (id) => `${word(id, 16)}-${word(id, 17)}-rs${id}`,
    rangeType: 'SEMVER',
    version: (major, minor, patch) => `${major}.${minor}.${patch}`,
  },
  {
    ecosystem: () => 'RubyGems',
    weight: 3,
    packages: 5_000,
    name: (id) => `${word(id, 18)}-${word(id, 19)}${id}`,
    rangeType: 'ECOSYSTEM',
    version: (major, minor, patch) => `${major}.${minor}.${patch}.${patch % 3}`,
  },
];

/** A deterministic pseudo-random number in [0, 1) for an index (no state: records generate in any order). */
export function unit(index: number, salt: number): number {
  let x = Math.imul(index ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35);
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d);
  x ^= x >>> 12;
  return (x >>> 0) / 0x1_0000_0000;
}

function shapeOf(index: number): Shape {
  let slot = index % 100;
  for (const shape of SHAPES) {
    if (slot < shape.weight) return shape;
    slot -= shape.weight;
  }
  return SHAPES[0]!;
}

function details(index: number): string {
  const sentence = 'A crafted input can make the affected component read past the end of a buffer. ';
  return sentence.repeat(2 + (index % 10));
}

/** Record `index` (≥ 50,000) of the full corpus. */
function realisticRecord(index: number): Record<string, unknown> {
  const shape = shapeOf(index);
  const ecosystem = shape.ecosystem(index);
  // u² skews towards the first packages: the busiest one holds a few thousand records.
  const packageId = Math.floor(shape.packages * unit(index, 1) ** 2);
  const name = shape.name(packageId);
  const major = 1 + (index % 4);
  const fixed = shape.version(major, 2 + (index % 20), index % 9);
  const year = 2016 + (index % 11);
  const distribution = ecosystem.includes(':');
  const affected: Record<string, unknown> = {
    package: { ecosystem, name },
    ranges: [
      {
        type: shape.rangeType,
        events: [{ introduced: distribution ? '0' : shape.version(major, 0, 0) }, { fixed }],
      },
    ],
  };
  if (shape.ecosystem(0) === 'PyPI')
    affected.versions = Array.from({ length: 3 + (index % 12) }, (_, v) => shape.version(major, 0, v));
  return {
    schema_version: '1.6.0',
    id: `${distribution ? ecosystem.split(':')[0]!.toUpperCase() : 'GHSA'}-${index.toString(36)}-${year}`,
    modified: `2026-0${1 + (index % 9)}-1${index % 10}T0${index % 10}:00:00Z`,
    published: `${year}-06-01T00:00:00Z`,
    aliases: [`CVE-${year}-${String(10000 + (index % 90000))}`],
    summary: `${word(index, 20)} handling flaw in ${name}`,
    details: details(index),
    severity: index % 4 === 0 ? [] : [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' }],
    affected: [affected],
    references: [{ type: 'ADVISORY', url: `https://example.org/advisories/${index}` }],
    database_specific: { cwe_ids: [`CWE-${20 + (index % 400)}`], severity: 'HIGH' },
  };
}

/** The CVE ids the corpus's records name, in the order the EPSS file lists them. */
function* epssCves(): Generator<string> {
  for (let row = 0; row < EPSS_ROWS; row += 1) {
    const year = 1999 + (row % 28);
    yield `CVE-${year}-${String(10000 + Math.floor(row / 28))}`;
  }
}

/**
 * Writes a zip as Go's archive/zip (OSV's exporter) does for a large archive: deflated entries, then
 * the central directory and, past 65,535 entries, the ZIP64 end records (fflate's streaming Zip
 * writes none, and its count wraps at 65,536). A `delta` revises `changed` records and adds `added`
 * new ones spread over the archive, as a later export of the same database would.
 */
export function writeZip(path: string, records: number, delta = { changed: 0, added: 0 }): void {
  const fd = openSync(path, 'w', 0o600);
  const central: Buffer[] = [];
  let offset = 0;
  const write = (bytes: Buffer) => {
    writeSync(fd, bytes);
    offset += bytes.length;
  };
  const changeEvery = delta.changed > 0 ? Math.floor(records / delta.changed) : 0;
  const addEvery = delta.added > 0 ? Math.floor(records / delta.added) : 0;
  let added = 0;
  const entries = records + delta.added;
  for (let position = 0; position < entries; position += 1) {
    const adding = addEvery > 0 && added < delta.added && position % (addEvery + 1) === addEvery;
    const index = adding ? records + added++ : position - added;
    const record: Record<string, unknown> = index < ADVISORIES ? syntheticRecord(index) : realisticRecord(index);
    if (changeEvery > 0 && index % changeEvery === 0 && index / changeEvery < delta.changed) {
      record.modified = '2026-12-06T12:00:00Z';
      record.details = `${String(record.details)} Revised.`;
    }
    const name = Buffer.from(`${String(record.id)}.json`);
    const bytes = Buffer.from(JSON.stringify(record));
    const deflated = deflateRawSync(bytes, { level: 1 });
    const crc = crc32(bytes);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0x0021, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(deflated.length, 18);
    local.writeUInt32LE(bytes.length, 22);
    local.writeUInt16LE(name.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    local.copy(entry, 8, 6, 30); // flags, method, time, date, crc, sizes, name length, extra length
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    write(local);
    write(name);
    write(deflated);
  }
  const centralStart = offset;
  for (const part of central) write(part);
  const centralSize = offset - centralStart;
  const zip64 = entries > 0xffff;
  if (zip64) {
    const end64 = Buffer.alloc(56);
    end64.writeUInt32LE(0x06064b50, 0);
    end64.writeBigUInt64LE(44n, 4);
    end64.writeUInt16LE(45, 12);
    end64.writeUInt16LE(45, 14);
    end64.writeBigUInt64LE(BigInt(entries), 24);
    end64.writeBigUInt64LE(BigInt(entries), 32);
    end64.writeBigUInt64LE(BigInt(centralSize), 40);
    end64.writeBigUInt64LE(BigInt(centralStart), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset), 8);
    locator.writeUInt32LE(1, 16);
    write(end64);
    write(locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : entries, 8);
  end.writeUInt16LE(zip64 ? 0xffff : entries, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(centralStart, 16);
  write(end);
  closeSync(fd);
}

async function writeEpss(path: string): Promise<void> {
  const gzip = createGzip({ level: 1 });
  const out = gzip.pipe(createWriteStream(path, { mode: 0o600 }));
  const write = async (line: string) => {
    if (!gzip.write(line)) await once(gzip, 'drain');
  };
  await write('#model_version:v2025.03.14,score_date:2026-12-06T00:00:00Z\ncve,epss,percentile\n');
  let row = 0;
  for (const cve of epssCves()) {
    const epss = unit(row, 2) ** 4;
    await write(`${cve},${epss.toFixed(5)},${unit(row, 3).toFixed(5)}\n`);
    row += 1;
  }
  gzip.end();
  await once(out, 'finish');
}

function kevCatalog(): string {
  const vulnerabilities = Array.from({ length: KEV_ENTRIES }, (_, index) => ({
    cveID: `CVE-${2016 + (index % 11)}-${String(10000 + index * 53)}`,
    vendorProject: `Vendor${index % 200}`,
    product: `Product ${index}`,
    vulnerabilityName: `Synthetic KEV entry ${index}`,
    dateAdded: '2025-01-15',
    shortDescription: 'Synthetic.',
    requiredAction: 'Apply updates.',
    dueDate: '2025-02-05',
    knownRansomwareCampaignUse: index % 5 === 0 ? 'Known' : 'Unknown',
    notes: '',
  }));
  return JSON.stringify({
    title: 'Synthetic KEV',
    catalogVersion: '2026.12.06',
    dateReleased: '2026-12-06T00:00:00.000Z',
    count: vulnerabilities.length,
    vulnerabilities,
  });
}

export interface FullCorpusFiles {
  zip: string;
  kev: string;
  epss: string;
}

/**
 * The corpus files for `records` OSV records, generated into `cacheDir` once and reused by later
 * runs (the generation takes minutes at full size and is not what is measured).
 */
export async function fullCorpusFiles(cacheDir: string, records: number): Promise<FullCorpusFiles> {
  const dir = join(cacheDir, `vexdesk-bench-corpus-v${GENERATOR_VERSION}-${records}`);
  const files = { zip: join(dir, 'all.zip'), kev: join(dir, 'kev.json'), epss: join(dir, 'epss_scores.csv.gz') };
  if (existsSync(join(dir, 'complete'))) return files;
  mkdirSync(dir, { recursive: true });
  writeZip(`${files.zip}.partial`, records);
  renameSync(`${files.zip}.partial`, files.zip);
  await writeEpss(files.epss);
  const fd = openSync(files.kev, 'w', 0o600);
  writeSync(fd, kevCatalog());
  closeSync(fd);
  closeSync(openSync(join(dir, 'complete'), 'w'));
  return files;
}
