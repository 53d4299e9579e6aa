/**
 * The verbs behind /api/cra/cases: a person reads the case, sets awareness earlier with a reason,
 * finishes the drafts, records fixes and submissions (the service never talks to the reporting
 * platform), dismisses or closes it. Each change is one transaction with its audit entry, guarded by
 * the case's revision; a change that lost a race is planned again from a fresh read.
 */
import { auditPut } from '../audit/audit-log';
import { paginate } from '../data/paging';
import { transactWrite, TransactionFailedError, tx, type TransactItem } from '../data/table-client';
import { keys } from '../data/keys';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { Actor } from '../identity/actor';
import { releaseStore } from '../releases/release-store';
import { effectiveStatus } from '../dispositions/decision-identity';
import { Dispositions } from '../dispositions/dispositions';
import type { CraCaseListQuery, UpdateCraCaseInput } from '../schemas/cra';
import { caseStore, type CraCase } from './case-store';
import { CRA_STAGES, isLive, nextDeadline, STATUS_AFTER, submissionRefusal, type CraStage } from './rules';
import { deadlinesOfCase, toCaseDetailView, toCaseView } from './views';

const CHANGE_ATTEMPTS = 5;

interface Planned {
  next: CraCase;
  action: string;
  changes: Record<string, unknown>;
  extra?: TransactItem[];
}

async function getCase(teamId: string, caseId: string): Promise<CraCase> {
  const found = await caseStore.find(teamId, caseId);
  if (!found) throw new NotFoundError('CRA case');
  return found;
}

/** Plans a change from a fresh read and commits it with its audit entry; retried when the case moved meanwhile. */
export async function changeCase(
  teamId: string,
  actor: Actor,
  caseId: string,
  plan: (current: CraCase, now: string) => Planned | null,
): Promise<CraCase> {
  for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt += 1) {
    const current = await getCase(teamId, caseId);
    const now = new Date().toISOString();
    const planned = plan(current, now);
    if (!planned) return current;
    const next: CraCase = {
      ...planned.next,
      updatedAt: now,
      revision: current.revision + 1,
      timeline: [...planned.next.timeline, { at: now, type: planned.action, by: actor.name, detail: planned.changes }],
    };
    try {
      await transactWrite([
        caseStore.write(next, current.revision),
        auditPut(
          teamId,
          actor,
          {
            action: planned.action,
            entityType: 'cra_case',
            entityId: caseId,
            entityName: `${current.productName}: ${current.vulnerabilityId}`,
            changes: planned.changes,
          },
          now,
        ),
        ...(planned.extra ?? []),
      ]);
      return next;
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(0)) continue;
      throw error;
    }
  }
  throw new ConflictError('The case kept changing under this request; retry', 'concurrent_modification');
}

function requireLive(craCase: CraCase): void {
  if (!isLive(craCase.status)) throw new ConflictError(`The case is ${craCase.status}`, 'case_not_live');
}

const invalid = (path: string, message: string) => new ValidationError(message, [{ path, message }]);

export const CraCases = {
  async list(teamId: string, query: CraCaseListQuery) {
    const now = new Date().toISOString();
    const due = (craCase: CraCase) => nextDeadline(craCase.status, deadlinesOfCase(craCase));
    const cases = (await caseStore.list(teamId))
      .filter((craCase) => query.status === undefined || query.status.includes(craCase.status))
      .filter((craCase) => query.productId === undefined || craCase.productId === query.productId)
      .filter((craCase) => {
        if (query.due_before === undefined) return true;
        const next = due(craCase);
        return next !== null && Date.parse(next) < Date.parse(query.due_before);
      })
      .sort((a, b) => {
        const [dueA, dueB] = [due(a), due(b)];
        if (dueA !== dueB) return dueA === null ? 1 : dueB === null ? -1 : dueA < dueB ? -1 : 1;
        return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1;
      });
    const page = paginate(cases, query.page, query.perPage);
    return { data: page.data.map((craCase) => toCaseView(craCase, now)), meta: page.meta };
  },

  get: getCase,

  /** The case as GET answers it; a live case every affected release of which is now decided not_affected asks to be dismissed. */
  async describe(craCase: CraCase) {
    const view = toCaseDetailView(craCase, new Date().toISOString());
    if (!isLive(craCase.status) || craCase.dismissalSuggested !== null) return view;
    const now = new Date().toISOString();
    const decisions = await Promise.all(
      craCase.affected.map(async (affected) =>
        (await Dispositions.listByRelease(craCase.teamId, craCase.productId, affected.releaseId)).find(
          (disposition) =>
            craCase.advisoryIds.includes(disposition.advisoryId) &&
            effectiveStatus(disposition, now) === 'not_affected',
        ),
      ),
    );
    const decided = decisions.filter((decision) => decision !== undefined);
    if (decided.length === 0 || decided.length < decisions.length) return view;
    const latest = decided.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1))[0];
    return {
      ...view,
      dismissal_suggested: { at: latest?.updatedAt ?? now, justification: latest?.justification ?? null },
    };
  },

  view: (craCase: CraCase) => toCaseDetailView(craCase, new Date().toISOString()),

  async update(teamId: string, actor: Actor, caseId: string, input: UpdateCraCaseInput): Promise<CraCase> {
    return changeCase(teamId, actor, caseId, (current, now) => {
      const next: CraCase = { ...current, drafts: { ...current.drafts } };
      const changes: Record<string, unknown> = {};
      const extra: TransactItem[] = [];
      if (input.aware_at !== undefined) {
        const awareAt = new Date(Date.parse(input.aware_at)).toISOString();
        // Never later than what Vexdesk observed: a person may only move it earlier.
        if (Date.parse(awareAt) > Date.parse(current.observedAwareAt))
          throw invalid('aware_at', `must not be later than the observed awareness ${current.observedAwareAt}`);
        if (awareAt !== current.awareAt) {
          changes.awareAt = { from: current.awareAt, to: awareAt, reason: input.aware_at_reason };
          next.awareAt = awareAt;
          next.awareAtReason = input.aware_at_reason ?? null;
        }
      }
      for (const stage of CRA_STAGES) {
        const edited = input.drafts?.[stage];
        if (!edited) continue;
        const before = current.drafts[stage];
        const fields = { ...(before?.fields ?? {}), ...(edited as Record<string, string>) };
        if (JSON.stringify(fields) === JSON.stringify(before?.fields ?? {})) continue;
        const version = (before?.version ?? 0) + 1;
        next.drafts[stage] = { fields, version, updatedAt: now, updatedBy: actor.name };
        changes[`${stage}Draft`] = { version, fields: Object.keys(edited) };
        extra.push(
          tx.put({
            ...keys.craDraftVersion(teamId, caseId, stage, version),
            entity: 'CraDraftVersion',
            caseId,
            stage,
            version,
            fields,
            updatedAt: now,
            updatedBy: actor.name,
          }),
        );
      }
      if (Object.keys(changes).length === 0) return null;
      return { next, action: 'update', changes, extra };
    });
  },

  async dismiss(teamId: string, actor: Actor, caseId: string, reason: string): Promise<CraCase> {
    return changeCase(teamId, actor, caseId, (current, now) => {
      requireLive(current);
      return {
        next: { ...current, status: 'dismissed', dismissal: { reason, at: now, by: actor.name } },
        action: 'dismiss',
        changes: { status: { from: current.status, to: 'dismissed' }, reason },
      };
    });
  },

  async close(teamId: string, actor: Actor, caseId: string, note: string | undefined): Promise<CraCase> {
    return changeCase(teamId, actor, caseId, (current) => {
      if (current.status !== 'final_report_sent')
        throw new ConflictError('A case closes once its final report is recorded', 'final_report_missing');
      return {
        next: { ...current, status: 'closed' },
        action: 'close',
        changes: { status: { from: current.status, to: 'closed' }, ...(note ? { note } : {}) },
      };
    });
  },

  async recordFix(
    teamId: string,
    actor: Actor,
    caseId: string,
    input: { measure: string; available_at: string; release_id?: string | undefined },
  ): Promise<CraCase> {
    const current = await getCase(teamId, caseId);
    const resolved = input.release_id === undefined ? undefined : await releaseStore.resolve(teamId, input.release_id);
    const release = resolved?.product.id === current.productId ? resolved.release : undefined;
    if (input.release_id !== undefined && !release)
      throw invalid('release_id', 'must be a release of the case’s product');
    return changeCase(teamId, actor, caseId, (latest, now) => {
      requireLive(latest);
      const availableAt = new Date(Date.parse(input.available_at)).toISOString();
      if (Date.parse(availableAt) > Date.parse(now)) throw invalid('available_at', 'must not be in the future');
      return {
        next: {
          ...latest,
          fix: {
            availableAt,
            source: 'member',
            releaseId: release?.id ?? null,
            version: release?.version ?? null,
            measure: input.measure,
          },
        },
        action: 'fix',
        changes: { fixAvailableAt: { from: latest.fix?.availableAt ?? null, to: availableAt }, measure: input.measure },
      };
    });
  },

  async submit(
    teamId: string,
    actor: Actor,
    caseId: string,
    input: { stage: CraStage; submitted_at: string; reference: string; note?: string | undefined },
  ): Promise<CraCase> {
    return changeCase(teamId, actor, caseId, (current, now) => {
      const submittedAt = new Date(Date.parse(input.submitted_at)).toISOString();
      const refusal = submissionRefusal(current.status, input.stage, current.awareAt, submittedAt, now);
      if (refusal?.startsWith('submitted_at')) throw invalid('submitted_at', refusal);
      if (refusal) throw new ConflictError(`Cannot record the ${input.stage}: ${refusal}`, 'submission_out_of_order');
      if (input.stage === 'final_report' && current.fix === null)
        throw new ConflictError('Record the fix first: the final report follows a corrective measure', 'fix_missing');
      const status = STATUS_AFTER[input.stage];
      return {
        next: {
          ...current,
          status,
          submissions: [
            ...current.submissions,
            {
              stage: input.stage,
              submittedAt,
              reference: input.reference,
              note: input.note ?? null,
              recordedAt: now,
              recordedBy: actor.name,
            },
          ],
        },
        action: 'submit',
        changes: {
          stage: input.stage,
          submittedAt,
          reference: input.reference,
          status: { from: current.status, to: status },
        },
      };
    });
  },

  toView: (craCase: CraCase) => toCaseView(craCase, new Date().toISOString()),
};
