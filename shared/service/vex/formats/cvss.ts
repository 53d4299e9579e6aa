/**
 * CVSS normalisation for the VEX formats. The vector is the source of truth:
 * when it is a complete, well-formed vector its base score and severity are
 * recomputed from it (shared/service/cvss, the implementation the corpus scores with),
 * because CSAF mandatory test 6.1.9 rejects a baseScore that does not match its
 * vector and all formats should publish the same number. Otherwise the stored
 * score is kept and `computed` is false (CSAF then carries it only as a note).
 */
import { cvssSeverity, scoreCvssVector, type CvssSeverity, type CvssVersion } from '../../cvss/score';
import type { VexCvss } from '../model';

export type { CvssSeverity, CvssVersion };

export interface NormalizedCvss {
  version: CvssVersion;
  /** v3/v4 with `CVSS:x.y/` prefix; v2 without prefix (the FIRST v2 form). */
  vector: string;
  score: number;
  severity: CvssSeverity;
  /** True when the vector parsed and `score` was computed from it (required for CSAF). */
  computed: boolean;
}

/**
 * `versions`: what the finding's field (cvssV2, cvssV3, cvssV4) may hold; a
 * vector of another version there is not scored. `unprefixed`: how a vector
 * without `CVSS:x.y/` is read. `stored`: the version reported when the vector
 * does not score.
 */
function normalize(
  raw: VexCvss,
  versions: readonly CvssVersion[],
  unprefixed: CvssVersion,
  stored: CvssVersion,
): NormalizedCvss {
  const scored = scoreCvssVector(raw.vector, unprefixed);
  if (scored !== null && versions.includes(scored.version)) return { ...scored, computed: true };
  return {
    version: stored,
    vector: raw.vector.trim(),
    score: raw.score,
    severity: cvssSeverity(stored, raw.score),
    computed: false,
  };
}

/** A vector without prefix is read as 3.1. */
export function normalizeCvssV3(raw: VexCvss): NormalizedCvss {
  return normalize(raw, ['3.0', '3.1'], '3.1', raw.vector.trim().startsWith('CVSS:3.0/') ? '3.0' : '3.1');
}

/** Accepts the FIRST form, parentheses and a `CVSS:2.0/` label. */
export function normalizeCvssV2(raw: VexCvss): NormalizedCvss {
  return normalize(raw, ['2.0'], '2.0', '2.0');
}

/** CSAF 2.0 has no v4 field, so v4 only feeds CycloneDX ratings and CSAF notes. */
export function normalizeCvssV4(raw: VexCvss): NormalizedCvss {
  return normalize(raw, ['4.0'], '4.0', '4.0');
}
