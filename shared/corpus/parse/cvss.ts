/**
 * Scores CVSS vectors with ae-cvss-calculator (FIRST's formulas for 2.0, 3.0,
 * 3.1 and 4.0). Vectors that do not score (unknown metric, missing base metric)
 * yield null rather than an error: one bad vector must not drop an advisory.
 */
// Default import: the package is a CommonJS bundle whose named exports Node's ESM loader cannot detect.
import cvssCalculator from 'ae-cvss-calculator';
import type { CvssScore, SeverityLevel } from './advisory';

export type CvssVersion = 'v2' | 'v3' | 'v4';

export function scoreCvss(rawVector: string): { version: CvssVersion; score: CvssScore } | null {
  const vector = rawVector.trim();
  try {
    if (vector.startsWith('CVSS:4.0/')) return withScore('v4', vector, new cvssCalculator.Cvss4P0(vector).calculateScores().base);
    if (vector.startsWith('CVSS:3.1/')) return withScore('v3', vector, new cvssCalculator.Cvss3P1(vector).calculateScores().base);
    if (vector.startsWith('CVSS:3.0/')) return withScore('v3', vector, new cvssCalculator.Cvss3P0(vector).calculateScores().base);
    // v2 vectors carry no prefix, sometimes parentheses or a "CVSS:2.0/" label.
    const v2 = vector.replace(/^\(|\)$/g, '').replace(/^CVSS:2\.0\//, '');
    if (/^AV:[LAN]\//.test(v2)) return withScore('v2', v2, new cvssCalculator.Cvss2(v2).calculateScores().base);
  } catch {
    return null;
  }
  return null;
}

function withScore(version: CvssVersion, vector: string, base: number | undefined) {
  if (base === undefined || !Number.isFinite(base)) return null;
  return { version, score: { vector, score: base, severity: severityFor(version, base) } };
}

/** Qualitative ratings: FIRST's table for v3/v4, NVD's three bands for v2 (which has no None/Critical). */
export function severityFor(version: CvssVersion, score: number): SeverityLevel {
  if (version === 'v2') return score >= 7 ? 'HIGH' : score >= 4 ? 'MEDIUM' : 'LOW';
  if (score === 0) return 'NONE';
  if (score >= 9) return 'CRITICAL';
  if (score >= 7) return 'HIGH';
  if (score >= 4) return 'MEDIUM';
  return 'LOW';
}
