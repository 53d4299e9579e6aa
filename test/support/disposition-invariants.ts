/**
 * Checks over a release's stored dispositions that must hold whatever
 * happened (races, rollbacks, crashes): per disposition revision = history
 * entries = audit entries, and replaying the history from nothing gives the
 * stored fields (so the audit's and history's "from" values are true).
 */
import { DISPOSITION_FIELDS } from '../../shared/service/dispositions/disposition-store';

type Item = Record<string, unknown>;

export interface DispositionSnapshot {
  dispositions: Item[];
  history: Item[];
  audit: Item[];
}

/** Returns one line per violated invariant (empty when all hold). */
export function dispositionInvariantViolations({ dispositions, history, audit }: DispositionSnapshot): string[] {
  const problems: string[] = [];
  for (const disposition of dispositions) {
    const label = `disposition ${String(disposition.id)}`;
    const entries = history
      .filter((entry) => String(entry.sk).includes(`#DISPOSITION_HISTORY#${String(disposition.decisionKey)}#`))
      .sort((a, b) => Number(a.revision ?? 0) - Number(b.revision ?? 0) || String(a.sk).localeCompare(String(b.sk)));
    const audits = audit.filter((entry) => entry.entityType === 'disposition' && entry.entityId === disposition.id);
    if (entries.length !== disposition.revision || audits.length !== disposition.revision) {
      problems.push(
        `${label}: revision ${String(disposition.revision)}, history ${entries.length}, audit ${audits.length}`,
      );
      continue;
    }
    const sortedAudits = [...audits].sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
    problems.push(
      ...replayViolations(`${label} history`, entries, disposition),
      ...replayViolations(`${label} audit`, sortedAudits, disposition),
    );
  }
  return problems;
}

function isChange(value: unknown): value is { from: unknown; to: unknown } {
  return typeof value === 'object' && value !== null && 'from' in value && 'to' in value;
}

/** Replays `{ field: { from, to } }` changes from an empty disposition: each "from" must be the value at that point, the end the stored item. */
function replayViolations(label: string, entries: Item[], disposition: Item): string[] {
  const problems: string[] = [];
  const state: Record<string, unknown> = {};
  for (const entry of entries) {
    for (const [field, change] of Object.entries(entry.changes as Record<string, unknown>)) {
      if (!isChange(change)) continue;
      if (JSON.stringify(state[field] ?? null) !== JSON.stringify(change.from ?? null)) {
        problems.push(
          `${label}: ${field} changed from ${JSON.stringify(change.from)} but it was ${JSON.stringify(state[field] ?? null)}`,
        );
      }
      state[field] = change.to;
    }
  }
  for (const field of DISPOSITION_FIELDS) {
    if (JSON.stringify(state[field] ?? null) !== JSON.stringify(disposition[field] ?? null)) {
      problems.push(
        `${label}: replays ${field} = ${JSON.stringify(state[field] ?? null)}, stored ${JSON.stringify(disposition[field] ?? null)}`,
      );
    }
  }
  return problems;
}
