/**
 * Audit log CSV export (spec "Audit log entry (export columns)", "Audit export").
 *
 * - Columns, in order: timestamp, action, entity_type, entity_id, entity_name,
 *   actor_email, actor_name, changes (`changes` is the entry's change summary as JSON).
 * - RFC 4180: CRLF record separator, fields quoted when they contain a comma, a double
 *   quote, CR or LF (a bare one too), embedded quotes doubled. Done by csv-stringify, never by hand.
 * - Formula injection: a cell whose first character is `=`, `+`, `-`, `@`, tab or CR
 *   (or the full-width `＝ ＋ － ＠`) gets a leading single quote `'`, so spreadsheets
 *   show it as text instead of evaluating it (OWASP "CSV Injection"); so does every line
 *   of a multi-line cell, for readers that split records on any line break. The value is
 *   therefore not byte-identical for such cells; strip the `'` before such a character at
 *   the start of the cell or of a line to recover it.
 * - Streaming: `createAuditCsvStream` / `auditCsvChunks` hold a few rows at a time, so
 *   10,000 rows never need more than the stream buffers.
 */
import { Readable } from 'node:stream';
import { stringify, type Options, type Stringifier } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';
import * as z from 'zod';

export const auditLogEntrySchema = z.object({
  timestamp: z.string(),
  action: z.string(),
  entityType: z.string(),
  entityId: z.string(),
  entityName: z.string().nullable(),
  actorId: z.string(),
  actorEmail: z.string().nullable(),
  actorName: z.string().nullable(),
  changes: z.record(z.string(), z.unknown()),
});
export type AuditLogEntry = z.infer<typeof auditLogEntrySchema>;

/** Spec "Limits": the export returns at most this many rows (enforced by the caller's query). */
export const AUDIT_EXPORT_MAX_ROWS = 10_000;

export const AUDIT_CSV_COLUMNS = [
  'timestamp',
  'action',
  'entity_type',
  'entity_id',
  'entity_name',
  'actor_email',
  'actor_name',
  'changes',
] as const;

const ENTRY_KEYS: Record<(typeof AUDIT_CSV_COLUMNS)[number], keyof AuditLogEntry> = {
  timestamp: 'timestamp',
  action: 'action',
  entity_type: 'entityType',
  entity_id: 'entityId',
  entity_name: 'entityName',
  actor_email: 'actorEmail',
  actor_name: 'actorName',
  changes: 'changes',
};

export interface AuditCsvOptions {
  /** Prepend a UTF-8 byte order mark: helps Excel detect UTF-8; off by default (RFC 4180 has none). */
  bom?: boolean;
}

/** JSON that never throws on the value shapes a change summary can hold (bigint from number sets). */
function changesToJson(changes: Record<string, unknown>): string {
  return JSON.stringify(changes, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

/** A formula start right after a line break: csv-stringify's `escape_formulas` looks at the first character only. */
const FORMULA_AFTER_LINE_BREAK = /(\r\n|\r|\n)(?=[=+\-@\t\uFF1D\uFF0B\uFF0D\uFF20])/g;

function csvOptions(options: AuditCsvOptions): Options {
  return {
    bom: options.bom ?? false,
    header: true,
    columns: AUDIT_CSV_COLUMNS.map((header) => ({ key: ENTRY_KEYS[header], header })),
    record_delimiter: 'windows',
    // With a record_delimiter set, csv-stringify quotes only that sequence; a bare CR or LF must be quoted too.
    quote_record_delimiter: true,
    escape_formulas: true,
    cast: {
      object: (value) => changesToJson(value),
      string: (value) => value.replace(FORMULA_AFTER_LINE_BREAK, "$1'"),
    },
  };
}

/**
 * A Transform stream: write `AuditLogEntry` objects, read CSV text (header first, even
 * with no rows). Backpressure applies, so piping a paginated query through it keeps
 * memory flat.
 */
export function createAuditCsvStream(options: AuditCsvOptions = {}): Stringifier {
  const stringifier = stringify(csvOptions(options));
  stringifier.setEncoding('utf8');
  return stringifier;
}

/** Yields the CSV in chunks as entries arrive (e.g. from a paginated DynamoDB query). */
export async function* auditCsvChunks(
  entries: AsyncIterable<AuditLogEntry> | Iterable<AuditLogEntry>,
  options: AuditCsvOptions = {},
): AsyncGenerator<string, void, undefined> {
  const stringifier = createAuditCsvStream(options);
  const source = Readable.from(entries, { objectMode: true });
  // pipe() does not forward errors; a failing source must fail the export, not truncate it.
  source.once('error', (error) => stringifier.destroy(error));
  source.pipe(stringifier);
  try {
    for await (const chunk of stringifier) yield chunk as string;
  } finally {
    source.destroy();
  }
}

/** Whole CSV as one string: convenient for small exports and tests. */
export function auditEntriesToCsv(entries: Iterable<AuditLogEntry>, options: AuditCsvOptions = {}): string {
  return stringifySync([...entries], csvOptions(options));
}
