import { describe, expect, it } from '@jest/globals';
import {
  EPSS_BUCKETS,
  epssBucketItem,
  epssBucketOf,
  epssScoreIn,
  serialiseEpssBucket,
} from '../../shared/service/corpus/epss-buckets';
import { keys } from '../../shared/service/data/keys';

describe('epssBucketOf', () => {
  it('is FNV-1a of the id modulo the bucket count: fixed values, as every release must compute them', () => {
    expect(EPSS_BUCKETS).toBe(4096);
    // FNV-1a 32-bit of "CVE-2021-44228" is 0x4fe1c7dc (computed apart, in Python); the empty string's is the offset basis.
    expect(epssBucketOf('')).toBe(0x811c9dc5 % 4096);
    expect(epssBucketOf('CVE-2021-44228')).toBe(0x4fe1c7dc % 4096);
  });

  it('spreads a dense run of CVE ids over every bucket, none more than twice the mean', () => {
    const counts = new Array<number>(EPSS_BUCKETS).fill(0);
    for (let n = 0; n < 200_000; n++) counts[epssBucketOf(`CVE-${2000 + (n % 25)}-${10_000 + n}`)]! += 1;
    const mean = 200_000 / EPSS_BUCKETS;
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThan(2 * mean);
  });
});

describe('an EPSS bucket', () => {
  const entries: [string, { epss: number; percentile: number }][] = [
    ['CVE-2021-44228', { epss: 0.94401, percentile: 0.99995 }],
    ['CVE-2021-4422', { epss: 0.00045, percentile: 0.17321 }],
    ['CVE-2024-0001', { epss: 0.00001, percentile: 0 }],
    ['CVE-2024-0002', { epss: 1, percentile: 1 }],
  ];
  const json = serialiseEpssBucket(entries);

  it('is one JSON object of [probability, percentile] per CVE, named without "CVE-"', () => {
    expect(JSON.parse(json)).toEqual({
      '2021-44228': [0.94401, 0.99995],
      '2021-4422': [0.00045, 0.17321],
      '2024-0001': [0.00001, 0],
      '2024-0002': [1, 1],
    });
  });

  it('gives back each CVE exactly, and none for a CVE whose name only begins or ends another', () => {
    for (const [cveId, score] of entries) expect(epssScoreIn(json, cveId)).toEqual(score);
    expect(epssScoreIn(json, 'CVE-2021-442')).toBeNull();
    expect(epssScoreIn(json, 'CVE-2021-422')).toBeNull();
    expect(epssScoreIn(json, 'CVE-1999-0001')).toBeNull();
    expect(epssScoreIn(serialiseEpssBucket([]), 'CVE-2021-44228')).toBeNull();
  });

  it('is stored with the file score date and model version under its bucket key', () => {
    const scores = {
      modelVersion: 'v2025.03.14',
      scoreDate: '2026-12-06T00:00:00Z',
      skipped: 0,
      scores: new Map(entries),
    };
    const item = epssBucketItem(7, scores, ['CVE-2024-0002']);
    expect(item).toEqual({
      ...keys.corpusEpssBucket(7),
      entity: 'CorpusEpssBucket',
      bucket: 7,
      scoresJson: '{"2024-0002":[1,1]}',
      scoreDate: '2026-12-06T00:00:00Z',
      modelVersion: 'v2025.03.14',
    });
  });
});
