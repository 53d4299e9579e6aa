/**
 * OSV's modified_id.csv (shared/service/corpus/osv-feed.ts): `<modified>,<ID>` lines as OSV's exporter
 * writes them (Go's RFC3339Nano: a fraction only when the time has one, trailing zeros dropped), and
 * the fixed-width form the refresh compares them in.
 */
import { describe, expect, it } from '@jest/globals';
import { normalizeOsvTime, parseModifiedIds } from '../../shared/service/corpus/osv-feed';

describe('OSV listing times', () => {
  it('compare in time order whatever their fractional width', () => {
    const times = ['2026-11-01T10:00:05Z', '2026-11-01T10:00:05.5Z', '2026-11-01T10:00:05.123456789Z'];
    // As plain strings "…05Z" sorts after "…05.5Z"; normalised, they sort by time.
    expect(times.map((time) => normalizeOsvTime(time)).sort()).toEqual([
      '2026-11-01T10:00:05.000000000Z',
      '2026-11-01T10:00:05.123456789Z',
      '2026-11-01T10:00:05.500000000Z',
    ]);
  });

  it('shift other offsets to UTC and refuse what is not RFC 3339', () => {
    expect(normalizeOsvTime('2026-11-01T12:00:05.25+02:00')).toBe('2026-11-01T10:00:05.250000000Z');
    expect(normalizeOsvTime('2026-11-01')).toBeNull();
    expect(normalizeOsvTime('yesterday')).toBeNull();
  });
});

describe('parseModifiedIds', () => {
  it('reads `<modified>,<ID>` lines, LF or CRLF, skipping blank ones and a header', () => {
    expect(
      parseModifiedIds(
        'u',
        'modified,id\n2026-11-01T10:00:05.5Z,GHSA-aaaa-bbbb-cccc\r\n2026-11-01T09:00:00Z,PYSEC-2026-1\n\n',
      ),
    ).toEqual([
      { modified: '2026-11-01T10:00:05.500000000Z', id: 'GHSA-aaaa-bbbb-cccc' },
      { modified: '2026-11-01T09:00:00.000000000Z', id: 'PYSEC-2026-1' },
    ]);
  });

  it.each([['GHSA-only-an-id'], ['not a time,GHSA-x'], ['2026-11-01T10:00:00Z,'], ['2026-11-01T10:00:00Z,a/b']])(
    'fails the listing on the line %j',
    (line) => {
      expect(() => parseModifiedIds('https://osv.test/npm/modified_id.csv', `${line}\n`)).toThrow(
        /modified_id\.csv: line 1 is not "<modified>,<id>"/,
      );
    },
  );
});
