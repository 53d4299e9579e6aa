/**
 * Scores the CVSS vectors of imported advisories (shared/service/cvss: ae-cvss-calculator,
 * FIRST's formulas for 2.0, 3.0, 3.1 and 4.0). Vectors that do not score
 * (unknown metric, missing base metric) yield null rather than an error: one
 * bad vector must not drop an advisory.
 */
import { cvssSeverity, scoreCvssVector, type CvssVersion as CvssSpecVersion } from '../../cvss/score';
import type { CvssScore, SeverityLevel } from './advisory';

export type CvssVersion = 'v2' | 'v3' | 'v4';

const FAMILY: Readonly<Record<CvssSpecVersion, CvssVersion>> = { '2.0': 'v2', '3.0': 'v3', '3.1': 'v3', '4.0': 'v4' };

type Scored = { version: CvssVersion; score: CvssScore } | null;

/**
 * Scores by vector, as met: a corpus repeats a few thousand vectors over hundreds of thousands of
 * records, and scoring one was a tenth of the importing process's own work. Emptied when full.
 */
const scoredVectors = new Map<string, Scored>();
const SCORED_VECTORS = 20_000;

/** The version comes from the `CVSS:x.y/` prefix; an unprefixed vector is v2 (sometimes in parentheses or labelled `CVSS:2.0/`). */
export function scoreCvss(rawVector: string): Scored {
  let scored = scoredVectors.get(rawVector);
  if (scored === undefined) {
    if (scoredVectors.size >= SCORED_VECTORS) scoredVectors.clear();
    scored = scoreUncached(rawVector);
    scoredVectors.set(rawVector, scored);
  }
  // A copy: the caller's advisory owns its score.
  return scored && { version: scored.version, score: { ...scored.score } };
}

function scoreUncached(rawVector: string): Scored {
  const scored = scoreCvssVector(rawVector);
  if (scored === null) return null;
  const version = FAMILY[scored.version];
  return {
    version,
    score: { vector: scored.vector, score: scored.score, severity: severityFor(version, scored.score) },
  };
}

/** Qualitative ratings: FIRST's table for v3/v4, NVD's three bands for v2 (which has no None/Critical). */
export function severityFor(version: CvssVersion, score: number): SeverityLevel {
  return cvssSeverity(version === 'v2' ? '2.0' : '3.1', score).toUpperCase() as SeverityLevel;
}
