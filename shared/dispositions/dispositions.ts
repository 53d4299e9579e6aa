/**
 * Triage decisions (spec "Dispositions"). Every write carries a ConditionCheck
 * on the release in the same transaction, so once a submit has locked the
 * release chain no disposition write can commit (spec rules 2-3). Each change
 * is audited with before/after values and kept in the disposition's history.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import { transactWrite, TransactionFailedError, tx, type TransactItem } from '../data/table-client';
import { pointerPut } from '../data/id-pointers';
import { auditPut, diffChanges } from '../audit/audit-log';
import { ConflictError, NotFoundError, ReleaseLockedError, ValidationError, type ErrorDetail } from '../errors';
import type { Actor } from '../identity/actor';
import { Members } from '../identity/teams';
import { releaseStore } from '../releases/release-store';
import { findingStore, type Finding } from '../scans/finding-store';
import { isFinalDecision } from './rules';
import { DISPOSITION_FIELDS, dispositionItem, dispositionStore, type Disposition, type DispositionStatus } from './disposition-store';

export type DispositionPatch = Partial<Record<(typeof DISPOSITION_FIELDS)[number], string | null>>;

/** Batch writes are chunked into transactions of this many dispositions (4 items each, under DynamoDB's 100). */
const BATCH_CHUNK = 20;

function fieldsOf(disposition: Pick<Disposition, (typeof DISPOSITION_FIELDS)[number]>): Record<string, unknown> {
  return Object.fromEntries(DISPOSITION_FIELDS.map((field) => [field, disposition[field]]));
}

/** Spec "Disposition": justification required for not_affected, response required for affected. */
export function dispositionRuleViolations(state: { status: DispositionStatus; justification: string | null; response: string | null }, pathPrefix = ''): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (state.status === 'not_affected' && !state.justification) {
    problems.push({ path: `${pathPrefix}justification`, message: 'justification is required when status is not_affected', code: 'required' });
  }
  if (state.status === 'affected' && !state.response) {
    problems.push({ path: `${pathPrefix}response`, message: 'response is required when status is affected', code: 'required' });
  }
  return problems;
}

async function assertAssignee(teamId: string, assignedTo: string | null | undefined): Promise<void> {
  if (!assignedTo) return;
  if (!(await Members.find(teamId, assignedTo))) {
    throw new ValidationError('assignedTo must be a member of the team', [{ path: 'assignedTo', message: 'not a member of this team', code: 'unknown_member' }]);
  }
}

interface PlannedWrite {
  finding: Finding;
  before: Disposition | undefined;
  after: Disposition;
}

function plan(finding: Finding, existing: Disposition | undefined, patch: DispositionPatch, actor: Actor, at: string): PlannedWrite {
  const base: Disposition = existing ?? {
    id: randomUUID(), teamId: finding.teamId, productId: finding.productId, releaseId: finding.releaseId, vulnerabilityId: finding.id,
    status: 'under_investigation', justification: null, response: null, detail: null, actionStatement: null, impactStatement: null, assignedTo: null, decidedAt: null,
    createdAt: at, updatedAt: at, updatedBy: { id: actor.id, name: actor.name }, revision: 0,
  };
  const after: Disposition = { ...base, updatedAt: at, updatedBy: { id: actor.id, name: actor.name }, revision: base.revision + 1 };
  for (const field of DISPOSITION_FIELDS) {
    const value = patch[field];
    if (value !== undefined) (after as unknown as Record<string, unknown>)[field] = value;
  }
  // The SLA measures detection → the first final decision; later edits of a final decision do not move it.
  after.decidedAt = isFinalDecision(after) ? (existing && isFinalDecision(existing) ? existing.decidedAt ?? at : at) : null;
  return { finding, before: existing, after };
}

function writeItems(write: PlannedWrite, actor: Actor, at: string): TransactItem[] {
  const { after, before, finding } = write;
  const changes = diffChanges(before ? fieldsOf(before) : {}, fieldsOf(after));
  const changeId = randomUUID();
  const items: TransactItem[] = [
    before
      ? tx.put(dispositionItem(after), '#revision = :expected', { '#revision': 'revision' }, { ':expected': before.revision })
      : tx.create(dispositionItem(after)),
    tx.create({
      ...keys.dispositionHistory(after.teamId, after.productId, after.releaseId, after.vulnerabilityId, at, changeId), entity: 'DispositionChange',
      changeId, at, actor: { id: actor.id, name: actor.name, email: actor.email }, changes,
    }),
    auditPut(after.teamId, actor, {
      action: before ? 'update' : 'create', entityType: 'disposition', entityId: after.id, entityName: `${finding.cveId} in ${finding.componentName}`,
      changes: { vulnerabilityId: after.vulnerabilityId, ...changes },
    }, at),
  ];
  if (!before) {
    items.push(pointerPut(after.teamId, after.id, {
      entityType: 'disposition', target: keys.disposition(after.teamId, after.productId, after.releaseId, after.vulnerabilityId),
      productId: after.productId, releaseId: after.releaseId, vulnerabilityId: after.vulnerabilityId,
    }));
  }
  return items;
}

async function commit(writes: PlannedWrite[], actor: Actor, at: string): Promise<void> {
  const releases = new Map(writes.map((write) => [write.after.releaseId, write.after]));
  const checks = [...releases.values()].map((disposition) => releaseStore.unlockedCheck({ teamId: disposition.teamId, productId: disposition.productId, id: disposition.releaseId }));
  try {
    await transactWrite([...checks, ...writes.flatMap((write) => writeItems(write, actor, at))]);
  } catch (error) {
    if (error instanceof TransactionFailedError) {
      if (checks.some((_check, index) => error.failedAt(index))) throw new ReleaseLockedError();
      throw new ConflictError('The disposition was changed by another request; read it again and retry', 'concurrent_modification');
    }
    throw error;
  }
}

export const Dispositions = {
  /** POST /api/dispositions: one disposition per vulnerability; a second create updates it. */
  async upsert(teamId: string, actor: Actor, input: { vulnerabilityId: string } & DispositionPatch & { status?: DispositionStatus }): Promise<{ disposition: Disposition; created: boolean }> {
    const finding = await findingStore.resolve(teamId, input.vulnerabilityId);
    if (!finding) throw new NotFoundError('Vulnerability');
    const existing = await dispositionStore.findByVulnerability(teamId, finding.productId, finding.releaseId, finding.id);
    const { vulnerabilityId: _id, ...patch } = input;
    return { disposition: await Dispositions.apply(teamId, actor, finding, existing, patch), created: !existing };
  },

  /** PUT /api/dispositions/{id}: only supplied fields change; 409 while the release is locked. */
  async update(teamId: string, actor: Actor, dispositionId: string, patch: DispositionPatch): Promise<Disposition> {
    const existing = await dispositionStore.resolve(teamId, dispositionId);
    if (!existing) throw new NotFoundError('Disposition');
    const finding = await findingStore.resolve(teamId, existing.vulnerabilityId);
    if (!finding) throw new NotFoundError('Disposition');
    return Dispositions.apply(teamId, actor, finding, existing, patch);
  },

  async apply(teamId: string, actor: Actor, finding: Finding, existing: Disposition | undefined, patch: DispositionPatch): Promise<Disposition> {
    const at = new Date().toISOString();
    const write = plan(finding, existing, patch, actor, at);
    const problems = dispositionRuleViolations(write.after);
    if (problems.length) throw new ValidationError('Disposition rules not met', problems);
    await assertAssignee(teamId, patch.assignedTo);
    const release = await releaseStore.resolve(teamId, finding.releaseId);
    if (!release) throw new NotFoundError('Vulnerability');
    if (release.release.lockedBy) throw new ReleaseLockedError();
    await commit([write], actor, at);
    return write.after;
  },

  /**
   * POST /api/dispositions/batch, all or nothing: every id and rule is checked
   * before anything is written (unknown ids → 422 listing them). The writes
   * go in chunked transactions, each re-checking the release locks; if a
   * later chunk fails (a submit raced in), the earlier chunks are rolled back.
   */
  async batch(teamId: string, actor: Actor, input: { vulnerabilityIds: string[]; status: DispositionStatus } & DispositionPatch): Promise<{ updated: number }> {
    const { vulnerabilityIds, ...patch } = input;
    const problems = dispositionRuleViolations({ status: input.status, justification: input.justification ?? null, response: input.response ?? null });
    if (problems.length) throw new ValidationError('Disposition rules not met', problems);
    const uniqueIds = [...new Set(vulnerabilityIds)];
    const findings = await Promise.all(uniqueIds.map((id) => findingStore.resolve(teamId, id)));
    const unknown = uniqueIds.flatMap((id, index) => (findings[index] ? [] : [{ path: `vulnerabilityIds.${vulnerabilityIds.indexOf(id)}`, message: `vulnerability ${id} not found`, code: 'not_found' }]));
    if (unknown.length) throw new ValidationError('Some vulnerabilities do not exist; nothing was written', unknown);
    const found = findings as Finding[];
    for (const releaseId of new Set(found.map((finding) => finding.releaseId))) {
      const release = await releaseStore.resolve(teamId, releaseId);
      if (!release) throw new NotFoundError('Vulnerability');
      if (release.release.lockedBy) throw new ReleaseLockedError();
    }
    const at = new Date().toISOString();
    const existing = await Promise.all(found.map((finding) => dispositionStore.findByVulnerability(teamId, finding.productId, finding.releaseId, finding.id)));
    const writes = found.map((finding, index) => plan(finding, existing[index], patch, actor, at));
    const committed: PlannedWrite[] = [];
    try {
      for (let offset = 0; offset < writes.length; offset += BATCH_CHUNK) {
        const chunk = writes.slice(offset, offset + BATCH_CHUNK);
        await commit(chunk, actor, at);
        committed.push(...chunk);
      }
    } catch (error) {
      await rollback(committed, actor);
      throw error;
    }
    return { updated: writes.length };
  },

  async getWithHistory(teamId: string, dispositionId: string) {
    const disposition = await dispositionStore.resolve(teamId, dispositionId);
    if (!disposition) throw new NotFoundError('Disposition');
    return { disposition, history: await dispositionStore.history(disposition) };
  },
};

/** Restores the state before a failed batch; the compensation itself is audited. */
async function rollback(committed: PlannedWrite[], actor: Actor): Promise<void> {
  const at = new Date().toISOString();
  for (let offset = 0; offset < committed.length; offset += BATCH_CHUNK) {
    const items = committed.slice(offset, offset + BATCH_CHUNK).flatMap((write): TransactItem[] => {
      const { after, before } = write;
      const key = keys.disposition(after.teamId, after.productId, after.releaseId, after.vulnerabilityId);
      const restore = before
        ? tx.put(dispositionItem(before))
        : tx.delete(key);
      const extra = before ? [] : [tx.delete(keys.idPointer(after.teamId, after.id))];
      return [restore, ...extra, auditPut(after.teamId, actor, {
        action: 'rollback', entityType: 'disposition', entityId: after.id, entityName: after.vulnerabilityId, changes: diffChanges(fieldsOf(after), before ? fieldsOf(before) : {}),
      }, at)];
    });
    await transactWrite(items);
  }
}
