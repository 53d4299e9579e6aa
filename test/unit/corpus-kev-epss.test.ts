import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { gzipSync, strToU8 } from 'fflate';
import { EpssFileError, parseEpssCsv } from '../../shared/service/corpus/parse/epss';
import { KevCatalogError, parseKevCatalog } from '../../shared/service/corpus/parse/kev';

const kevPath = fileURLToPath(
  new URL('../../shared/service/corpus/sample/kev/known_exploited_vulnerabilities.json', import.meta.url),
);

describe('parseKevCatalog', () => {
  it('reads the shipped CISA catalog (2025.08.25, 1404 entries) into a map by CVE', () => {
    const catalog = parseKevCatalog(readFileSync(kevPath));

    expect(catalog.catalogVersion).toBe('2025.08.25');
    expect(catalog.dateReleased).toBe('2025-08-25T17:04:19.9796Z');
    expect(catalog.entries.size).toBe(1404);
    expect(catalog.skipped).toBe(0);
    expect(catalog.entries.get('CVE-2021-44228')).toMatchObject({
      vendorProject: 'Apache',
      product: 'Log4j2',
      dateAdded: '2021-12-10',
      dueDate: '2021-12-24',
      knownRansomwareCampaignUse: 'Known',
      cwes: ['CWE-20', 'CWE-400', 'CWE-502'],
    });
    expect([...catalog.entries.values()].filter((e) => e.knownRansomwareCampaignUse === 'Known')).toHaveLength(293);
  });

  it('accepts text or parsed JSON and skips entries without a CVE id or dateAdded', () => {
    const catalog = parseKevCatalog({
      catalogVersion: 'x',
      vulnerabilities: [
        { cveID: 'CVE-2024-0001', dateAdded: '2024-01-02' },
        { cveID: 'not-a-cve', dateAdded: '2024-01-02' },
        { cveID: 'CVE-2024-0002' },
        null,
      ],
    });

    expect([...catalog.entries.keys()]).toEqual(['CVE-2024-0001']);
    expect(catalog.entries.get('CVE-2024-0001')).toMatchObject({
      knownRansomwareCampaignUse: 'Unknown',
      dueDate: null,
      cwes: [],
    });
    expect(catalog.skipped).toBe(3);
    expect(parseKevCatalog('{"vulnerabilities": []}').entries.size).toBe(0);
  });

  it('rejects documents that are not a KEV catalog', () => {
    expect(() => parseKevCatalog('{')).toThrow(KevCatalogError);
    expect(() => parseKevCatalog({ title: 'x' })).toThrow('not a KEV catalog');
  });
});

// Synthetic rows in FIRST's published layout (the real EPSS slice has no redistributable licence).
const EPSS_CSV = [
  '#model_version:v2025.03.14,score_date:2025-06-01T12:55:00Z',
  'cve,epss,percentile',
  'CVE-2021-44228,0.944010000,0.999950000',
  'CVE-2024-45590,0.000450000,0.173210000',
  'cve-2022-22965,0.943350000,0.999820000',
  'CVE-2099-0001,1.5,0.1',
  'GHSA-xxxx,0.1,0.1',
  '',
].join('\n');

describe('parseEpssCsv', () => {
  it('reads the model version, score date and scores of a FIRST daily file', () => {
    const result = parseEpssCsv(EPSS_CSV);

    expect(result.modelVersion).toBe('v2025.03.14');
    expect(result.scoreDate).toBe('2025-06-01T12:55:00Z');
    expect(result.scores.get('CVE-2021-44228')).toEqual({ epss: 0.94401, percentile: 0.99995 });
    expect(result.scores.get('CVE-2022-22965')).toEqual({ epss: 0.94335, percentile: 0.99982 });
    expect(result.scores.size).toBe(3);
    expect(result.skipped).toBe(2);
  });

  it('reads the gzip-compressed file from bytes', () => {
    const result = parseEpssCsv(gzipSync(strToU8(EPSS_CSV)));

    expect(result.scores.get('CVE-2024-45590')).toEqual({ epss: 0.00045, percentile: 0.17321 });
  });

  it('reads files without the comment line and with reordered columns', () => {
    const result = parseEpssCsv('percentile,cve,epss\r\n0.5,CVE-2020-0001,0.25\r\n');

    expect(result.modelVersion).toBeNull();
    expect(result.scores.get('CVE-2020-0001')).toEqual({ epss: 0.25, percentile: 0.5 });
  });

  it('rejects a header that lacks the score columns', () => {
    expect(() => parseEpssCsv('cve,score\nCVE-2020-0001,0.3\n')).toThrow(EpssFileError);
  });
});
