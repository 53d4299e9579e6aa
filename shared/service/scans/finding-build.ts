/**
 * A stored finding built from one match of the matcher: the same for a scan of the whole SBOM and for
 * a re-evaluation of some of its components after the corpus moved (shared/service/watch/reevaluation.ts).
 * The matching, severity and score reads happen before; this only assembles the record and carries
 * what a finding keeps from its previous version (first detection, who detected it, the KEV sighting).
 */
import type { CveScores } from '../corpus/corpus-store';
import type { SeverityResolution } from '../corpus/alias-severity';
import type { AdvisoryIndex } from '../matching/advisory-index';
import type { Finding as Match } from '../matching/model';
import { CVE_ID } from '../matching/cve-id';
import type { SbomComponent } from '../sbom/model';
import { findingId, type Finding } from './finding-store';

export type DetectedBy = NonNullable<Finding['detectedBy']>;

export interface FindingContext {
  teamId: string;
  productId: string;
  releaseId: string;
  sbomId: string;
  index: AdvisoryIndex;
  componentsByRef: ReadonlyMap<string, SbomComponent>;
  severityOf: (match: Match) => SeverityResolution;
  scores: ReadonlyMap<string, CveScores>;
  /** What found matches that had no finding before. */
  detectedBy: DetectedBy;
  now: string;
}

/** The CVE ids whose KEV and EPSS entries a set of matches needs. */
export function scoredCveIds(matches: readonly Match[]): string[] {
  return matches.map((match) => match.cveId).filter((id) => CVE_ID.test(id));
}

export function buildFinding(match: Match, context: FindingContext, previous: Finding | undefined): Finding {
  const { teamId, productId, releaseId, sbomId, index, now } = context;
  const advisory = index.advisory(match.advisoryId);
  const component = context.componentsByRef.get(match.componentRef);
  const id = findingId(sbomId, match.componentRef, match.advisoryId);
  const { severity, source, sourceId, cvssV2, cvssV3, cvssV4 } = context.severityOf(match);
  const cveScores = context.scores.get(match.cveId);
  const kev = cveScores?.kev ?? null;
  // A finding that was resolved and matches again is detected anew.
  const reopened = previous !== undefined && previous.noLongerDetected;
  return {
    id,
    teamId,
    productId,
    releaseId,
    sbomId,
    advisoryId: match.advisoryId,
    cveId: match.cveId,
    aliases: [...new Set([...(advisory?.aliases ?? []), ...match.relatedAdvisoryIds])]
      .filter((alias) => alias !== match.cveId)
      .sort(),
    summary: advisory?.summary ?? '',
    componentRef: match.componentRef,
    componentName: component?.name ?? match.packageName,
    componentVersion: component?.version ?? match.version,
    componentPurl: component?.purl ?? null,
    severity,
    severitySource: source,
    severitySourceId: sourceId,
    cvssV2,
    cvssV3,
    cvssV4,
    epss: cveScores?.epss ?? null,
    kev,
    cwes: advisory?.cwes ?? [],
    affectedVersions: match.affectedRanges ? [match.affectedRanges] : [],
    fixedVersions: match.fixedVersions,
    matchConfidence: match.confidence,
    matchEvidence: match.evidence,
    informational: match.informational,
    firstDetectedAt: previous && !reopened ? previous.firstDetectedAt : now,
    detectedBy: previous && !reopened ? (previous.detectedBy ?? 'scan') : context.detectedBy,
    lastSeenAt: now,
    noLongerDetected: false,
    resolvedAt: null,
    resolvedReason: null,
    // When Vexdesk first saw the KEV listing for this finding; CISA's own date stays in `kev.dateAdded`.
    kevAddedAt: kev === null ? null : previous?.kev ? (previous.kevAddedAt ?? previous.firstDetectedAt) : now,
  };
}

/**
 * A finding changed in a way its readers see, not only `lastSeenAt`: a scan or a re-evaluation
 * rewrites only those, and keeps the stored version of the others.
 */
export function changedForReaders(before: Finding, after: Finding): boolean {
  return JSON.stringify({ ...before, lastSeenAt: '' }) !== JSON.stringify({ ...after, lastSeenAt: '' });
}

/** The finding, no longer matched: kept, out of the default lists, with why. */
export function resolveFinding(finding: Finding, reason: NonNullable<Finding['resolvedReason']>, now: string): Finding {
  return { ...finding, noLongerDetected: true, resolvedAt: now, resolvedReason: reason };
}
