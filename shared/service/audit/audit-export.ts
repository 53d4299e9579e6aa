/**
 * Audit export (spec "Audit export", "Audit log entry (export columns)"): the
 * team's audit entries as RFC 4180 CSV, at most 10,000 rows, oldest first.
 *
 * Every filter is served by a key: the time range is a sort-key BETWEEN on the
 * partitions or index chosen by the other filters (entity type → gsi1, action →
 * gsi2, both → gsi3, neither → the team's audit partitions), one range per audit
 * shard, merged in time order (shared/service/audit/audit-read.ts). Nothing scans the
 * team's history: reading stops at row 10,001, which only tells us the limit cut.
 */
import { ForbiddenError, ValidationError } from '../errors';
import { toAuditEntry } from './audit-log';
import { auditItemsInOrder, type AuditFilter } from './audit-read';
import { AUDIT_EXPORT_MAX_ROWS, auditCsvChunks, type AuditLogEntry } from './csv';

export { auditQueryPlan } from './audit-read';

export interface AuditExportFilter extends AuditFilter {
  /** Spec: `accountId` must match the key's account. */
  accountId: string;
}

export interface AuditExport {
  csv: string;
  /** Data rows in `csv` (the header not counted). */
  rows: number;
  /** True when more entries matched than the 10,000-row limit allows. */
  truncated: boolean;
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
    if (filter.accountId.toLowerCase() !== teamId.toLowerCase())
      throw new ForbiddenError('accountId must be the account of the API key');
    assertDateRange(filter);
    const { entityType, action, startDate, endDate } = filter;
    const state = { rows: 0, truncated: false };

    async function* limitedEntries(): AsyncGenerator<AuditLogEntry> {
      for await (const item of auditItemsInOrder(teamId, { entityType, action, startDate, endDate })) {
        if (state.rows === AUDIT_EXPORT_MAX_ROWS) {
          state.truncated = true;
          return; // leaving the loop ends every shard's Query: no page past row 10,001 is read
        }
        state.rows += 1;
        yield toAuditEntry(item);
      }
    }

    // The chunks are joined because a Lambda proxy response body is one string anyway.
    const chunks: string[] = [];
    for await (const chunk of auditCsvChunks(limitedEntries())) chunks.push(chunk);
    return { csv: chunks.join(''), rows: state.rows, truncated: state.truncated };
  },
};
