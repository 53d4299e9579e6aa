/**
 * The periodic deadline check: every live case of every team (the sparse live-case index) is compared
 * with the clock, and each deadline threshold passed gives one event, `cra.deadline_approaching` (6 h
 * and 1 h before) or `cra.deadline_missed`, written with the case's record of it. Event ids derive from
 * the case, stage and threshold, so a check cut off and run again writes the same events.
 */
import { keys } from '../data/keys';
import { queryAll, transactWrite, TransactionFailedError, tx } from '../data/table-client';
import { tableDefinition } from '../data/table-definition';
import { eventId, eventItem } from '../events/event-store';
import { caseStore, toCase } from './case-store';
import { dueSignals } from './rules';
import { deadlinesOfCase } from './views';

const [GSI1] = tableDefinition.globalIndexes;

export interface DeadlineCheckResult {
  cases: number;
  events: number;
}

export async function checkCraDeadlines(now = new Date().toISOString()): Promise<DeadlineCheckResult> {
  const items = await queryAll({
    pk: keys.craOpenPartition().gsi1pk,
    indexName: GSI1.indexName,
    pkAttribute: GSI1.partitionKey,
    skAttribute: GSI1.sortKey,
  });
  const result = { cases: items.length, events: 0 };
  for (const item of items) {
    const craCase = toCase(item);
    const signals = dueSignals(craCase.status, deadlinesOfCase(craCase), new Set(craCase.signals), now);
    if (signals.length === 0) continue;
    const events = signals.map((signal) => {
      const type = signal.kind === 'missed' ? 'cra.deadline_missed' : 'cra.deadline_approaching';
      return eventItem({
        id: eventId(type, craCase.teamId, craCase.id, signal.stage, signal.label),
        type,
        occurredAt: now,
        teamId: craCase.teamId,
        productId: craCase.productId,
        releaseId: craCase.affected[0]?.releaseId ?? '',
        advisoryId: craCase.advisoryIds[0] ?? craCase.vulnerabilityId,
        data: {
          case_id: craCase.id,
          vulnerability_id: craCase.vulnerabilityId,
          stage: signal.stage,
          due: signal.due,
          ...(signal.kind === 'approaching' ? { before: signal.label } : {}),
        },
      });
    });
    const next = {
      ...craCase,
      signals: [...craCase.signals, ...signals.map((signal) => `${signal.stage}:${signal.label}`)],
      revision: craCase.revision + 1,
    };
    try {
      await transactWrite([caseStore.write(next, craCase.revision), ...events.map((event) => tx.put(event))]);
      result.events += events.length;
    } catch (error) {
      // The case changed since the index was read (a submission): the next check decides again.
      if (!(error instanceof TransactionFailedError)) throw error;
    }
  }
  return result;
}
