/**
 * CRA cases as stored: one item per (product, vulnerability) in the team's CRA partition, written whole
 * and guarded by its revision, so two changes of one case never interleave (cases are few and change
 * rarely; the read-modify-write keeps every rule in one place). While a case counts down it carries the
 * live-case index entry (keys.craOpenIndex) the deadline check reads.
 */
import { createHash } from 'node:crypto';
import { keys } from '../data/keys';
import { getItem, queryAll, tx, type Item, type TransactItem } from '../data/table-client';
import { isLive, type CraStage, type CraStatus } from './rules';

export interface AffectedRelease {
  releaseId: string;
  version: string;
  /** The open findings of the vulnerability in this release when it was last seen. */
  findingIds: string[];
  components: { name: string; version: string | null; purl: string | null }[];
  fixedVersions: string[];
  firstDetectedAt: string;
}

export interface Exploitation {
  source: 'kev' | 'member';
  /** CISA's date (KEV) and when Vexdesk first saw the listing. */
  kevDateAdded: string | null;
  kevAddedAt: string | null;
  knownRansomwareCampaignUse: string | null;
  /** A member's statement: why, and where the evidence is. */
  reason: string | null;
  evidenceUrl: string | null;
  markedBy: string | null;
}

export interface Submission {
  stage: CraStage;
  submittedAt: string;
  reference: string;
  note: string | null;
  recordedAt: string;
  recordedBy: string;
}

export interface Fix {
  availableAt: string;
  source: 'release' | 'member';
  releaseId: string | null;
  version: string | null;
  measure: string | null;
}

export interface Draft {
  fields: Record<string, string>;
  version: number;
  updatedAt: string;
  updatedBy: string;
}

/** A CSAF advisory drafted from the case for one affected release (Art. 14(8)); published, it informs users. */
export interface InformingDocument {
  vexId: string;
  releaseId: string;
  version: string;
  draftedAt: string;
  draftedBy: string;
  publishedAt: string | null;
  disclosureSlug: string | null;
}

export interface UsersInformed {
  documents: InformingDocument[];
  /** When the first of the case's advisories was published: users were informed then. */
  informedAt: string | null;
}

export interface TimelineEntry {
  at: string;
  type: string;
  by: string;
  detail: Record<string, unknown>;
}

export interface CraCase {
  id: string;
  teamId: string;
  productId: string;
  productName: string;
  /** The CVE when there is one, else the advisory id: what the case is about, aliases joined. */
  vulnerabilityId: string;
  aliases: string[];
  advisoryIds: string[];
  summary: string;
  severity: string;
  cvss: { version: string; vector: string; score: number } | null;
  cwes: string[];
  exploitation: Exploitation;
  /** When Vexdesk first held both facts; `observedAwareAt` keeps that observation when a member sets it earlier. */
  awareAt: string;
  observedAwareAt: string;
  awareAtReason: string | null;
  affected: AffectedRelease[];
  fix: Fix | null;
  status: CraStatus;
  submissions: Submission[];
  dismissal: { reason: string; at: string; by: string } | null;
  /** Set when a `not_affected` decision now covers every affected release: a person dismisses, not the service. */
  dismissalSuggested: { at: string; justification: string | null } | null;
  drafts: Partial<Record<CraStage, Draft>>;
  /** The advisories that inform users (absent on cases stored before users could be informed from a case). */
  usersInformed?: UsersInformed | null;
  /** Deadline signals already sent (`<stage>:<label>`), so the periodic check sends each once. */
  signals: string[];
  timeline: TimelineEntry[];
  createdAt: string;
  updatedAt: string;
  revision: number;
}

/** A case's id derives from its team, product and vulnerability: whoever opens it first, it is the same case. */
export function caseIdOf(teamId: string, productId: string, vulnerabilityId: string): string {
  const hash = createHash('sha256').update(`cra\u0000${teamId}\u0000${productId}\u0000${vulnerabilityId}`).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Timeline entries kept on the item: the case's life fits in far fewer, and the audit log keeps all. */
const TIMELINE_LIMIT = 200;

export function caseItem(craCase: CraCase): Item {
  const { timeline, ...fields } = craCase;
  return {
    ...keys.craCase(craCase.teamId, craCase.id),
    ...(isLive(craCase.status) ? keys.craOpenIndex(craCase.teamId, craCase.id) : {}),
    entity: 'CraCase',
    ...fields,
    timeline: timeline.slice(-TIMELINE_LIMIT),
  };
}

export function toCase(item: Item): CraCase {
  const {
    pk: _pk,
    sk: _sk,
    gsi1pk: _gsi1pk,
    gsi1sk: _gsi1sk,
    entity: _entity,
    ...fields
  } = item as Item & Record<string, unknown>;
  return fields as unknown as CraCase;
}

export const caseStore = {
  async find(teamId: string, caseId: string): Promise<CraCase | undefined> {
    const item = await getItem(keys.craCase(teamId, caseId));
    return item ? toCase(item) : undefined;
  },

  async list(teamId: string): Promise<CraCase[]> {
    return (await queryAll(keys.craCases(teamId))).map(toCase);
  },

  /** The write of a case read at `revision` (0: a new case): fails when another change came first. */
  write(next: CraCase, readRevision: number): TransactItem {
    if (readRevision === 0) return tx.create(caseItem(next));
    return tx.put(caseItem(next), '#revision = :revision', { '#revision': 'revision' }, { ':revision': readRevision });
  },
};
