/**
 * CVSS base scores, the one implementation: the corpus scores the vectors of
 * imported advisories with it, and the VEX formats recompute from the vector
 * with it (CSAF mandatory test 6.1.9 rejects a base score that does not match
 * its vector, and every format should publish the same number).
 *
 * The formulas are ae-cvss-calculator's (FIRST's 2.0, 3.0, 3.1 and 4.0
 * specifications, maintained by metaeffekt). This module only decides which
 * vectors are well-formed and names the qualitative severity.
 */
// Default import: the package is a CommonJS (webpack UMD) bundle whose named exports Node's ESM loader cannot detect.
import cvssCalculator from 'ae-cvss-calculator';

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';
export type CvssSeverity = 'none' | 'low' | 'medium' | 'high' | 'critical';

export interface CvssBaseScore {
  version: CvssVersion;
  /** v3/v4 with their `CVSS:x.y/` prefix; v2 without prefix or parentheses (FIRST's v2 form). */
  vector: string;
  score: number;
  severity: CvssSeverity;
}

const VERSION_PREFIX = /^CVSS:(2\.0|3\.0|3\.1|4\.0)\//;
const METRIC = /^([A-Za-z]+):[A-Za-z]+$/;

/**
 * Every `/`-separated part is `metric:value` and no metric appears twice. The
 * calculator itself rejects unknown metrics and values but silently accepts
 * repeats (last one wins), empty parts and `A:H:X`; a vector like that is not
 * one FIRST defines, so it gets no computed score.
 */
function wellFormed(body: string): boolean {
  const seen = new Set<string>();
  for (const part of body.split('/')) {
    const metric = METRIC.exec(part)?.[1];
    if (metric === undefined || seen.has(metric)) return false;
    seen.add(metric);
  }
  return true;
}

function calculatorFor(version: CvssVersion, vector: string) {
  switch (version) {
    case '2.0':
      return new cvssCalculator.Cvss2(vector);
    case '3.0':
      return new cvssCalculator.Cvss3P0(vector);
    case '3.1':
      return new cvssCalculator.Cvss3P1(vector);
    case '4.0':
      return new cvssCalculator.Cvss4P0(vector);
  }
}

/**
 * The base score of a vector, or null when it is not a complete, well-formed
 * vector (unknown metric or value, repeated metric, base metric missing). The
 * version comes from the `CVSS:x.y/` prefix; a vector without one is read as
 * `unprefixed` (2.0 unless told otherwise: v2 is the only version whose
 * official form has no prefix). v2's parentheses and `CVSS:2.0/` label are
 * accepted and dropped.
 *
 * For v4 the score covers every metric group the vector carries (CVSS-B, -BT,
 * -BE or -BTE), as the specification names them.
 */
export function scoreCvssVector(rawVector: string, unprefixed: CvssVersion = '2.0'): CvssBaseScore | null {
  const bare = rawVector.trim().replace(/^\(/, '').replace(/\)$/, '');
  const prefix = VERSION_PREFIX.exec(bare);
  const version = (prefix?.[1] as CvssVersion | undefined) ?? unprefixed;
  const body = prefix ? bare.slice(prefix[0].length) : bare;
  if (!wellFormed(body)) return null;
  const vector = version === '2.0' ? body : `CVSS:${version}/${body}`;
  let score: number | undefined;
  try {
    const calculator = calculatorFor(version, vector);
    if (!calculator.isBaseFullyDefined()) return null;
    score = calculator.calculateScores().base;
  } catch {
    // The calculator throws on an unknown metric or value.
    return null;
  }
  if (score === undefined || !Number.isFinite(score)) return null;
  return { version, vector, score, severity: cvssSeverity(version, score) };
}

/** Qualitative rating: FIRST's table for v3 and v4; NVD's three bands for v2, which defines none (and no None/Critical). */
export function cvssSeverity(version: CvssVersion, score: number): CvssSeverity {
  if (version === '2.0') return score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
  if (score === 0) return 'none';
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}
