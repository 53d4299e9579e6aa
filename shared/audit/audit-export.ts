/**
 * Audit export (spec "Audit export", "Audit log entry (export columns)"): the
 * team's audit entries as RFC 4180 CSV, at most 10,000 rows, oldest first.
 *
 * Every filter is served by a key: the time range is a sort-key BETWEEN on the
 * partition or index chosen by the other filters (entity type → gsi1, action →
 * gsi2, both → gsi3, neither → the team's audit partition). Nothing scans the
 * team's history: reading stops at row 10,001, which only tells us the limit cut.
 */
import { keys } from '../data/keys';
import { tableDefinition, type GlobalIndexName } from '../data/table-definition';
import { queryPages, type Item, type PrefixQuery } from '../data/table-client';
import { ForbiddenError, ValidationError } from '../errors';
import { toAuditEntry } from './audit-log';
import { AUDIT_EXPORT_MAX_ROWS, auditCsvChunks, type AuditLogEntry } from './csv';

export interface AuditExportFilter {
  /** Spec: `accountId` must match the key's account. */
  accountId: string;
  entityType?: string | undefined;
  action?: string | undefined;
  /** ISO 8601 with offset; inclusive. */
  startDate?: string | undefined;
  /** ISO 8601 with offset; inclusive. */
  endDate?: string | undefined;
}

export interface AuditExport {
  csv: string;
  /** Data rows in `csv` (the header not counted). */
  rows: number;
  /** True when more entries matched than the 10,000-row limit allows. */
  truncated: boolean;
}

/** Items per Query page: bounds what one page holds in memory (DynamoDB also caps a page at 1 MB). */
const PAGE_SIZE = 1000;

/** Above every character a sort key's `#<uuid>` suffix can hold, so an end bound includes its whole millisecond. */
const SORT_KEY_CEILING = '\uffff';

/**
 * Stored timestamps are `Date#toISOString()` (UTC, milliseconds), and sort keys start
 * with them, so a bound must use the same form to compare as text. Sub-millisecond
 * digits cannot match a stored entry: a start bound rounds up, an end bound down.
 */
function sortKeyBound(value: string, edge: 'start' | 'end'): string {
  const millis = Date.parse(value);
  const subMillisecond = /\.\d{3}(\d*)/.exec(value)?.[1] ?? '';
  const roundUp = edge === 'start' && /[1-9]/.test(subMillisecond);
  return new Date(millis + (roundUp ? 1 : 0)).toISOString();
}

function onIndex(indexName: GlobalIndexName, pk: string): PrefixQuery {
  const index = tableDefinition.globalIndexes.find((candidate) => candidate.indexName === indexName);
  if (!index) throw new Error(`Unknown index ${indexName}`);
  return { pk, indexName, pkAttribute: index.partitionKey, skAttribute: index.sortKey };
}

/** The one Query an export runs; exported so tests can show which key serves each filter. */
export function auditQueryPlan(teamId: string, filter: Omit<AuditExportFilter, 'accountId'>): PrefixQuery {
  const { entityType, action } = filter;
  let query: PrefixQuery;
  if (entityType !== undefined && action !== undefined) {
    query = onIndex('gsi3', keys.auditByEntityTypeAndAction(teamId, entityType, action).gsi3pk);
  } else if (entityType !== undefined) {
    query = onIndex('gsi1', keys.auditByEntityType(teamId, entityType).gsi1pk);
  } else if (action !== undefined) {
    query = onIndex('gsi2', keys.auditByAction(teamId, action).gsi2pk);
  } else {
    query = { pk: keys.auditPartition(teamId).pk };
  }
  if (filter.startDate !== undefined || filter.endDate !== undefined) {
    // Sort keys are `<ISO timestamp>#<id>`: '' sorts before and the ceiling after every one of them.
    const from = filter.startDate !== undefined ? sortKeyBound(filter.startDate, 'start') : '';
    const to = filter.endDate !== undefined ? `${sortKeyBound(filter.endDate, 'end')}#${SORT_KEY_CEILING}` : SORT_KEY_CEILING;
    query.skBetween = [from, to];
  }
  return { ...query, pageSize: PAGE_SIZE };
}

function assertDateRange(filter: AuditExportFilter): void {
  if (filter.startDate === undefined || filter.endDate === undefined) return;
  // DynamoDB refuses a BETWEEN whose lower bound exceeds the upper one; say why instead.
  if (Date.parse(filter.startDate) > Date.parse(filter.endDate)) {
    throw new ValidationError('startDate must not be after endDate', [
      { path: 'startDate', message: 'must be at or before endDate', code: 'invalid_range' },
    ]);
  }
}

export const AuditExports = {
  /** The CSV export of `teamId`'s audit log; `filter.accountId` must be that team. */
  async csv(teamId: string, filter: AuditExportFilter): Promise<AuditExport> {
    // A uuid names the same account in either case.
    if (filter.accountId.toLowerCase() !== teamId.toLowerCase()) throw new ForbiddenError('accountId must be the account of the API key');
    assertDateRange(filter);
    const plan = auditQueryPlan(teamId, filter);
    const state = { rows: 0, truncated: false };

    async function* limitedEntries(): AsyncGenerator<AuditLogEntry> {
      for await (const page of queryPages<Item>(plan)) {
        for (const item of page) {
          if (state.rows === AUDIT_EXPORT_MAX_ROWS) {
            state.truncated = true;
            return; // leaving the loop ends the Query: no page past row 10,001 is read
          }
          state.rows += 1;
          yield toAuditEntry(item);
        }
      }
    }

    // The chunks are joined because a Lambda proxy response body is one string anyway.
    const chunks: string[] = [];
    for await (const chunk of auditCsvChunks(limitedEntries())) chunks.push(chunk);
    return { csv: chunks.join(''), rows: state.rows, truncated: state.truncated };
  },
};
