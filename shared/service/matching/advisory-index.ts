/**
 * The scan's lookup structure: advisories keyed by (ecosystem, normalised package
 * name), so matching a component costs a few hash lookups however large the
 * corpus is.
 */
import type { Advisory, AffectedPackage } from '../corpus/parse/advisory';
import type { SbomComponent } from '../sbom/model';
import { trimTrailing } from '../text';
import { identify, packageKey, type Candidate, type PackageLookup } from './component-identity';
import { splitEcosystem } from './ecosystems';
import { CVE_ID } from './cve-id';
import { comparatorFor } from './version-schemes';
import type { ComponentMatch, Finding, MatchConfidence } from './model';
import { describeAffected, evaluateAffected, fixedVersionsAbove } from './osv-range';
import { shortName } from './package-name';

type IndexedAdvisory = { advisory: Advisory; affected: AffectedPackage[] };

export type AdvisoryIndex = PackageLookup & {
  readonly size: number;
  entriesFor(key: string): readonly IndexedAdvisory[];
  advisory(id: string): Advisory | undefined;
};

const NO_ENTRIES: readonly IndexedAdvisory[] = [];
const NO_KEYS: readonly string[] = [];

/**
 * RustSec's informational notices (`unsound`, `unmaintained`) are indexed like any advisory, as
 * osv-scanner reports them: some carry a CVE (RUSTSEC-2018-0018 is CVE-2018-25023). Findings mark
 * them (`informational`); hiding them is a team setting applied where findings are read.
 */
export function buildAdvisoryIndex(advisories: Iterable<Advisory>): AdvisoryIndex {
  const packages = new Map<string, IndexedAdvisory[]>();
  const shortNames = new Map<string, string[]>();
  const byId = new Map<string, Advisory>();
  for (const advisory of advisories) {
    if (advisory.withdrawn !== null) continue;
    byId.set(advisory.id, advisory);
    const perKey = new Map<string, AffectedPackage[]>();
    for (const affected of advisory.affected) {
      const split = splitEcosystem(affected.ecosystem);
      if (!split) continue;
      const key = packageKey(split.ecosystem, affected.name);
      perKey.set(key, [...(perKey.get(key) ?? []), affected]);
    }
    for (const [key, affected] of perKey) {
      const list = packages.get(key);
      if (list) list.push({ advisory, affected });
      else {
        packages.set(key, [{ advisory, affected }]);
        const short = shortName(key.slice(key.indexOf('\u0000') + 1));
        shortNames.set(short, [...(shortNames.get(short) ?? []), key]);
      }
    }
  }
  return {
    size: byId.size,
    hasPackage: (key) => packages.has(key),
    keysWithShortName: (name) => shortNames.get(name) ?? NO_KEYS,
    entriesFor: (key) => packages.get(key) ?? NO_ENTRIES,
    advisory: (id) => byId.get(id),
  };
}

/**
 * Longest version the matcher orders. Real versions are far shorter (the spec caps a release
 * version at 100 characters), so a longer one matches no advisory; the cap keeps a hostile SBOM
 * from making every comparison walk megabytes.
 */
export const MAX_MATCH_VERSION_LENGTH = 256;

export function matchComponent(component: SbomComponent, index: AdvisoryIndex): ComponentMatch {
  const { mapped, candidates } = identify(component, index);
  const tooLong = candidates.find((candidate) => (candidate.version?.length ?? 0) > MAX_MATCH_VERSION_LENGTH);
  if (tooLong) {
    // Counted among the unmatched components, with the reason, rather than dropped or guessed at.
    return {
      componentRef: component.ref,
      mapped: false,
      unmatchedReason: 'version_too_long',
      ecosystem: tooLong.ecosystem,
      packageName: tooLong.name,
      findings: [],
      indeterminate: [],
    };
  }
  const matched: Matched[] = [];
  const indeterminate = new Set<string>();
  for (const candidate of candidates) {
    for (const { advisory, affected } of index.entriesFor(candidate.key)) {
      const applicable = affected.filter((a) => appliesTo(a.ecosystem, candidate));
      if (applicable.length === 0) continue;
      if (candidate.version === undefined) {
        indeterminate.add(advisory.id);
        continue;
      }
      const version = candidate.version;
      const results = applicable.map((a) => evaluateAffected(version, a, candidate.ecosystem));
      if (results.includes('affected'))
        matched.push({ finding: toFinding(component, candidate, version, advisory, applicable), advisory });
      else if (results.includes('unknown')) indeterminate.add(advisory.id);
    }
  }
  const primary = candidates[0];
  return {
    componentRef: component.ref,
    mapped,
    ...(primary && { ecosystem: primary.ecosystem, packageName: primary.name }),
    ...(primary?.version !== undefined && { version: primary.version }),
    findings: mergeAliases(matched),
    indeterminate: [...indeterminate].filter((id) => !matched.some((m) => m.advisory.id === id)),
  };
}

export type ScanResult = {
  matches: ComponentMatch[];
  findings: Finding[];
  /** Components that could not be tied to any ecosystem package. */
  unmatchedCount: number;
};

export function scanComponents(components: readonly SbomComponent[], index: AdvisoryIndex): ScanResult {
  const matches = components.map((c) => matchComponent(c, index));
  return {
    matches,
    findings: matches.flatMap((m) => m.findings),
    unmatchedCount: matches.filter((m) => !m.mapped).length,
  };
}

/**
 * Distro advisories are per release (`Debian:11`): they apply to a component of
 * that release, or of an unknown release. A Packagist suffix is a repository
 * URL and must be the component's repository.
 */
function appliesTo(osvEcosystem: string, candidate: Candidate): boolean {
  const suffix = splitEcosystem(osvEcosystem)?.suffix ?? null;
  if (suffix === null) return true;
  switch (candidate.ecosystem) {
    case 'Debian':
    case 'Alpine':
      return candidate.release === null || candidate.release === suffix;
    case 'Ubuntu':
      return candidate.release === null || suffix.split(':').includes(candidate.release);
    case 'Packagist':
      return candidate.repository !== null && candidate.repository === trimTrailing(suffix, '/');
    default:
      return true;
  }
}

function toFinding(
  component: SbomComponent,
  candidate: Candidate,
  version: string,
  advisory: Advisory,
  affected: AffectedPackage[],
): Finding {
  // Every applicable record is release-specific but the SBOM did not say which release it describes.
  const releaseUnknown =
    candidate.release === null && affected.every((a) => (splitEcosystem(a.ecosystem)?.suffix ?? null) !== null);
  const confidence: MatchConfidence =
    candidate.confidence === 'exact' && releaseUnknown && isDistro(candidate) ? 'high' : candidate.confidence;
  return {
    componentRef: component.ref,
    advisoryId: advisory.id,
    cveId: advisory.cveId,
    relatedAdvisoryIds: [],
    confidence,
    evidence: candidate.evidence,
    ecosystem: candidate.ecosystem,
    packageName: candidate.name,
    version,
    affectedRanges: describeAffected(affected, candidate.ecosystem),
    fixedVersions: fixedVersionsAbove(version, affected, candidate.ecosystem),
    informational: advisory.informational,
  };
}

function isDistro(candidate: Candidate): boolean {
  return candidate.ecosystem === 'Debian' || candidate.ecosystem === 'Ubuntu' || candidate.ecosystem === 'Alpine';
}

const CONFIDENCE_RANK: Record<MatchConfidence, number> = { exact: 0, high: 1, low: 2 };

type Matched = { finding: Finding; advisory: Advisory };

/** Richer records first: the primary of a merged finding should carry scores. */
function informationRank(advisory: Advisory): number {
  if (advisory.cvssV3 || advisory.cvssV4) return 0;
  if (advisory.cvssV2 || advisory.databaseSeverity) return 1;
  return 2;
}

/**
 * One vulnerability can come from several databases (GHSA-x, PYSEC-y and GO-z
 * aliasing CVE-n). The spec's vulnerability is "a CVE matched to an SBOM
 * component", so findings with the same CVE collapse into one, and a finding
 * without a CVE joins a group that lists it as an alias. Two different CVEs are
 * never merged, even when their records share an alias (PYSEC-2021-88 and
 * PYSEC-2021-104 both list GHSA-5pr9-v234-jw36). The most confident match, then
 * the best-scored advisory, is the primary; fixed versions are merged.
 */
function mergeAliases(matched: Matched[]): Finding[] {
  const groups: { ids: Set<string>; members: Matched[] }[] = [];
  const byCve = new Map<string, { ids: Set<string>; members: Matched[] }>();
  const withCve = matched.filter((m) => CVE_ID.test(m.advisory.cveId));
  const withoutCve = matched.filter((m) => !CVE_ID.test(m.advisory.cveId));
  for (const item of withCve) {
    let group = byCve.get(item.advisory.cveId);
    if (!group) {
      group = { ids: new Set(), members: [] };
      byCve.set(item.advisory.cveId, group);
      groups.push(group);
    }
    group.members.push(item);
    [item.advisory.id, ...item.advisory.aliases].forEach((id) => group.ids.add(id));
  }
  for (const item of withoutCve) {
    const ids = [item.advisory.id, ...item.advisory.aliases];
    const group = groups.find((g) => ids.some((id) => g.ids.has(id)));
    if (group) {
      group.members.push(item);
      ids.forEach((id) => group.ids.add(id));
    } else groups.push({ ids: new Set(ids), members: [item] });
  }
  return groups.map(({ members }) => {
    const sorted = [...members].sort(
      (a, b) =>
        CONFIDENCE_RANK[a.finding.confidence] - CONFIDENCE_RANK[b.finding.confidence] ||
        informationRank(a.advisory) - informationRank(b.advisory) ||
        a.advisory.id.localeCompare(b.advisory.id),
    );
    const primary = (sorted[0] as Matched).finding; // groups are never empty
    const comparator = comparatorFor(primary.ecosystem);
    const related = [...new Set(sorted.slice(1).map((m) => m.advisory.id))].filter((id) => id !== primary.advisoryId);
    return {
      ...primary,
      cveId: sorted.map((m) => m.advisory.cveId).find((id) => CVE_ID.test(id)) ?? primary.cveId,
      relatedAdvisoryIds: related,
      // A notice merged with a vulnerability record for the same CVE is a vulnerability.
      informational: sorted.every((m) => m.advisory.informational !== null) ? primary.informational : null,
      fixedVersions: [...new Set(sorted.flatMap((m) => m.finding.fixedVersions))].sort(
        (a, b) => comparator.compare(a, b) ?? 0,
      ),
    };
  });
}
