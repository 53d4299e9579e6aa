/**
 * VEX documents and their workflow (spec "States and transitions"):
 * draft → submitted → approved → published, with reject back to draft.
 * Submit, approve, reject, publish and unlock are each one transaction holding
 * the document's state change (conditioned on the current state), the release
 * lock, the approval record and the audit entry, so a failed transition
 * leaves nothing behind.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import { transactWrite, TransactionFailedError, tx, type TransactItem } from '../data/table-client';
import { pointerPut } from '../data/id-pointers';
import { auditPut } from '../audit/audit-log';
import { config } from '../config';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { releaseLockedError } from '../releases/release-lock';
import type { Actor } from '../identity/actor';
import { Teams } from '../identity/teams';
import { TeamSettingsService } from '../identity/team-settings';
import { Releases } from '../releases/releases';
import { releaseStore, type Release, type ResolvedRelease } from '../releases/release-store';
import type { Finding } from '../scans/finding-store';
import { findingsDigest } from '../scans/findings-digest';
import type { Disposition } from '../dispositions/disposition-store';
import { Dispositions } from '../dispositions/dispositions';
import { countedDecision, decisionIndex, detailWithProvenance } from '../dispositions/decision-identity';
import { sbomStore, type Sbom } from '../sboms/sbom-store';
import { Disclosures, type Disclosure } from '../disclosures/disclosures';
import type { VexFormat } from '../schemas/vex';
import { vexGenerationInputSchema, type VexGenerationInput } from './model';
import {
  approvalItem,
  toVexRecord,
  vexItem,
  vexStore,
  type ApprovalAction,
  type ResolvedVex,
  type VexDocumentRecord,
  type WorkflowStatus,
} from './vex-store';
import { sha256Hex } from '../disclosures/signing';
import { cweNames } from './cwe-names';
import { isSubmitter, submitterOf } from './distinct-approver';
import { prepareCsafPublication } from '../csaf-provider/publication';
import type { CsafVexDocument } from './formats/csaf';

/** Whether approvals must come from someone other than the submitter (opt-in team setting). */
export async function requiresDistinctApprover(teamId: string): Promise<boolean> {
  return (await TeamSettingsService.get(teamId)).requireDistinctApprover;
}

function wrongState(document: VexDocumentRecord, action: string, expected: WorkflowStatus): ConflictError {
  return new ConflictError(
    `Cannot ${action} a VEX document in state "${document.workflowStatus}"; it must be "${expected}"`,
    'invalid_workflow_state',
  );
}

/** Findings merged across the release's SBOMs: one per (component, advisory), the most recently triaged one wins. */
function selectFindings(findings: Finding[], decisionOf: (finding: Finding) => Disposition | undefined): Finding[] {
  const chosen = new Map<string, Finding>();
  for (const finding of findings) {
    if (finding.noLongerDetected) continue;
    const key = `${finding.componentPurl ?? `${finding.componentName}@${finding.componentVersion ?? ''}`}\u0000${finding.advisoryId}`;
    const current = chosen.get(key);
    const updatedAt = (candidate: Finding) => decisionOf(candidate)?.updatedAt ?? '';
    if (!current || updatedAt(finding) > updatedAt(current)) chosen.set(key, finding);
  }
  return [...chosen.values()];
}

/**
 * The release's findings from each SBOM's digest (shared/service/scans/findings-digest.ts), in the
 * order a read of the release's finding items returns them (SBOM id, then finding id), so
 * the documents are the same as when they were read from the table.
 */
async function releaseFindings(sboms: readonly Sbom[]): Promise<Finding[]> {
  const bySbomId = [...sboms].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return (await Promise.all(bySbomId.map((sbom) => findingsDigest.read(sbom)))).flat();
}

/** Reads the release's SBOMs, findings and dispositions and assembles the validated generation input (exported for the VEX bench's breakdown). */
export async function buildInput(
  teamId: string,
  resolved: ResolvedRelease,
  document: {
    id: string;
    version: number;
    author: string | null;
    createdAt: string;
    revisions: VexDocumentRecord['revisions'];
    sbomId?: string | null;
  },
  generatedAt: string,
  status: 'draft' | 'final',
): Promise<{ input: VexGenerationInput; sbomIds: string[] }> {
  const { product, release } = resolved;
  const [team, releaseSboms, dispositionList] = await Promise.all([
    Teams.get(teamId),
    sbomStore.listByRelease(teamId, product.id, release.id),
    Dispositions.listByRelease(teamId, product.id, release.id),
  ]);
  // A document bound to one SBOM states that SBOM's findings only: consumers apply a VEX to the BOM it names.
  const sboms = document.sbomId ? releaseSboms.filter((sbom) => sbom.id === document.sbomId) : releaseSboms;
  if (document.sbomId && sboms.length === 0)
    throw new ConflictError('The SBOM this document is bound to was deleted; create a new document', 'sbom_deleted');
  const findings = await releaseFindings(sboms);
  const decisionOf = decisionIndex(dispositionList);
  const selected = selectFindings(findings, decisionOf);
  const components = new Map<string, VexGenerationInput['components'][number]>();
  for (const finding of selected) {
    if (!components.has(finding.componentRef)) {
      components.set(finding.componentRef, {
        ref: finding.componentRef,
        name: finding.componentName,
        version: finding.componentVersion,
        purl: finding.componentPurl,
        cpes: [],
        sbomId: finding.sbomId,
      });
    }
  }
  const input: VexGenerationInput = {
    document: {
      id: document.id,
      version: document.version,
      author: document.author,
      generatedAt,
      createdAt: document.createdAt,
      status,
      publisherName: product.vendor ?? team.name,
      publisherNamespace: `${config().publicBaseUrl}/teams/${teamId}`,
      revisions: document.revisions,
    },
    product: { id: product.id, name: product.name, vendor: product.vendor, slug: product.slug },
    release: { id: release.id, version: release.version, purl: release.purl },
    sboms: sboms.map((sbom) => ({
      id: sbom.id,
      format: sbom.format,
      specVersion: sbom.specVersion,
      fileHash: sbom.fileHash,
      serialNumber: sbom.bomIdentity?.serialNumber ?? null,
      bomVersion: sbom.bomIdentity?.version ?? null,
    })),
    components: [...components.values()],
    findings: selected.map((finding) => {
      // Expired or awaiting review: stated as not yet triaged.
      const disposition = countedDecision(decisionOf(finding), generatedAt);
      return {
        id: finding.id,
        componentRef: finding.componentRef,
        cveId: /^CVE-\d{4}-\d{4,}$/.test(finding.cveId) ? finding.cveId : null,
        advisoryId: finding.advisoryId,
        aliases: finding.aliases,
        summary: finding.summary || null,
        cwes: finding.cwes,
        cvssV2: finding.cvssV2,
        cvssV3: finding.cvssV3,
        cvssV4: finding.cvssV4,
        epss: finding.epss ? { score: finding.epss.score, percentile: finding.epss.percentile } : null,
        isKev: finding.kev !== null,
        fixedVersions: finding.fixedVersions,
        disposition: disposition
          ? {
              status: disposition.status,
              justification: disposition.justification as never,
              response: disposition.response as never, // validated enums on write
              detail: detailWithProvenance(disposition),
              actionStatement: disposition.actionStatement,
              impactStatement: disposition.impactStatement,
              updatedAt: disposition.updatedAt,
            }
          : null,
      };
    }),
  };
  const names = await cweNames(new Set(selected.flatMap((finding) => finding.cwes)));
  if (Object.keys(names).length > 0) input.cweNames = names;
  // Validated once, by the generators (prepareVex: a 422 on bad input), before anything is stored.
  return { input, sbomIds: sboms.map((sbom) => sbom.id) };
}

/**
 * The generators (and the CVSS calculator they score with) load on the first
 * generation, not at cold start: most of this function's operations (list,
 * get, submit, approve, reject) never render (docs/architecture.md
 * "Cold starts and VEX generation").
 */
async function formats() {
  return import('./formats/index');
}

/** The stored text (hashed, signed, served raw) and the same document as an object, for the JSON response without parsing the text back. */
async function render(format: VexFormat, input: VexGenerationInput): Promise<{ text: string; document: object }> {
  const { generateVex, serializeVex } = await formats();
  const document = generateVex(format, input);
  return { text: serializeVex(document), document };
}

function approval(
  document: VexDocumentRecord,
  action: ApprovalAction,
  actor: Actor,
  comment: string | undefined,
  at: string,
): TransactItem {
  return tx.create(
    approvalItem(document, {
      id: randomUUID(),
      vexId: document.id,
      action,
      actorId: actor.id,
      actorName: actor.name,
      comment: comment ?? '',
      createdAt: at,
      documentVersion: document.version,
    }),
  );
}

function documentUpdate(document: VexDocumentRecord, next: VexDocumentRecord): TransactItem {
  // Replaces the item only if nobody changed it since it was read (state and revision).
  return tx.put(
    vexItem(next),
    '#status = :status AND #revision = :revision',
    { '#status': 'workflowStatus', '#revision': 'revision' },
    { ':status': document.workflowStatus, ':revision': document.revision },
  );
}

async function resolveDocument(teamId: string, vexId: string): Promise<ResolvedVex> {
  const resolved = await vexStore.resolve(teamId, vexId);
  if (!resolved) throw new NotFoundError('VEX document');
  return resolved;
}

async function failTransition(
  error: unknown,
  teamId: string,
  vexId: string,
  action: string,
  expected: WorkflowStatus,
): Promise<never> {
  if (error instanceof TransactionFailedError) {
    const latest = await resolveDocument(teamId, vexId);
    if (latest.document.workflowStatus !== expected) throw wrongState(latest.document, action, expected);
    if (error.failedAt(1)) throw await releaseLockedError(teamId, latest.release.lockedBy);
    throw new ConflictError(
      'The document changed while the request ran; read it again and retry',
      'concurrent_modification',
    );
  }
  throw error;
}

/** When this version's content was generated (the last revision's date). */
function generatedAt(document: VexDocumentRecord): string {
  return document.revisions.at(-1)?.date ?? document.updatedAt;
}

/** ConditionCheck for a document joining the lock: still held by the same holder since the same time. */
function joinLockItem(release: Release): TransactItem {
  return tx.check(
    keys.release(release.teamId, release.productId, release.id),
    'attribute_exists(pk) AND #lockedBy = :holder AND #lockedAt = :at',
    { '#lockedBy': 'lockedBy', '#lockedAt': 'lockedAt' },
    { ':holder': release.lockedBy, ':at': release.lockedAt },
  );
}

/** ConditionCheck that a document rejected beside the holder did not become the holder meanwhile. */
function notHolderCheck(release: Release, vexId: string): TransactItem {
  return tx.check(
    keys.release(release.teamId, release.productId, release.id),
    'attribute_exists(pk) AND (attribute_not_exists(#lockedBy) OR #lockedBy <> :id)',
    { '#lockedBy': 'lockedBy' },
    { ':id': vexId },
  );
}

/** Moves the lock from the rejected holder to another document under it (the lock time stays: decisions were frozen since). */
function handOverLockItem(release: Release, from: string, to: VexDocumentRecord): TransactItem {
  return tx.update(
    keys.release(release.teamId, release.productId, release.id),
    'SET #lockedBy = :to',
    { '#lockedBy': 'lockedBy' },
    { ':to': to.id, ':from': from },
    'attribute_exists(pk) AND #lockedBy = :from',
  );
}

/** ConditionCheck that a document is still in the state and revision it was read in. */
function unchangedCheck(document: VexDocumentRecord): TransactItem {
  return tx.check(
    keys.vexDocument(document.teamId, document.productId, document.releaseId, document.id),
    '#status = :status AND #revision = :revision',
    { '#status': 'workflowStatus', '#revision': 'revision' },
    { ':status': document.workflowStatus, ':revision': document.revision },
  );
}

/** Another document under the same lock that keeps the release locked when its holder is rejected: published first, then approved, then submitted. */
async function lockSuccessor(
  teamId: string,
  release: Release,
  holderId: string,
): Promise<VexDocumentRecord | undefined> {
  const rank: Partial<Record<WorkflowStatus, number>> = { published: 3, approved: 2, submitted: 1 };
  const candidates = (await vexStore.listByRelease(teamId, release.productId, release.id)).filter(
    (doc) => doc.id !== holderId && rank[doc.workflowStatus] !== undefined && doc.lockedAt === release.lockedAt,
  );
  return candidates.sort((a, b) => rank[b.workflowStatus]! - rank[a.workflowStatus]!)[0];
}

export const VexDocuments = {
  async create(
    teamId: string,
    actor: Actor,
    releaseId: string,
    input: { format: VexFormat; author?: string | undefined; sbomId?: string | undefined },
  ) {
    const resolved = await Releases.resolve(teamId, releaseId);
    const { product, release } = resolved;
    const sbomId = input.sbomId ?? null;
    if (
      sbomId !== null &&
      !(await sbomStore.listByRelease(teamId, product.id, release.id)).some((sbom) => sbom.id === sbomId)
    ) {
      throw new ValidationError('sbomId must name an SBOM of this release', [
        { path: 'sbomId', message: 'not an SBOM of this release' },
      ]);
    }
    const id = randomUUID();
    const now = new Date().toISOString();
    const { input: generationInput, sbomIds } = await buildInput(
      teamId,
      resolved,
      { id, version: 1, author: input.author ?? null, createdAt: now, revisions: [], sbomId },
      now,
      'draft',
    );
    const { text: content, document } = await render(input.format, generationInput);
    const record: VexDocumentRecord = {
      id,
      teamId,
      productId: product.id,
      releaseId: release.id,
      format: input.format,
      workflowStatus: 'draft',
      author: input.author ?? null,
      version: 1,
      contentKey: keys.vexContentObject(teamId, product.id, release.id, id, 1),
      inputKey: keys.vexInputObject(teamId, product.id, release.id, id, 1),
      contentHash: sha256Hex(Buffer.from(content, 'utf8')),
      sbomIds,
      findingCount: generationInput.findings.length,
      createdAt: now,
      updatedAt: now,
      createdBy: { id: actor.id, name: actor.name },
      submittedBy: null,
      approvedAt: null,
      publishedAt: null,
      disclosure: null,
      revisions: [{ version: 1, date: now, summary: 'Initial version' }],
      revision: 1,
      sbomId,
      lockedAt: null,
    };
    await Promise.all([
      vexStore.putObject(record.contentKey, content),
      vexStore.putObject(record.inputKey, JSON.stringify(generationInput)),
    ]);
    await transactWrite([
      tx.check(keys.product(teamId, product.id), 'attribute_exists(pk) AND attribute_not_exists(#deletingAt)', {
        '#deletingAt': 'deletingAt',
      }),
      tx.create(vexItem(record)),
      pointerPut(teamId, id, {
        entityType: 'vex_document',
        target: keys.vexDocument(teamId, product.id, release.id, id),
        productId: product.id,
        releaseId: release.id,
      }),
      auditPut(
        teamId,
        actor,
        {
          action: 'create',
          entityType: 'vex_document',
          entityId: id,
          entityName: `${product.name} ${release.version} ${input.format}`,
          changes: { format: input.format, author: record.author, version: 1, findingCount: record.findingCount },
        },
        now,
      ),
    ]);
    return { record, content: document as unknown };
  },

  async list(teamId: string, releaseId: string) {
    const { release } = await Releases.resolve(teamId, releaseId);
    return vexStore.listByRelease(teamId, release.productId, release.id);
  },

  async get(teamId: string, vexId: string) {
    const { document } = await resolveDocument(teamId, vexId);
    return { record: document, content: JSON.parse(await vexStore.readObject(document.contentKey)) as unknown };
  },

  async approvals(teamId: string, vexId: string) {
    const { document } = await resolveDocument(teamId, vexId);
    return (await vexStore.approvals(document)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },

  async regenerate(teamId: string, actor: Actor, vexId: string) {
    const resolved = await resolveDocument(teamId, vexId);
    const { document, product, release } = resolved;
    if (document.workflowStatus !== 'draft') throw wrongState(document, 'regenerate', 'draft');
    const now = new Date().toISOString();
    const version = document.version + 1;
    const revisions = [...document.revisions, { version, date: now, summary: 'Regenerated from current dispositions' }];
    const { input, sbomIds } = await buildInput(
      teamId,
      resolved,
      {
        id: document.id,
        version,
        author: document.author,
        createdAt: document.createdAt,
        revisions,
        sbomId: document.sbomId ?? null,
      },
      now,
      'draft',
    );
    const { text: content, document: rendered } = await render(document.format, input);
    const next: VexDocumentRecord = {
      ...document,
      version,
      updatedAt: now,
      revisions,
      sbomIds,
      findingCount: input.findings.length,
      revision: document.revision + 1,
      contentKey: keys.vexContentObject(teamId, product.id, release.id, document.id, version),
      inputKey: keys.vexInputObject(teamId, product.id, release.id, document.id, version),
      contentHash: sha256Hex(Buffer.from(content, 'utf8')),
    };
    await Promise.all([
      vexStore.putObject(next.contentKey, content),
      vexStore.putObject(next.inputKey, JSON.stringify(input)),
    ]);
    try {
      await transactWrite([
        documentUpdate(document, next),
        auditPut(
          teamId,
          actor,
          {
            action: 'regenerate',
            entityType: 'vex_document',
            entityId: document.id,
            entityName: `${product.name} ${release.version} ${document.format}`,
            changes: { version: { from: document.version, to: version }, findingCount: next.findingCount },
          },
          now,
        ),
      ]);
    } catch (error) {
      return failTransition(error, teamId, vexId, 'regenerate', 'draft');
    }
    return { record: next, content: rendered as unknown };
  },

  async delete(teamId: string, actor: Actor, vexId: string): Promise<void> {
    const { document, product, release } = await resolveDocument(teamId, vexId);
    if (document.workflowStatus !== 'draft') throw wrongState(document, 'delete', 'draft');
    try {
      await transactWrite([
        tx.delete(
          keys.vexDocument(teamId, product.id, release.id, vexId),
          '#status = :draft',
          { '#status': 'workflowStatus' },
          { ':draft': 'draft' },
        ),
        tx.delete(keys.idPointer(teamId, vexId)),
        auditPut(teamId, actor, {
          action: 'delete',
          entityType: 'vex_document',
          entityId: vexId,
          entityName: `${product.name} ${release.version} ${document.format}`,
          changes: { version: document.version },
        }),
      ]);
    } catch (error) {
      return failTransition(error, teamId, vexId, 'delete', 'draft');
    }
  },

  /**
   * draft → submitted: locks the release chain (release, SBOMs, dispositions). When another
   * document of the release already holds the lock, this one joins it (docs/vex-workflow.md
   * "Several formats per release"): the lock freezes the decisions, not the format, so a document
   * generated from the frozen decisions may be submitted beside it; one generated before the lock
   * was taken may state older decisions and must be regenerated first.
   */
  async submit(teamId: string, actor: Actor, vexId: string, comment?: string) {
    const { document, product, release } = await resolveDocument(teamId, vexId);
    if (document.workflowStatus !== 'draft') throw wrongState(document, 'submit', 'draft');
    const now = new Date().toISOString();
    const joining = release.lockedBy !== null && release.lockedBy !== vexId;
    if (joining && !(release.lockedAt !== null && generatedAt(document) >= release.lockedAt)) {
      const locked = await releaseLockedError(teamId, release.lockedBy);
      throw new ConflictError(
        `The release is locked by VEX document ${release.lockedBy} since ${release.lockedAt ?? 'an unknown time'}; this document was generated before that and may state older decisions: regenerate it, then submit`,
        locked.code,
        locked.details,
      );
    }
    const lockedAt = joining ? release.lockedAt : now;
    const next: VexDocumentRecord = {
      ...document,
      workflowStatus: 'submitted',
      submittedBy: submitterOf(actor),
      updatedAt: now,
      revision: document.revision + 1,
      lockedAt,
    };
    try {
      await transactWrite([
        documentUpdate(document, next),
        joining ? joinLockItem(release) : releaseStore.lockItem(release, vexId, now),
        approval(document, 'submit', actor, comment, now),
        auditPut(
          teamId,
          actor,
          {
            action: 'submit',
            entityType: 'vex_document',
            entityId: vexId,
            entityName: `${product.name} ${release.version} ${document.format}`,
            changes: {
              workflow_status: { from: 'draft', to: 'submitted' },
              releaseLocked: true,
              ...(joining ? { joinedLockOf: release.lockedBy } : {}),
              comment: comment ?? null,
            },
          },
          now,
        ),
      ]);
    } catch (error) {
      return failTransition(error, teamId, vexId, 'submit', 'draft');
    }
    return next;
  },

  /** submitted → approved; with the team setting on, the approver must be another person than the submitter. */
  async approve(teamId: string, actor: Actor, vexId: string, comment?: string) {
    const { document, product, release } = await resolveDocument(teamId, vexId);
    if (document.workflowStatus !== 'submitted') throw wrongState(document, 'approve', 'submitted');
    if (isSubmitter(document.submittedBy, actor) && (await requiresDistinctApprover(teamId))) {
      throw new ForbiddenError(
        'This team requires the approver to differ from the submitter: the same person submitted it, with this or another credential',
      );
    }
    const now = new Date().toISOString();
    const next: VexDocumentRecord = {
      ...document,
      workflowStatus: 'approved',
      approvedAt: now,
      updatedAt: now,
      revision: document.revision + 1,
    };
    try {
      await transactWrite([
        documentUpdate(document, next),
        approval(document, 'approve', actor, comment, now),
        auditPut(
          teamId,
          actor,
          {
            action: 'approve',
            entityType: 'vex_document',
            entityId: vexId,
            entityName: `${product.name} ${release.version} ${document.format}`,
            changes: { workflow_status: { from: 'submitted', to: 'approved' }, comment: comment ?? null },
          },
          now,
        ),
      ]);
    } catch (error) {
      return failTransition(error, teamId, vexId, 'approve', 'submitted');
    }
    return next;
  },

  /**
   * submitted → draft; a comment is required (spec). The release stays locked while another
   * document of it is submitted, approved or published under the same lock (spec rule 2): the
   * holder's rejection hands the lock to such a document; otherwise the release is unlocked.
   */
  async reject(teamId: string, actor: Actor, vexId: string, comment: string) {
    for (let attempt = 0; ; attempt += 1) {
      const { document, product, release } = await resolveDocument(teamId, vexId);
      if (document.workflowStatus !== 'submitted') throw wrongState(document, 'reject', 'submitted');
      const now = new Date().toISOString();
      const next: VexDocumentRecord = {
        ...document,
        workflowStatus: 'draft',
        submittedBy: null,
        updatedAt: now,
        revision: document.revision + 1,
        lockedAt: null,
      };
      const holds = release.lockedBy === vexId;
      const successor = holds ? await lockSuccessor(teamId, release, vexId) : undefined;
      const lockItem = !holds
        ? notHolderCheck(release, vexId)
        : successor
          ? handOverLockItem(release, vexId, successor)
          : releaseStore.unlockItem(release, vexId);
      try {
        await transactWrite([
          documentUpdate(document, next),
          lockItem,
          approval(document, 'reject', actor, comment, now),
          auditPut(
            teamId,
            actor,
            {
              action: 'reject',
              entityType: 'vex_document',
              entityId: vexId,
              entityName: `${product.name} ${release.version} ${document.format}`,
              changes: {
                workflow_status: { from: 'submitted', to: 'draft' },
                releaseLocked: !holds || successor !== undefined,
                ...(successor ? { lockHandedTo: successor.id } : {}),
                comment,
              },
            },
            now,
          ),
          ...(successor ? [unchangedCheck(successor)] : []),
        ]);
        return next;
      } catch (error) {
        // The lock or a co-holder changed meanwhile (a concurrent reject or unlock): decide again on fresh reads.
        if (!(error instanceof TransactionFailedError) || attempt >= 3)
          return failTransition(error, teamId, vexId, 'reject', 'submitted');
      }
    }
  },

  /**
   * approved → published. The snapshot is regenerated from the input stored
   * with this version, marked final and dated at approval, so every retry of
   * the same publish produces the same bytes; those bytes are written once,
   * and the transaction lets exactly one publish of the document commit.
   */
  async publish(
    teamId: string,
    actor: Actor,
    vexId: string,
    comment?: string,
  ): Promise<{ record: VexDocumentRecord; disclosure: Disclosure }> {
    const { document, product, release } = await resolveDocument(teamId, vexId);
    if (document.workflowStatus !== 'approved') throw wrongState(document, 'publish', 'approved');
    const storedInput = vexGenerationInputSchema.parse(JSON.parse(await vexStore.readObject(document.inputKey)));
    const approvedAt = document.approvedAt ?? document.updatedAt;
    // A CSAF publication is the next revision of the release's CSAF in the team's provider (docs/csaf-provider.md).
    const csaf = document.format === 'csaf' ? await prepareCsafPublication(teamId, product, release) : null;
    const finalInput: VexGenerationInput = {
      ...storedInput,
      document: {
        ...storedInput.document,
        status: 'final',
        generatedAt: approvedAt,
        ...(csaf ? csaf.documentFields(approvedAt, document.id, document.version) : {}),
      },
    };
    const rendered = await render(document.format, finalInput);
    const bytes = Buffer.from(rendered.text, 'utf8');
    const { vexMediaType } = await formats();
    const now = new Date().toISOString();
    for (let attempt = 0; ; attempt += 1) {
      const prepared = await Disclosures.prepare({
        documentId: document.id,
        version: document.version,
        format: document.format,
        bytes,
        contentType: vexMediaType(document.format),
        publishedAt: now,
        productSlug: product.slug,
        product: { name: product.name, vendor: product.vendor },
        release: { version: release.version },
        teamId,
      });
      const next: VexDocumentRecord = {
        ...document,
        workflowStatus: 'published',
        publishedAt: now,
        updatedAt: now,
        revision: document.revision + 1,
        disclosure: { id: prepared.disclosure.id, slug: prepared.disclosure.slug },
      };
      try {
        await transactWrite([
          documentUpdate(document, next),
          approval(document, 'publish', actor, comment, now),
          auditPut(
            teamId,
            actor,
            {
              action: 'publish',
              entityType: 'vex_document',
              entityId: vexId,
              entityName: `${product.name} ${release.version} ${document.format}`,
              changes: {
                workflow_status: { from: 'approved', to: 'published' },
                public_slug: prepared.disclosure.slug,
                content_hash: prepared.disclosure.contentHash,
                signed: prepared.disclosure.signature !== null,
                comment: comment ?? null,
              },
            },
            now,
          ),
          ...prepared.transactItems,
          ...(csaf
            ? csaf.transactItems(rendered.document as CsafVexDocument, {
                slug: prepared.disclosure.slug,
                publishedAt: now,
              })
            : []),
        ]);
        return { record: next, disclosure: prepared.disclosure };
      } catch (error) {
        if (!(error instanceof TransactionFailedError)) throw error;
        const latest = await resolveDocument(teamId, vexId);
        if (latest.document.workflowStatus !== 'approved') throw wrongState(latest.document, 'publish', 'approved');
        // Only the sequence counters can have moved (another document was published meanwhile): take the next numbers.
        if (attempt >= 20)
          throw new ConflictError('Too many concurrent publications; retry', 'concurrent_modification');
      }
    }
  },

  /**
   * Unlocks a release held by a VEX document (spec rule 4; the operation is
   * ours, see docs/vex-workflow.md): a submitted or approved document returns
   * to draft; a published one stays published (disclosures are immutable)
   * and only releases the lock, so the next version can be prepared.
   */
  async unlockRelease(teamId: string, actor: Actor, releaseId: string, comment: string) {
    const { release, product } = await Releases.resolve(teamId, releaseId);
    if (!release.lockedBy) throw new ConflictError('The release is not locked', 'not_locked');
    const holder = await vexStore.find(teamId, product.id, release.id, release.lockedBy);
    const now = new Date().toISOString();
    const items: TransactItem[] = [releaseStore.unlockItem(release, release.lockedBy)];
    const changes: Record<string, unknown> = { lockedBy: release.lockedBy, comment };
    // Every document under this lock: the holder and the other formats that joined it.
    const underLock = (await vexStore.listByRelease(teamId, product.id, release.id)).filter(
      (doc) =>
        doc.id !== holder?.id &&
        (doc.workflowStatus === 'submitted' ||
          doc.workflowStatus === 'approved' ||
          (doc.workflowStatus === 'published' && doc.lockedAt === release.lockedAt)),
    );
    const documentChanges: Record<string, unknown> = {};
    for (const doc of holder ? [holder, ...underLock] : underLock) {
      const back = doc.workflowStatus === 'submitted' || doc.workflowStatus === 'approved';
      if (back) {
        items.push(
          documentUpdate(doc, {
            ...doc,
            workflowStatus: 'draft',
            submittedBy: null,
            approvedAt: null,
            updatedAt: now,
            revision: doc.revision + 1,
            lockedAt: null,
          }),
        );
        documentChanges[doc.id] = { from: doc.workflowStatus, to: 'draft' };
      }
      items.push(approval(doc, 'unlock', actor, comment, now));
    }
    if (holder && documentChanges[holder.id] !== undefined) changes.documentStatus = documentChanges[holder.id];
    if (Object.keys(documentChanges).length > 0) changes.documents = documentChanges;
    items.push(
      auditPut(
        teamId,
        actor,
        {
          action: 'unlock',
          entityType: 'release',
          entityId: release.id,
          entityName: `${product.name} ${release.version}`,
          changes,
        },
        now,
      ),
    );
    try {
      await transactWrite(items);
    } catch (error) {
      if (error instanceof TransactionFailedError)
        throw new ConflictError(
          'The release lock changed while the request ran; read it again and retry',
          'concurrent_modification',
        );
      throw error;
    }
    return (await Releases.resolve(teamId, releaseId)).release;
  },
};

export { toVexRecord };
