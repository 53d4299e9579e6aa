/**
 * Informing users (Art. 14(8), docs/cra-reporting.md "Informing users"): from a case, one action drafts
 * the CSAF advisory of each affected release through the VEX workflow (as its generate does) and links
 * it to the case; a person takes it through submit, approve and publish. When one is published, the case
 * records the publication and its disclosure link: users were informed then.
 */
import { ConflictError, ForbiddenError, ValidationError } from '../errors';
import type { Actor } from '../identity/actor';
import { logger } from '../logger';
import { vexStore, type VexDocumentRecord } from '../vex/vex-store';
import type { InformingDocument, CraCase } from './case-store';
import { changeCase, CraCases } from './cases';

/** Drafting an advisory creates VEX documents: the credential needs what the VEX workflow's generate needs. */
const VEX_SCOPE = 'vex:write';

/** The documents still linked: a draft deleted in the VEX workflow no longer counts (and may be drafted again). */
async function linkedDocuments(craCase: CraCase): Promise<InformingDocument[]> {
  const documents = craCase.usersInformed?.documents ?? [];
  const exists = await Promise.all(
    documents.map(async (document) => (await vexStore.resolve(craCase.teamId, document.vexId)) !== undefined),
  );
  return documents.filter((_, index) => exists[index]);
}

export const CraUsersInformed = {
  /** Drafts the CSAF advisory of each affected release (or of `release_ids`) not yet drafted, and links them to the case. */
  async draftAdvisories(
    teamId: string,
    actor: Actor,
    scopes: readonly string[],
    caseId: string,
    input: { release_ids?: string[] | undefined; author?: string | undefined },
  ): Promise<CraCase> {
    if (!scopes.includes(VEX_SCOPE))
      throw new ForbiddenError(`Drafting the advisory creates VEX documents: this credential also needs ${VEX_SCOPE}`);
    const craCase = await CraCases.get(teamId, caseId);
    if (craCase.status === 'dismissed') throw new ConflictError('The case is dismissed', 'case_not_live');
    const affected = new Map(craCase.affected.map((release) => [release.releaseId, release]));
    const unknown = (input.release_ids ?? []).filter((releaseId) => !affected.has(releaseId));
    if (unknown.length > 0)
      throw new ValidationError('release_ids must name affected releases of the case', [
        { path: 'release_ids', message: `not affected releases of the case: ${unknown.join(', ')}` },
      ]);
    const linked = await linkedDocuments(craCase);
    const drafted = new Set(linked.map((document) => document.releaseId));
    const wanted = [...new Set(input.release_ids ?? craCase.affected.map((release) => release.releaseId))];
    const toDraft = wanted.filter((releaseId) => !drafted.has(releaseId));
    if (toDraft.length === 0)
      throw new ConflictError(
        'The advisories of these releases are already drafted: take them through the VEX workflow',
        'advisory_already_drafted',
      );
    const { VexDocuments } = await import('../vex/vex-documents');
    const created: InformingDocument[] = [];
    for (const releaseId of toDraft) {
      const { record } = await VexDocuments.create(
        teamId,
        actor,
        releaseId,
        { format: 'csaf', author: input.author },
        { craCaseId: caseId },
      );
      created.push({
        vexId: record.id,
        releaseId,
        version: affected.get(releaseId)?.version ?? '',
        draftedAt: record.createdAt,
        draftedBy: actor.name,
        publishedAt: null,
        disclosureSlug: null,
      });
    }
    return changeCase(teamId, actor, caseId, (current) => {
      const kept = (current.usersInformed?.documents ?? []).filter((document) =>
        linked.some((live) => live.vexId === document.vexId),
      );
      return {
        next: {
          ...current,
          usersInformed: { documents: [...kept, ...created], informedAt: current.usersInformed?.informedAt ?? null },
        },
        action: 'draft_advisory',
        changes: {
          documents: created.map((document) => ({ vexId: document.vexId, release: document.version })),
        },
      };
    });
  },

  /**
   * A document drafted from a case was published: the case records it and, the first time, when users were
   * informed. Runs after the publication has committed; a failure is logged, not answered (the publication
   * stands, and the final report's draft lists the release's published disclosures anyway).
   */
  async documentPublished(teamId: string, actor: Actor, document: VexDocumentRecord): Promise<void> {
    const caseId = document.craCaseId;
    if (!caseId || document.publishedAt === null || document.disclosure === null) return;
    const { publishedAt, disclosure } = document;
    try {
      await changeCase(teamId, actor, caseId, (current) => {
        const documents = current.usersInformed?.documents ?? [];
        const listed = documents.find((linked) => linked.vexId === document.id);
        if (listed?.publishedAt) return null;
        const version = current.affected.find((release) => release.releaseId === document.releaseId)?.version ?? '';
        const published: InformingDocument = {
          ...(listed ?? {
            vexId: document.id,
            releaseId: document.releaseId,
            version,
            draftedAt: document.createdAt,
            draftedBy: document.createdBy.name,
          }),
          publishedAt,
          disclosureSlug: disclosure.slug,
        };
        const informedAt = [current.usersInformed?.informedAt ?? publishedAt, publishedAt].sort()[0] as string;
        return {
          next: {
            ...current,
            usersInformed: {
              documents: listed
                ? documents.map((linked) => (linked.vexId === document.id ? published : linked))
                : [...documents, published],
              informedAt,
            },
          },
          action: 'users_informed',
          changes: { vexId: document.id, disclosureSlug: disclosure.slug, publishedAt, usersInformedAt: informedAt },
        };
      });
    } catch (error) {
      logger.error('The publication of an advisory drafted from a CRA case was not recorded on the case', {
        teamId,
        caseId,
        vexId: document.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  },
};
