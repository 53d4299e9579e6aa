/** VEX document items, their approval records, and their content files. */
import { promisify } from 'node:util';
import { gunzip, gzip, constants as zlibConstants } from 'node:zlib';
import { getObject, putObject } from '../aws-s3';
import { config } from '../config';
import { keys } from '../data/keys';
import { getItem, queryAll, type Item } from '../data/table-client';
import { resolveUnderRelease, type ResolvedRelease } from '../releases/release-store';
import type { ApprovalRecordView, VexDocumentView, VexFormat } from '../schemas/vex';
import type { Submitter } from './distinct-approver';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

export type WorkflowStatus = 'draft' | 'submitted' | 'approved' | 'published';
export type ApprovalAction = 'submit' | 'approve' | 'reject' | 'publish' | 'unlock';

export interface VexDocumentRecord {
  id: string;
  teamId: string;
  productId: string;
  releaseId: string;
  format: VexFormat;
  workflowStatus: WorkflowStatus;
  author: string | null;
  version: number;
  contentKey: string;
  inputKey: string;
  contentHash: string;
  sbomIds: string[];
  findingCount: number;
  createdAt: string;
  /** Time version 1 was generated; CSAF's initial_release_date. */
  updatedAt: string;
  createdBy: { id: string; name: string };
  submittedBy: Submitter | null;
  approvedAt: string | null;
  publishedAt: string | null;
  disclosure: { id: string; slug: string } | null;
  revisions: { version: number; date: string; summary: string }[];
  revision: number;
  /** SBOM the document is bound to (its findings only), or null for all SBOMs of the release; absent on older items. */
  sbomId?: string | null;
  /**
   * `lockedAt` of the release lock this document was submitted under (it took the lock, or joined
   * the one another format's document holds); null while draft; absent on older items.
   */
  lockedAt?: string | null;
  /** The CRA case this advisory was drafted from to inform users (docs/cra-reporting.md); its publication is recorded there. */
  craCaseId?: string | null;
}

export interface ApprovalRecord {
  id: string;
  vexId: string;
  action: ApprovalAction;
  actorId: string;
  actorName: string;
  comment: string;
  createdAt: string;
  documentVersion: number;
}

export function vexItem(record: VexDocumentRecord): Item {
  return {
    ...keys.vexDocument(record.teamId, record.productId, record.releaseId, record.id),
    entity: 'VexDocument',
    ...record,
  };
}

export function toVexRecord(item: Item): VexDocumentRecord {
  const { pk: _pk, sk: _sk, entity: _entity, ...fields } = item;
  return fields as unknown as VexDocumentRecord; // written only by vexItem
}

export function approvalItem(record: VexDocumentRecord, approval: ApprovalRecord): Item {
  return {
    ...keys.approval(record.teamId, record.productId, record.releaseId, record.id, approval.createdAt, approval.id),
    entity: 'Approval',
    ...approval,
  };
}

export function toApprovalView(approval: ApprovalRecord): ApprovalRecordView {
  return {
    id: approval.id,
    action: approval.action,
    actor_id: approval.actorId,
    actor_name: approval.actorName,
    comment: approval.comment,
    created_at: approval.createdAt,
    document_version: approval.documentVersion,
  };
}

/** `content`: the parsed JSON of the document the service generated, an object in every format. */
export function toVexView(record: VexDocumentRecord, content?: unknown): VexDocumentView {
  return {
    id: record.id,
    releaseId: record.releaseId,
    productId: record.productId,
    format: record.format,
    workflow_status: record.workflowStatus,
    author: record.author,
    version: record.version,
    content_hash: record.contentHash,
    sbom_ids: record.sbomIds,
    sbom_id: record.sbomId ?? null,
    finding_count: record.findingCount,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    submitted_by: record.submittedBy && { id: record.submittedBy.id, name: record.submittedBy.name },
    approved_at: record.approvedAt,
    published_at: record.publishedAt,
    disclosure: record.disclosure
      ? {
          id: record.disclosure.id,
          public_slug: record.disclosure.slug,
          links: {
            self: `/api/disclosures/${record.disclosure.slug}`,
            raw: `/api/disclosures/${record.disclosure.slug}?format=raw`,
          },
        }
      : null,
    ...(content !== undefined ? { content: content as Record<string, unknown> } : {}),
  };
}

export interface ResolvedVex extends ResolvedRelease {
  document: VexDocumentRecord;
}

export const vexStore = {
  async resolve(teamId: string, vexId: string): Promise<ResolvedVex | undefined> {
    const resolved = await resolveUnderRelease(teamId, vexId, 'vex_document');
    return resolved && { document: toVexRecord(resolved.item), release: resolved.release, product: resolved.product };
  },

  async find(
    teamId: string,
    productId: string,
    releaseId: string,
    vexId: string,
  ): Promise<VexDocumentRecord | undefined> {
    const item = await getItem(keys.vexDocument(teamId, productId, releaseId, vexId));
    return item ? toVexRecord(item) : undefined;
  },

  async listByRelease(teamId: string, productId: string, releaseId: string): Promise<VexDocumentRecord[]> {
    const { pk, skPrefix } = keys.vexDocumentPrefix(teamId, productId, releaseId);
    return (await queryAll({ pk, skPrefix }))
      .map(toVexRecord)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  },

  async approvals(record: VexDocumentRecord): Promise<ApprovalRecord[]> {
    const { pk, skPrefix } = keys.approvalPrefix(record.teamId, record.productId, record.releaseId, record.id);
    return (await queryAll({ pk, skPrefix })).map((item) => {
      const { pk: _pk, sk: _sk, entity: _entity, ...fields } = item;
      return fields as unknown as ApprovalRecord; // written only by approvalItem
    });
  },

  /**
   * A document's text or generation input, gzipped (level 1): 2,000 findings make 1-2 MB of JSON
   * each, which took most of the two parallel puts' time; compressed they are a tenth of it, for
   * a few milliseconds of CPU (docs/architecture/lists-and-caches.md "Reading a release's findings").
   */
  async putObject(key: string, body: string): Promise<void> {
    const compressed = await gzipAsync(body, { level: zlibConstants.Z_BEST_SPEED });
    await putObject({
      Bucket: config().sbomBucket,
      Key: key,
      Body: compressed,
      ContentType: 'application/json',
      ContentEncoding: 'gzip',
    });
  },

  async readObject(key: string): Promise<string> {
    const object = await getObject({ Bucket: config().sbomBucket, Key: key });
    const bytes = Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
    // Objects stored before compression are plain JSON, which never starts with gzip's magic bytes.
    return (bytes[0] === 0x1f && bytes[1] === 0x8b ? await gunzipAsync(bytes) : bytes).toString('utf8');
  },
};
