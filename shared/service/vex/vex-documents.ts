/**
 * VEX documents: create (generate the first version), list, read, regenerate a draft and delete
 * it. The workflow that takes a document to publication is in vex-workflow.ts, the generation
 * input in vex-generation.ts.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import { transactWrite, tx } from '../data/table-client';
import { pointerPut } from '../data/id-pointers';
import { auditPut } from '../audit/audit-log';
import { ValidationError } from '../errors';
import type { Actor } from '../identity/actor';
import { Releases } from '../releases/releases';
import { sbomStore } from '../sboms/sbom-store';
import type { VexFormat } from '../schemas/vex';
import { vexItem, vexStore, type VexDocumentRecord } from './vex-store';
import { sha256Hex } from '../disclosures/signing';
import { buildInput, render } from './vex-generation';
import { documentUpdate, failTransition, resolveDocument, wrongState } from './vex-transitions';

export const VexDocuments = {
  async create(
    teamId: string,
    actor: Actor,
    releaseId: string,
    input: { format: VexFormat; author?: string | undefined; sbomId?: string | undefined },
    link: { craCaseId?: string } = {},
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
      ...(link.craCaseId !== undefined ? { craCaseId: link.craCaseId } : {}),
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
          changes: {
            format: input.format,
            author: record.author,
            version: 1,
            findingCount: record.findingCount,
            ...(link.craCaseId !== undefined ? { craCaseId: link.craCaseId } : {}),
          },
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
};
