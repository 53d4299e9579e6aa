import { Readable } from 'node:stream';
import { setImmediate as nextTick } from 'node:timers/promises';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import {
  AUDIT_CSV_COLUMNS,
  auditCsvChunks,
  auditEntriesToCsv,
  createAuditCsvStream,
  type AuditLogEntry,
} from '../../shared/service/audit/csv';

function entry(overrides: Partial<AuditLogEntry> = {}): AuditLogEntry {
  return {
    timestamp: '2025-06-30T12:00:00.000Z',
    action: 'update',
    entityType: 'product',
    entityId: '2b0c3a4e-8f4c-4f8e-9d7a-1c2b3d4e5f60',
    entityName: 'Acme Edge Router',
    actorId: 'user-1',
    actorEmail: 'jane@acme.example',
    actorName: 'Jane Doe',
    changes: { name: { from: 'Old', to: 'New' } },
    ...overrides,
  };
}

function parseCsv(csv: string): string[][] {
  return parse(csv, { relax_column_count: false });
}

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
}

describe('audit CSV', () => {
  it('writes the header row in the spec order, even with no entries', () => {
    expect(auditEntriesToCsv([])).toBe(
      'timestamp,action,entity_type,entity_id,entity_name,actor_email,actor_name,changes\r\n',
    );
    expect(AUDIT_CSV_COLUMNS).toEqual([
      'timestamp',
      'action',
      'entity_type',
      'entity_id',
      'entity_name',
      'actor_email',
      'actor_name',
      'changes',
    ]);
  });

  it('maps each entry to the columns, with changes as JSON and the actor id left out', () => {
    const [header, row] = parseCsv(auditEntriesToCsv([entry()]));
    expect(header).toEqual([...AUDIT_CSV_COLUMNS]);
    expect(row).toEqual([
      '2025-06-30T12:00:00.000Z',
      'update',
      'product',
      '2b0c3a4e-8f4c-4f8e-9d7a-1c2b3d4e5f60',
      'Acme Edge Router',
      'jane@acme.example',
      'Jane Doe',
      '{"name":{"from":"Old","to":"New"}}',
    ]);
    expect(JSON.parse(row![7]!)).toEqual(entry().changes);
  });

  it('writes null names and emails as empty cells', () => {
    const [, row] = parseCsv(auditEntriesToCsv([entry({ entityName: null, actorEmail: null, actorName: null })]));
    expect(row?.slice(4, 7)).toEqual(['', '', '']);
  });

  it('round-trips quotes, commas, newlines and unicode through csv-parse', () => {
    const tricky = [
      'He said "hi", then left',
      'line one\nline two\r\nline three',
      'comma,separated,value',
      'Ünïcödé – 日本語 – 🚀 – עברית',
      '"fully quoted"',
      '',
      ' leading and trailing spaces ',
    ];
    const entries = tricky.map((text, i) =>
      entry({
        action: `act${i}`,
        entityName: text,
        actorName: text,
        changes: { note: text, nested: { list: [text, 1, true, null] } },
      }),
    );
    const rows = parseCsv(auditEntriesToCsv(entries)).slice(1);
    expect(rows).toHaveLength(tricky.length);
    rows.forEach((row, i) => {
      expect(row).toHaveLength(8);
      expect(row[4]).toBe(tricky[i]);
      expect(row[6]).toBe(tricky[i]);
      expect(JSON.parse(row[7]!)).toEqual({ note: tricky[i], nested: { list: [tricky[i], 1, true, null] } });
    });
  });

  it('separates records with CRLF and quotes only fields that need it', () => {
    const csv = auditEntriesToCsv([entry({ entityName: 'a,b' })]);
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv).toContain(',"a,b",');
    expect(csv).toContain(',jane@acme.example,Jane Doe,');
  });

  it.each(['=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠'])(
    'prefixes a cell starting with %j with a single quote',
    (first) => {
      const value = `${first}HYPERLINK("https://evil.example","click")`;
      const [, row] = parseCsv(
        auditEntriesToCsv([
          entry({
            action: value,
            entityType: value,
            entityId: value,
            entityName: value,
            actorEmail: value,
            actorName: value,
          }),
        ]),
      );
      for (const cell of row!.slice(1, 7)) expect(cell).toBe(`'${value}`);
    },
  );

  it('leaves cells that only contain a dangerous character later on unchanged', () => {
    const [, row] = parseCsv(auditEntriesToCsv([entry({ entityName: 'a=b+c-d@e' })]));
    expect(row![4]).toBe('a=b+c-d@e');
  });

  it.each(['\n', '\r', '\r\n', '\n\n'])(
    'quotes a cell holding the line break %j, so it stays one cell',
    (lineBreak) => {
      const value = `Widget${lineBreak}=cmd|' /C calc'!A0`;
      const csv = auditEntriesToCsv([entry({ entityName: value, actorName: `x${lineBreak}y` })]);
      expect(csv).toContain(`,"Widget${lineBreak}'=cmd|' /C calc'!A0",`);
      const [, row] = parseCsv(csv);
      expect(row).toHaveLength(8);
      expect(row![4]).toBe(`Widget${lineBreak}'=cmd|' /C calc'!A0`);
      expect(row![6]).toBe(`x${lineBreak}y`);
    },
  );

  it.each(['=', '+', '-', '@', '\t', '＝', '＋', '－', '＠'])(
    'prefixes a formula starting with %j after a line break, so no physical line of the file starts with one',
    (first) => {
      const value = `name\n${first}HYPERLINK("https://evil.example")\r\n${first}1+1\r${first}2`;
      const csv = auditEntriesToCsv([entry({ entityName: value, actorEmail: value, actorName: value })]);
      for (const line of csv.split(/\r\n|\r|\n/)) expect(line).not.toMatch(/^[=+\-@\t＝＋－＠]/);
      const [, row] = parseCsv(csv);
      const escaped = `name\n'${first}HYPERLINK("https://evil.example")\r\n'${first}1+1\r'${first}2`;
      expect(row!.slice(4, 7)).toEqual([escaped, escaped, escaped]);
    },
  );

  it('never makes the changes cell a formula (JSON starts with a brace)', () => {
    const [, row] = parseCsv(auditEntriesToCsv([entry({ changes: { '=cmd': '=1+1' } })]));
    expect(row![7]).toBe('{"=cmd":"=1+1"}');
  });

  it('serialises bigint change values instead of failing', () => {
    const [, row] = parseCsv(auditEntriesToCsv([entry({ changes: { size: 12345678901234567890n } })]));
    expect(JSON.parse(row![7]!)).toEqual({ size: '12345678901234567890' });
  });

  it('can prepend a UTF-8 byte order mark for spreadsheet users', () => {
    expect(auditEntriesToCsv([], { bom: true }).startsWith('\ufeff')).toBe(true);
  });

  it('streams from an async iterable with the same output as the string API', async () => {
    const entries = Array.from({ length: 50 }, (_, i) => entry({ entityId: `id-${i}`, entityName: `name, "${i}"\n` }));
    async function* source() {
      for (const e of entries) {
        await nextTick(); // like a paginated query
        yield e;
      }
    }
    expect(await collect(auditCsvChunks(source()))).toBe(auditEntriesToCsv(entries));
  });

  it('streams 10,000 rows in chunks without building the whole file at once', async () => {
    let produced = 0;
    async function* source() {
      for (let i = 0; i < 10_000; i += 1) {
        if (i % 100 === 0) await nextTick(); // one "page" per 100 rows
        produced += 1;
        yield entry({ entityId: `id-${i}`, changes: { i } });
      }
    }
    let rows = 0;
    let largestChunk = 0;
    let producedAtFirstChunk = -1;
    for await (const chunk of auditCsvChunks(source())) {
      if (producedAtFirstChunk < 0) producedAtFirstChunk = produced;
      largestChunk = Math.max(largestChunk, chunk.length);
      rows += chunk.split('\r\n').length - 1;
    }
    expect(rows).toBe(10_001);
    expect(producedAtFirstChunk).toBeLessThan(10_000); // output starts before the source is drained
    expect(largestChunk).toBeLessThan(1024 * 1024);
  });

  it('fails the stream when the source fails instead of ending early', async () => {
    async function* source() {
      yield entry();
      await nextTick();
      throw new Error('query failed');
    }
    await expect(collect(auditCsvChunks(source()))).rejects.toThrow('query failed');
  });

  it('exposes a Transform stream that takes entries and emits CSV text', async () => {
    const stream = Readable.from([entry(), entry({ action: 'delete' })]).pipe(createAuditCsvStream());
    const csv = await collect(stream);
    expect(parseCsv(csv).map((row) => row[1])).toEqual(['action', 'update', 'delete']);
  });
});
