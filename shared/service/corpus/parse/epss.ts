/**
 * FIRST EPSS daily scores (epss_scores-YYYY-MM-DD.csv[.gz]): an optional comment
 * line `#model_version:...,score_date:...`, a `cve,epss,percentile` header, then
 * one row per CVE. Rows that are not a CVE with two probabilities are skipped.
 */
import { parse } from 'csv-parse/sync';
import { gunzipSync } from 'fflate';
import { CVE_ID } from '../../matching/cve-id';

export type EpssScore = { epss: number; percentile: number };
export type EpssScores = {
  modelVersion: string | null;
  scoreDate: string | null;
  scores: Map<string, EpssScore>;
  skipped: number;
};

export class EpssFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EpssFileError';
  }
}

export function parseEpssCsv(input: Uint8Array | string): EpssScores {
  const text =
    typeof input === 'string' ? input : new TextDecoder('utf-8').decode(isGzip(input) ? gunzipSync(input) : input);
  const lines = text.replace(/^\uFEFF/, '');
  const firstBreak = lines.indexOf('\n');
  const firstLine = (firstBreak === -1 ? lines : lines.slice(0, firstBreak)).trim();
  const meta = firstLine.startsWith('#') ? parseMeta(firstLine) : { modelVersion: null, scoreDate: null };
  const body = firstLine.startsWith('#') ? lines.slice(firstBreak + 1) : lines;

  let rows: string[][];
  try {
    rows = parse(body, { skip_empty_lines: true, trim: true, relax_column_count: true, comment: '#' });
  } catch (error) {
    throw new EpssFileError(`EPSS file is not valid CSV (${error instanceof Error ? error.message : 'parse error'})`);
  }
  const header = rows[0]?.map((h) => h.toLowerCase());
  const hasHeader = header?.includes('cve') === true;
  const column = (name: string, fallback: number) => (hasHeader ? header.indexOf(name) : fallback);
  const [cveCol, epssCol, pctCol] = [column('cve', 0), column('epss', 1), column('percentile', 2)];
  if (cveCol < 0 || epssCol < 0 || pctCol < 0)
    throw new EpssFileError('EPSS header must name cve, epss and percentile columns');

  const scores = new Map<string, EpssScore>();
  let skipped = 0;
  for (const row of hasHeader ? rows.slice(1) : rows) {
    const cve = row[cveCol]?.toUpperCase();
    const epss = probability(row[epssCol]);
    const percentile = probability(row[pctCol]);
    if (cve === undefined || !CVE_ID.test(cve) || epss === null || percentile === null) {
      skipped++;
      continue;
    }
    scores.set(cve, { epss, percentile });
  }
  return { ...meta, scores, skipped };
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** `#model_version:v2025.03.14,score_date:2025-06-01T12:55:00Z` */
function parseMeta(line: string): { modelVersion: string | null; scoreDate: string | null } {
  const fields = new Map<string, string>();
  for (const part of line.slice(1).split(',')) {
    const colon = part.indexOf(':');
    if (colon > 0) fields.set(part.slice(0, colon).trim(), part.slice(colon + 1).trim());
  }
  return { modelVersion: fields.get('model_version') ?? null, scoreDate: fields.get('score_date') ?? null };
}

function probability(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : null;
}
