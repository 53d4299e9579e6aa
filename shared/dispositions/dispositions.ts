/**
 * Triage decisions (spec "Dispositions"). Every write carries a ConditionCheck
 * on the release in the same transaction, so once a submit has locked the
 * release chain no disposition write can commit (spec rules 2-3). Each change
 * is audited with before/after values and kept in the disposition's history.
 */
import { transactWrite, TransactionFailedError } from '../data/table-client';
import { ConflictError, NotFoundError, ReleaseLockedError, ValidationError, type ErrorDetail } from '../errors';
import { releaseLockedError } from '../releases/release-lock';
import type { Actor } from '../identity/actor';
import { Members } from '../identity/teams';
import { releaseStore } from '../releases/release-store';
import { findingStore, type Finding } from '../scans/finding-store';
import { dispositionStore, type Disposition, type DispositionStatus } from './disposition-store';
import { plan, writeItems, type DispositionPatch, type PlannedWrite } from './disposition-writes';
import { DispositionBatches } from './disposition-batches';

export type { DispositionPatch } from './disposition-writes';

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
    if (release.release.lockedBy) throw await releaseLockedError(teamId, release.release.lockedBy);
    await commit([write], actor, at);
    return write.after;
  },

  /**
   * POST /api/dispositions/batch, all or nothing: every id and rule is checked
   * before anything is written (unknown ids → 422 listing them). The writes then
   * go through a recorded intent in chunked transactions (disposition-batches.ts):
   * the answer is the outcome as stored — 200 when every disposition is written,
   * 409 when a lock stopped it and every write it made is undone.
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
      if (release.release.lockedBy) throw await releaseLockedError(teamId, release.release.lockedBy);
    }
    const outcome = await DispositionBatches.run(teamId, actor, found, patch);
    if (outcome.state === 'committed') return { updated: outcome.updated };
    if (outcome.reason === 'release_locked') throw new ReleaseLockedError();
    throw new ConflictError('The dispositions kept changing under the batch; nothing was written, retry', 'concurrent_modification');
  },

  /** A release's dispositions, after finishing any batch still pending on it (so a read never shows half a batch). */
  async listByRelease(teamId: string, productId: string, releaseId: string): Promise<Disposition[]> {
    await DispositionBatches.settleRelease(teamId, releaseId);
    return dispositionStore.listByRelease(teamId, productId, releaseId);
  },

  async getWithHistory(teamId: string, dispositionId: string) {
    const found = await dispositionStore.resolve(teamId, dispositionId);
    if (!found) throw new NotFoundError('Disposition');
    await DispositionBatches.settleRelease(teamId, found.releaseId);
    const disposition = await dispositionStore.resolve(teamId, dispositionId);
    if (!disposition) throw new NotFoundError('Disposition');
    return { disposition, history: await dispositionStore.history(disposition) };
  },
};
