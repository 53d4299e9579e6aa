/**
 * Triage decisions (spec "Dispositions"). Every write carries a ConditionCheck
 * on the release in the same transaction, so once a submit has locked the
 * release chain no disposition write can commit (spec rules 2-3). Each change
 * is audited with before/after values and kept in the disposition's history.
 * Single writes are last-writer-wins: a write that lost a race to another one
 * (its revision condition failed) is planned again on top of the winner, so
 * every accepted write gets its own revision, history entry and audit entry.
 */
import { transactWrite, TransactionFailedError } from '../data/table-client';
import { lostRace, retryLostRaces, RETRY } from '../data/write-races';
import { ConflictError, NotFoundError, ReleaseLockedError, ValidationError, type ErrorDetail } from '../errors';
import { releaseLockedError, releaseLockedErrorFor } from '../releases/release-lock';
import type { Actor } from '../identity/actor';
import { Members } from '../identity/teams';
import { releaseStore } from '../releases/release-store';
import { findingStore, type Finding } from '../scans/finding-store';
import { DispositionTransaction, dispositionStore, type Disposition } from './disposition-store';
import type { DispositionStatus } from './vocabulary';
import {
  plan,
  targetOfDisposition,
  targetOfFinding,
  writeItems,
  type DecisionTarget,
  type DispositionPatch,
  type PlannedWrite,
} from './disposition-writes';
import { decisionKey } from './decision-identity';
import { DispositionBatches } from './disposition-batches';

export type { DispositionPatch } from './disposition-writes';

/** Spec "Disposition": justification required for not_affected, response required for affected. */
export function dispositionRuleViolations(
  state: { status: DispositionStatus; justification: string | null; response: string | null },
  pathPrefix = '',
): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (state.status === 'not_affected' && !state.justification) {
    problems.push({
      path: `${pathPrefix}justification`,
      message: 'justification is required when status is not_affected',
      code: 'required',
    });
  }
  if (state.status === 'affected' && !state.response) {
    problems.push({
      path: `${pathPrefix}response`,
      message: 'response is required when status is affected',
      code: 'required',
    });
  }
  return problems;
}

/** `expiresAt` must lie ahead when written; it is stored in UTC so it compares as text. */
function normaliseExpiry<T extends { expiresAt?: string | null | undefined }>(patch: T, path = 'expiresAt'): T {
  if (patch.expiresAt === undefined || patch.expiresAt === null) return patch;
  const at = Date.parse(patch.expiresAt);
  if (!(at > Date.now()))
    throw new ValidationError('expiresAt must be in the future', [
      { path, message: 'must be a date-time in the future', code: 'not_in_future' },
    ]);
  return { ...patch, expiresAt: new Date(at).toISOString() };
}

async function assertAssignee(teamId: string, assignedTo: string | null | undefined): Promise<void> {
  if (!assignedTo) return;
  if (!(await Members.find(teamId, assignedTo))) {
    throw new ValidationError('assignedTo must be a member of the team', [
      { path: 'assignedTo', message: 'not a member of this team', code: 'unknown_member' },
    ]);
  }
}

/** Commits one planned write; RETRY when another write to the same disposition committed first. */
async function commit(write: PlannedWrite, actor: Actor, at: string): Promise<typeof RETRY | undefined> {
  // The release's unlock condition rides on its dispositions version move (item 0).
  const transaction = new DispositionTransaction();
  const release = transaction.moveVersion(write.after, { unlocked: true });
  const disposition = writeItems(transaction, write, actor, at);
  const items = transaction.items();
  try {
    await transactWrite(items);
  } catch (error) {
    if (error instanceof TransactionFailedError && error.failedAt(release))
      throw await releaseLockedErrorFor(write.after.teamId, write.after.releaseId);
    // The disposition item (revision or create condition) or, for a creation, its id pointer (last).
    if (lostRace(error, write.before ? [disposition] : [disposition, items.length - 1])) return RETRY;
    throw error;
  }
  return undefined;
}

/**
 * Reads the decision for each attempt of a write. `justRead`, the decision the caller read a moment ago, serves the
 * first attempt (the write is conditional on its revision, so a change since makes it retry); later attempts read it
 * again.
 */
function readById(teamId: string, dispositionId: string, justRead?: Disposition): () => Promise<Disposition> {
  let first = justRead;
  return async () => {
    if (first) {
      const current = first;
      first = undefined;
      return current;
    }
    const current = await dispositionStore.resolve(teamId, dispositionId);
    if (!current) throw new NotFoundError('Disposition');
    return current;
  };
}

export const Dispositions = {
  /**
   * POST /api/dispositions: names a finding; the decision lands on the finding's
   * (package at version, advisory) in its release, so every SBOM of the release
   * shows it. A second create on the same pair updates it.
   */
  async upsert(
    teamId: string,
    actor: Actor,
    input: { vulnerabilityId: string } & DispositionPatch & { status?: DispositionStatus },
  ): Promise<{ disposition: Disposition; created: boolean }> {
    const finding = await findingStore.resolve(teamId, input.vulnerabilityId);
    if (!finding) throw new NotFoundError('Vulnerability');
    const { vulnerabilityId: _id, ...patch } = input;
    const key = decisionKey(finding);
    return Dispositions.apply(
      teamId,
      actor,
      targetOfFinding(finding),
      () => dispositionStore.findByDecision(teamId, finding.productId, finding.releaseId, key),
      normaliseExpiry(patch),
    );
  },

  /** PUT /api/dispositions/{id}: only supplied fields change; 409 while the release is locked. */
  async update(teamId: string, actor: Actor, dispositionId: string, patch: DispositionPatch): Promise<Disposition> {
    const existing = await dispositionStore.resolve(teamId, dispositionId);
    if (!existing) throw new NotFoundError('Disposition');
    const finding = await findingStore.resolve(teamId, existing.vulnerabilityId);
    // The audit names the finding when it still exists; the decision outlives it (a deleted SBOM).
    const target = finding
      ? {
          ...targetOfFinding(finding),
          identity: targetOfDisposition(existing).identity,
          vulnerabilityId: existing.vulnerabilityId,
        }
      : targetOfDisposition(existing);
    const read = readById(teamId, dispositionId, existing);
    return (await Dispositions.apply(teamId, actor, target, read, normaliseExpiry(patch))).disposition;
  },

  /**
   * POST /api/dispositions/{id}/confirm: a member confirms a decision carried from
   * another package version (clears `reviewRequired`; audited as `confirm`). A decision
   * that needs no review is returned unchanged (a retried confirm is harmless).
   */
  async confirm(teamId: string, actor: Actor, dispositionId: string): Promise<Disposition> {
    const existing = await dispositionStore.resolve(teamId, dispositionId);
    if (!existing) throw new NotFoundError('Disposition');
    const release = await releaseStore.resolve(teamId, existing.releaseId);
    if (!release) throw new NotFoundError('Disposition');
    if (release.release.lockedBy) throw await releaseLockedError(teamId, release.release.lockedBy);
    const read = readById(teamId, dispositionId, existing);
    return retryLostRaces(
      async () => {
        const current = await read();
        if (!current.reviewRequired) return current;
        const at = new Date().toISOString();
        const write: PlannedWrite = {
          ...plan(targetOfDisposition(current), current, {}, actor, at),
          action: 'confirm',
        };
        if ((await commit(write, actor, at)) === RETRY) return RETRY;
        return write.after;
      },
      () => new ConflictError('The disposition kept changing under this write; retry', 'concurrent_modification'),
    );
  },

  /**
   * Reads the current disposition, applies the patch to it, checks the rules on the result
   * and commits it conditioned on the revision read; a lost race starts over from a fresh read.
   */
  async apply(
    teamId: string,
    actor: Actor,
    target: DecisionTarget,
    read: () => Promise<Disposition | undefined>,
    patch: DispositionPatch,
  ): Promise<{ disposition: Disposition; created: boolean }> {
    await assertAssignee(teamId, patch.assignedTo);
    const release = await releaseStore.resolve(teamId, target.releaseId);
    if (!release) throw new NotFoundError('Vulnerability');
    if (release.release.lockedBy) throw await releaseLockedError(teamId, release.release.lockedBy);
    return retryLostRaces(
      async () => {
        const existing = await read();
        const at = new Date().toISOString();
        const write = plan(target, existing, patch, actor, at);
        const problems = dispositionRuleViolations(write.after);
        if (problems.length) throw new ValidationError('Disposition rules not met', problems);
        if ((await commit(write, actor, at)) === RETRY) return RETRY;
        return { disposition: write.after, created: !existing };
      },
      () => new ConflictError('The disposition kept changing under this write; retry', 'concurrent_modification'),
    );
  },

  /**
   * POST /api/dispositions/batch, all or nothing: every id and rule is checked
   * before anything is written (unknown ids → 422 listing them). The writes then
   * go through a recorded intent in chunked transactions (disposition-batches.ts):
   * the answer is the outcome as stored — 200 when every disposition is written,
   * 409 when a lock stopped it and every write it made is undone.
   */
  async batch(
    teamId: string,
    actor: Actor,
    input: { vulnerabilityIds: string[]; status: DispositionStatus } & DispositionPatch,
  ): Promise<{ updated: number }> {
    const { vulnerabilityIds, ...rest } = input;
    const patch = normaliseExpiry(rest);
    const problems = dispositionRuleViolations({
      status: input.status,
      justification: input.justification ?? null,
      response: input.response ?? null,
    });
    if (problems.length) throw new ValidationError('Disposition rules not met', problems);
    const uniqueIds = [...new Set(vulnerabilityIds)];
    const findings = await Promise.all(uniqueIds.map((id) => findingStore.resolve(teamId, id)));
    const unknown = uniqueIds.flatMap((id, index) =>
      findings[index]
        ? []
        : [
            {
              path: `vulnerabilityIds.${vulnerabilityIds.indexOf(id)}`,
              message: `vulnerability ${id} not found`,
              code: 'not_found',
            },
          ],
    );
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
    throw new ConflictError(
      'The dispositions kept changing under the batch; nothing was written, retry',
      'concurrent_modification',
    );
  },

  /** A release's dispositions, after finishing any batch still pending on it (so a read never shows half a batch). */
  async listByRelease(teamId: string, productId: string, releaseId: string): Promise<readonly Disposition[]> {
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
