/**
 * Findings ("vulnerabilities" in the spec): one advisory matched to one SBOM
 * component. Their ids are derived from (SBOM, component, advisory), so a
 * rescan or a corpus refresh yields the same id and dispositions stay attached.
 */
import { createHash } from 'node:crypto';
import { keys } from '../data/keys';
import { getItem, queryAll, type Item } from '../data/table-client';
import { pointerItem, resolvePointer } from '../data/id-pointers';

export type Severity = 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW' | 'NONE';
export interface Cvss {
  vector: string;
  score: number;
  severity: Severity;
}

export interface Finding {
  id: string;
  teamId: string;
  productId: string;
  releaseId: string;
  sbomId: string;
  advisoryId: string;
  cveId: string;
  aliases: string[];
  summary: string;
  componentRef: string;
  componentName: string;
  componentVersion: string | null;
  componentPurl: string | null;
  severity: Severity;
  /** Where `severity` came from: the highest-fidelity score available. */
  severitySource: 'cvss_v4' | 'cvss_v3' | 'cvss_v2' | 'advisory' | null;
  /**
   * The record `severity` and the CVSS fields come from: the finding's own advisory, or an aliased
   * record when the advisory has no CVSS (docs/scanning.md "Severity from aliased records"); null
   * with `severitySource`. Absent on findings stored before it existed (set on their next scan).
   */
  severitySourceId?: string | null;
  cvssV2: Cvss | null;
  cvssV3: Cvss | null;
  cvssV4: Cvss | null;
  epss: { score: number; percentile: number; date: string | null } | null;
  kev: { dateAdded: string; dueDate: string | null; knownRansomwareCampaignUse: string | null } | null;
  cwes: string[];
  affectedVersions: string[];
  fixedVersions: string[];
  matchConfidence: 'exact' | 'high' | 'low';
  matchEvidence: { kind: 'purl' | 'cpe' | 'name'; value: string };
  firstDetectedAt: string;
  lastSeenAt: string;
  /** What found it first: the SBOM's scan, or a re-evaluation after the corpus moved. Absent on older findings (a scan). */
  detectedBy?: 'scan' | 'corpus_update';
  /**
   * No longer matched (the advisory was withdrawn, or no longer covers the version): kept, with its
   * decision, out of the default lists. `resolvedAt`/`resolvedReason` are absent on findings a scan
   * marked before resolution had a reason.
   */
  noLongerDetected: boolean;
  resolvedAt?: string | null;
  resolvedReason?: 'advisory_withdrawn' | 'no_longer_affected' | null;
  /** When Vexdesk first saw the advisory KEV-listed for this finding (null when not listed). */
  kevAddedAt?: string | null;
  /** RustSec notice kind (`unsound`, `unmaintained`, `notice`) when the finding is not a vulnerability; absent on findings stored before it existed. */
  informational?: string | null;
}

/** Informational findings are listed unless the team hides them (team setting `hideInformational`). */
export function shownTo(settings: { hideInformational: boolean }): (finding: Finding) => boolean {
  return (finding) => !settings.hideInformational || (finding.informational ?? null) === null;
}

/** A name-based UUID (version 5 layout over SHA-256) of the finding's identity. */
export function findingId(sbomId: string, componentRef: string, advisoryId: string): string {
  const hash = createHash('sha256').update(`${sbomId}\u0000${componentRef}\u0000${advisoryId}`).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The finding as one JSON string beside a few scalar attributes to read
 * items by: a scan writes thousands and a list reads them all, and
 * (un)marshalling nested attribute maps (scores, evidence, KEV) was most of
 * that cost (docs/scanning.md "Where scan time goes").
 */
export function findingItem(finding: Finding): Item {
  const { id, teamId, productId, releaseId, sbomId, advisoryId, cveId, severity, componentRef } = finding;
  const key = keys.finding(teamId, productId, releaseId, sbomId, id);
  return {
    ...key,
    // The team's findings by advisory and by CVE (GET /api/vulnerabilities?advisory=, docs/portfolio.md).
    ...keys.findingByAdvisory(teamId, advisoryId, productId, key.sk),
    ...(cveId && cveId !== advisoryId ? keys.findingByCve(teamId, cveId, productId, key.sk) : {}),
    entity: 'Finding',
    id,
    teamId,
    productId,
    releaseId,
    sbomId,
    advisoryId,
    cveId,
    severity,
    componentRef,
    findingJson: JSON.stringify(finding),
  };
}

/** The id pointer that resolves a new finding's public id (written once, with its first item). */
export function findingPointerItem(finding: Finding): Item {
  const { teamId, productId, releaseId, sbomId, id } = finding;
  return pointerItem(teamId, id, {
    entityType: 'finding',
    target: keys.finding(teamId, productId, releaseId, sbomId, id),
    productId,
    releaseId,
    sbomId,
  });
}

export function toFinding(item: Item): Finding {
  if (typeof item.findingJson === 'string') return JSON.parse(item.findingJson) as Finding; // written only by findingItem
  const { pk: _pk, sk: _sk, entity: _entity, ...fields } = item;
  return fields as unknown as Finding; // an item written before findings became one string
}

export const findingStore = {
  async resolve(teamId: string, findingIdValue: string): Promise<Finding | undefined> {
    const pointer = await resolvePointer(teamId, findingIdValue, 'finding');
    if (!pointer) return undefined;
    const item = await getItem(pointer.target);
    return item ? toFinding(item) : undefined;
  },

  async listBySbom(teamId: string, productId: string, releaseId: string, sbomId: string): Promise<Finding[]> {
    const { pk, skPrefix } = keys.findingPrefix(teamId, productId, releaseId, sbomId);
    return (await queryAll({ pk, skPrefix })).map(toFinding);
  },

  async listByRelease(teamId: string, productId: string, releaseId: string): Promise<Finding[]> {
    const { pk, skPrefix } = keys.findingPrefix(teamId, productId, releaseId);
    return (await queryAll({ pk, skPrefix })).map(toFinding);
  },
};
