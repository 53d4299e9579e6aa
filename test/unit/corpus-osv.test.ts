import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { zipSync, strToU8 } from 'fflate';
import { advisorySchema, type Advisory } from '../../shared/service/corpus/parse/advisory';
import { scoreCvss } from '../../shared/service/corpus/parse/cvss';
import { isWithdrawn, OsvRecordError, parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { readOsvDirectory, readOsvZip, type OsvReadResult } from '../../shared/service/corpus/parse/osv-archive';

const fixturePath = (name: string) => fileURLToPath(new URL(`../fixtures/corpus/osv/${name}`, import.meta.url));
const samplePath = fileURLToPath(new URL('../../shared/service/corpus/sample/osv', import.meta.url));
const raw = (id: string): unknown => JSON.parse(readFileSync(fixturePath(`${id}.json`), 'utf8'));
const parse = (id: string): Advisory => parseOsvAdvisory(raw(id));

describe('parseOsvAdvisory', () => {
  it('normalises a GHSA npm record with CVSS 3.1 and 4.0 vectors', () => {
    const advisory = parse('GHSA-qwcr-r2fm-qrc7');

    expect(advisory).toMatchObject({
      id: 'GHSA-qwcr-r2fm-qrc7',
      cveId: 'CVE-2024-45590',
      aliases: ['CVE-2024-45590'],
      withdrawn: null,
      cwes: ['CWE-405'],
      databaseSeverity: 'HIGH',
      cvssV2: null,
      // Scores from the FIRST calculators for these vectors.
      cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', score: 7.5, severity: 'HIGH' },
      cvssV4: {
        vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:H/SC:N/SI:N/SA:N',
        score: 8.7,
        severity: 'HIGH',
      },
      affected: [
        {
          ecosystem: 'npm',
          name: 'body-parser',
          versions: [],
          ranges: [
            {
              type: 'ECOSYSTEM',
              events: [
                { kind: 'introduced', version: '0' },
                { kind: 'fixed', version: '1.20.3' },
              ],
            },
          ],
        },
      ],
    });
    expect(advisory.summary).toMatch(/body-parser/);
    expect(advisory.references.length).toBeGreaterThan(0);
    expect(advisorySchema.parse(advisory)).toEqual(advisory);
  });

  it('maps GHSA MODERATE to MEDIUM and keeps both affected entries of one package', () => {
    const advisory = parse('GHSA-22f2-v57c-j9cx');

    expect(advisory.databaseSeverity).toBe('MEDIUM');
    expect(advisory.cvssV3).toEqual({
      vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L',
      score: 5.3,
      severity: 'MEDIUM',
    });
    expect(advisory.affected.map((a) => a.ranges[0]?.events.map((e) => `${e.kind}:${e.version}`))).toEqual([
      ['introduced:3.0.0', 'fixed:3.0.9.1'],
      ['introduced:0.4', 'fixed:2.2.8.1'],
    ]);
  });

  it('scores Log4Shell 10.0 CRITICAL and keeps all its CWEs', () => {
    const advisory = parse('GHSA-jfh8-c2jp-5v3q');

    expect(advisory.cvssV3?.score).toBe(10);
    expect(advisory.cvssV3?.severity).toBe('CRITICAL');
    expect(advisory.cwes).toEqual(['CWE-20', 'CWE-400', 'CWE-502', 'CWE-917']);
  });

  it('falls back to the advisory id when there is no CVE alias and tolerates an empty severity list', () => {
    const advisory = parse('GHSA-5crp-9r3c-p9vr');

    expect(advisory.cveId).toBe('GHSA-5crp-9r3c-p9vr');
    expect(advisory.cvssV3).toBeNull();
    expect(advisory.databaseSeverity).toBe('LOW');
  });

  it('picks the CVE among aliases that list a GHSA first, and keeps SEMVER pre-release events', () => {
    const advisory = parse('RUSTSEC-2021-0069');

    expect(advisory.cveId).toBe('CVE-2021-38189');
    expect(advisory.affected[0]?.ranges).toEqual([
      {
        type: 'SEMVER',
        events: [
          { kind: 'introduced', version: '0.7.0' },
          { kind: 'fixed', version: '0.9.6' },
          { kind: 'introduced', version: '0.10.0-alpha.1' },
          { kind: 'fixed', version: '0.10.0-rc.3' },
        ],
      },
    ]);
    expect(advisory.informational).toBeNull();
  });

  it('scores a CVSS 3.0 vector and flags RustSec informational notices', () => {
    expect(parse('RUSTSEC-2016-0001').cvssV3).toEqual({
      vector: 'CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H',
      score: 8.1,
      severity: 'HIGH',
    });
    expect(parse('RUSTSEC-2018-0017').informational).toBe('unmaintained');
    const smallvec = parseOsvAdvisory(
      JSON.parse(readFileSync(`${samplePath}/crates.io/RUSTSEC-2018-0018.json`, 'utf8')),
    );
    expect(smallvec).toMatchObject({ informational: 'unsound', cveId: 'CVE-2018-25023' });
    const topLevel = parseOsvAdvisory({
      id: 'RUSTSEC-0000-0002',
      modified: '2024-01-01T00:00:00Z',
      database_specific: { informational: 'unmaintained' },
      affected: [],
    });
    expect(topLevel.informational).toBe('unmaintained');
  });

  it('keeps a Go +incompatible fix and uses the Go id when only a GHSA alias exists', () => {
    const advisory = parse('GO-2022-0379');

    expect(advisory.cveId).toBe('GO-2022-0379');
    expect(advisory.affected[0]?.ranges[0]?.events).toEqual([
      { kind: 'introduced', version: '0' },
      { kind: 'fixed', version: '2.8.0+incompatible' },
    ]);
  });

  it('keeps last_affected events and the enumerated versions list', () => {
    const advisory = parse('PYSEC-2022-42969');

    expect(advisory.affected[0]?.ranges[0]?.events).toEqual([
      { kind: 'introduced', version: '0' },
      { kind: 'last_affected', version: '1.11.0' },
    ]);
    expect(advisory.affected[0]?.versions).toHaveLength(65);
  });

  it('flags withdrawn records so the importer can drop them', () => {
    expect(isWithdrawn(parse('GO-2022-0617'))).toBe(true);
    expect(parse('PYSEC-2023-73').withdrawn).toBe('2023-06-06T10:37:00Z');
    expect(isWithdrawn(parse('GO-2022-0379'))).toBe(false);
  });

  it('drops GIT ranges, unknown event keys and packages without ecosystem or name', () => {
    const advisory = parseOsvAdvisory({
      id: 'OSV-2099-1',
      modified: '2099-01-01T00:00:00Z',
      aliases: null,
      upstream: ['CVE-2099-0001'],
      severity: [
        { type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' },
        { type: 'CVSS_V3', score: 'not a vector' },
      ],
      database_specific: { cwes: [{ cweId: 'CWE-79' }, 'cwe-89', 'nonsense'] },
      affected: [
        { package: { ecosystem: 'npm' } },
        {
          package: { ecosystem: 'OSS-Fuzz', name: 'libfoo' },
          ranges: [
            { type: 'GIT', repo: 'https://example.com/libfoo.git', events: [{ introduced: 'abc' }] },
            { type: 'ECOSYSTEM', events: [{ introduced: '1.0' }, { bogus: '2.0' }, { limit: '3.0' }] },
          ],
          versions: ['1.0', 1.1, null],
        },
      ],
    });

    expect(advisory.cveId).toBe('CVE-2099-0001');
    expect(advisory.cvssV2).toEqual({ vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P', score: 7.5, severity: 'HIGH' });
    expect(advisory.cvssV3).toBeNull();
    expect(advisory.cwes).toEqual(['CWE-79', 'CWE-89']);
    expect(advisory.affected).toEqual([
      {
        ecosystem: 'OSS-Fuzz',
        name: 'libfoo',
        versions: ['1.0', '1.1'],
        ranges: [
          {
            type: 'ECOSYSTEM',
            events: [
              { kind: 'introduced', version: '1.0' },
              { kind: 'limit', version: '3.0' },
            ],
          },
        ],
      },
    ]);
  });

  it('rejects records without id or modified', () => {
    expect(() => parseOsvAdvisory([])).toThrow(OsvRecordError);
    expect(() => parseOsvAdvisory({ modified: '2024-01-01T00:00:00Z' })).toThrow('no id');
    expect(() => parseOsvAdvisory({ id: 'X-1' })).toThrow('X-1 has no modified timestamp');
  });
});

describe('scoreCvss', () => {
  it.each([
    // Reference scores from the FIRST specification documents / NVD calculators.
    ['AV:N/AC:L/Au:N/C:P/I:P/A:P', 'v2', 7.5, 'HIGH'],
    ['(AV:L/AC:H/Au:N/C:N/I:P/A:N)', 'v2', 1.2, 'LOW'],
    ['CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 'v3', 10, 'CRITICAL'],
    ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:L/I:L/A:N', 'v3', 5.4, 'MEDIUM'],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 'v3', 0, 'NONE'],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', 'v4', 9.3, 'CRITICAL'],
  ])('scores %s', (vector, version, score, severity) => {
    expect(scoreCvss(vector)).toEqual({ version, score: expect.objectContaining({ score, severity }) });
  });

  it.each(['', 'CVSS:3.1/AV:N', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L/XX:Y', 'CVSS:5.0/AV:N', 'garbage'])(
    'returns null for %j',
    (vector) => {
      expect(scoreCvss(vector)).toBeNull();
    },
  );

  it('scores a vector met again the same, in an object of its own', () => {
    const vector = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N';
    const first = scoreCvss(vector);
    first!.score.severity = 'LOW';
    expect(scoreCvss(vector)).toEqual({
      version: 'v3',
      score: expect.objectContaining({ score: 5.3, severity: 'MEDIUM' }),
    });
    expect(scoreCvss(vector)!.score).not.toBe(scoreCvss(vector)!.score);
  });
});

describe('OSV archives', () => {
  const ids = ['GHSA-qwcr-r2fm-qrc7', 'GO-2022-0379', 'PYSEC-2022-42969'];
  const bytes = (id: string) => new Uint8Array(readFileSync(fixturePath(`${id}.json`)));
  const advisoryIds = (results: OsvReadResult[]) => results.flatMap((r) => ('advisory' in r ? [r.advisory.id] : []));

  it('reads every JSON record of an all.zip, a window at a time, reporting bad entries', () => {
    const zip = zipSync({
      'GHSA-qwcr-r2fm-qrc7.json': bytes('GHSA-qwcr-r2fm-qrc7'),
      'nested/': new Uint8Array(0),
      'nested/GO-2022-0379.json': [bytes('GO-2022-0379'), { level: 0 }],
      'README.txt': strToU8('not an advisory'),
      'broken.json': strToU8('{"id": '),
      'PYSEC-2022-42969.json': [bytes('PYSEC-2022-42969'), { level: 9 }],
    });

    const results = [...readOsvZip(zip, 2)];

    expect(advisoryIds(results)).toEqual(ids);
    expect(results.filter((r) => 'error' in r)).toEqual([
      { source: 'broken.json', error: expect.stringMatching(/JSON/) },
    ]);
  });

  it('reads an empty archive', () => {
    expect([...readOsvZip(zipSync({}))]).toEqual([]);
  });

  it('reads a directory tree of OSV files in sorted order', () => {
    const results = [...readOsvDirectory(fileURLToPath(new URL('../fixtures/corpus/osv', import.meta.url)))];

    expect(results.every((r) => 'advisory' in r)).toBe(true);
    const idsRead = advisoryIds(results);
    expect(idsRead).toEqual([...idsRead].sort());
    expect(idsRead).toEqual(expect.arrayContaining(ids));
  });

  it('parses the whole shipped sample corpus: 892 records, 3 of them withdrawn, all schema-valid', () => {
    const results = [...readOsvDirectory(samplePath)];
    const advisories = results.flatMap((r) => ('advisory' in r ? [r.advisory] : []));

    expect(results.filter((r) => 'error' in r)).toEqual([]);
    expect(advisories).toHaveLength(892);
    expect(
      advisories
        .filter(isWithdrawn)
        .map((a) => a.id)
        .sort(),
    ).toEqual(['GO-2022-0617', 'PYSEC-2022-43059', 'PYSEC-2023-73']);
    for (const advisory of advisories) advisorySchema.parse(advisory);
  });
});
