/**
 * The VEX workflow (spec "States and transitions"): draft → submitted → approved → published,
 * with reject back to draft, and the unlock of a release a document holds. Submit, approve,
 * reject, publish and unlock are each one transaction holding the document's state change
 * (conditioned on the current state), the release lock, the approval record and the audit
 * entry, so a failed transition leaves nothing behind.
 */
import { isSubmitter, submitterOf } from './distinct-approver';
import { TransactionFailedError, transactWrite, type TransactItem } from '../data/table-client';
import { auditPut } from '../audit/audit-log';
import { vexTransitionEvent } from '../events/change-events';
import { ConflictError, ForbiddenError } from '../errors';
import { releaseLockedError } from '../releases/release-lock';
import type { Actor } from '../identity/actor';
import { TeamSettingsService } from '../identity/team-settings';
import { Releases } from '../releases/releases';
import { releaseStore } from '../releases/release-store';
import { Disclosures, type Disclosure } from '../disclosures/disclosures';
import { vexGenerationInputSchema, type VexGenerationInput } from './model';
import { vexStore, type VexDocumentRecord } from './vex-store';
import { prepareCsafPublication } from '../csaf-provider/publication';
import type { CsafVexDocument } from './formats/csaf-types';
import { loadFormats, render } from './vex-generation';
import {
  approval,
  documentUpdate,
  failTransition,
  handOverLockItem,
  joinLockItem,
  lockSuccessor,
  notHolderCheck,
  resolveDocument,
  unchangedCheck,
  wrongState,
} from './vex-transitions';

/** Whether approvals must come from someone other than the submitter (opt-in team setting). */
export async function requiresDistinctApprover(teamId: string): Promise<boolean> {
  return (await TeamSettingsService.get(teamId)).requireDistinctApprover;
}

/** When this version's content was generated (the last revision's date). */
function generatedAt(document: VexDocumentRecord): string {
  return document.revisions.at(-1)?.date ?? document.updatedAt;
}

export const VexWorkflow = {
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
        // Who submitted: notifications to approvers leave them out where they may not approve it.
        vexTransitionEvent('vex.submitted', next, now, { submitted_by: next.submittedBy?.personId ?? actor.id }),
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
        vexTransitionEvent('vex.approved', next, now),
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
          vexTransitionEvent('vex.rejected', next, now, { comment }),
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
    const { vexMediaType } = await loadFormats();
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
          vexTransitionEvent('vex.published', next, now, { disclosure_slug: prepared.disclosure.slug }),
        ]);
        if (next.craCaseId) {
          // Drafted from a CRA case to inform users (Art. 14(8)): the case records the publication (loaded only then).
          const { CraUsersInformed } = await import('../cra/users-informed');
          await CraUsersInformed.documentPublished(teamId, actor, next);
        }
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
