import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { auditQueryPlan } from '../../shared/service/audit/audit-export';
import { auditItem, toAuditEntry, type AuditEvent } from '../../shared/service/audit/audit-log';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { AUDIT_CSV_COLUMNS, AUDIT_EXPORT_MAX_ROWS } from '../../shared/service/audit/csv';
import { batchWrite, type Item } from '../../shared/service/data/table-client';
import type { Actor } from '../../shared/service/identity/actor';
import { addKey, createTeamWithKey, uniqueSlug } from '../support/factories';
import type { client } from '../support/http-client';

type Api = ReturnType<typeof client>;

const SEEDER: Actor = { id: 'seeder', name: 'seeder', email: 'seeder@example.test', kind: 'operator' };

async function exportCsv(api: Api, query: Record<string, string>) {
  return api.get<string>(`/api/audit/export?${new URLSearchParams(query).toString()}`);
}

/** RFC 4180 parse: rows of raw cells, header included. */
function parseCsv(text: string): string[][] {
  return parse(text, { bom: false, relax_quotes: false, record_delimiter: '\r\n' });
}

/** What the spec's columns hold for a stored entry, before formula escaping. */
function expectedCells(item: Item): string[] {
  const entry = toAuditEntry(item);
  return [
    entry.timestamp,
    entry.action,
    entry.entityType,
    entry.entityId,
    entry.entityName,
    entry.actorEmail ?? '',
    entry.actorName,
    JSON.stringify(entry.changes),
  ];
}

async function teamAuditItems(teamId: string): Promise<Item[]> {
  return readAuditLog(teamId);
}

/** Audit items written straight to the table at chosen times (for ranges and volume). */
async function seedAudit(teamId: string, events: { at: string; event: AuditEvent }[]): Promise<void> {
  const items = events.map(({ at, event }) => auditItem(teamId, SEEDER, event, at));
  const chunks = Array.from({ length: 8 }, (_, lane) => items.filter((_item, index) => index % 8 === lane));
  await Promise.all(chunks.map((chunk) => batchWrite(chunk)));
}

function event(entityType: string, action: string, index: number): AuditEvent {
  return { entityType, action, entityId: randomUUID(), entityName: `${entityType} ${index}`, changes: { index } };
}

const day = (n: number) => new Date(Date.UTC(2025, 0, n)).toISOString();

describe('GET /api/audit/export', () => {
  it('returns the eight spec columns in order, oldest first, and every cell round-trips through csv-parse', async () => {
    const { api, teamId, keyName } = await createTeamWithKey();
    // Names are one line (the schema refuses line breaks); line breaks in cells: test/security/injection.test.ts.
    const tricky = 'Quotes "inside", commas; semicolons and ünïcödé ✓';
    const product = (
      await api.post<{ data: { id: string } }>('/api/products', {
        name: tricky,
        slug: uniqueSlug(),
        description: 'one\ntwo',
      })
    ).body.data;
    expect((await api.put(`/api/products/${product.id}`, { vendor: 'Vendor, "Inc."' })).status).toBe(200);

    const response = await exportCsv(api, { accountId: teamId });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="audit-${teamId}.csv"`);
    expect(response.headers.get('x-truncated')).toBe('false');
    const [header, ...rows] = parseCsv(response.text);
    expect(header).toEqual([...AUDIT_CSV_COLUMNS]);
    const stored = await teamAuditItems(teamId);
    expect(rows).toEqual(stored.map(expectedCells));
    const timestamps = rows.map((row) => row[0] ?? '');
    expect(timestamps).toEqual([...timestamps].sort());
    const productRows = rows.filter((row) => row[2] === 'product');
    expect(productRows.map((row) => row[1])).toEqual(['create', 'update']);
    expect(productRows[0]?.[4]).toBe(tricky);
    // Spec "Authentication" rule 11: actions by a key are attributed to api_<key name>.
    expect(productRows.every((row) => row[6] === `api_${keyName}` && row[5] === '')).toBe(true);
    expect(JSON.parse(productRows[1]?.[7] ?? '{}')).toEqual({ vendor: { from: null, to: 'Vendor, "Inc."' } });
  });

  it('prefixes cells that a spreadsheet would evaluate as formulas', async () => {
    const { api, teamId } = await createTeamWithKey();
    const names = ['=HYPERLINK("https://evil.example","x")', '+1+1', '-2+3', '@SUM(A1:A2)'];
    for (const name of names) expect((await api.post('/api/products', { name, slug: uniqueSlug() })).status).toBe(201);

    const response = await exportCsv(api, { accountId: teamId, entityType: 'product' });

    const rows = parseCsv(response.text).slice(1);
    expect(rows.map((row) => row[4])).toEqual(names.map((name) => `'${name}`));
  });

  it.each([
    ['entityType', { entityType: 'release' }, (e: AuditEvent) => e.entityType === 'release', 'gsi1'],
    ['action', { action: 'update' }, (e: AuditEvent) => e.action === 'update', 'gsi2'],
    [
      'entityType and action',
      { entityType: 'release', action: 'update' },
      (e: AuditEvent) => e.entityType === 'release' && e.action === 'update',
      'gsi3',
    ],
  ])('filters by %s through its index', async (_name, filter, matches, indexName) => {
    const { api, teamId } = await createTeamWithKey();
    const events = ['product', 'release', 'vex_document'].flatMap((entityType) =>
      ['create', 'update', 'submit'].map((action, index) => ({
        at: day(index + 1),
        event: event(entityType, action, index),
      })),
    );
    await seedAudit(teamId, events);

    const response = await exportCsv(api, { accountId: teamId, ...filter });

    expect(response.status).toBe(200);
    expect(auditQueryPlan(teamId, filter)[0]?.indexName).toBe(indexName);
    const rows = parseCsv(response.text).slice(1);
    const expected = events.filter(({ event: e }) => matches(e)).map(({ event: e }) => e.entityId);
    expect(rows.map((row) => row[3]).sort()).toEqual(expected.sort());
    expect(rows.length).toBeGreaterThan(0);
  });

  it('filters by an inclusive date range on the sort key, with any offset', async () => {
    const { api, teamId } = await createTeamWithKey();
    const events = [1, 2, 3, 4, 5].map((n) => ({
      at: day(n),
      event: event('product', n % 2 ? 'create' : 'update', n),
    }));
    await seedAudit(teamId, events);
    const entityIdOn = (n: number) => events[n - 1]?.event.entityId;

    const both = await exportCsv(api, {
      accountId: teamId,
      startDate: '2025-01-02T00:00:00Z',
      endDate: '2025-01-04T00:00:00.000Z',
    });
    const withOffset = await exportCsv(api, {
      accountId: teamId,
      startDate: '2025-01-02T01:00:00+01:00',
      endDate: '2025-01-03T23:59:59.999-00:00',
    });
    const withAction = await exportCsv(api, {
      accountId: teamId,
      startDate: '2025-01-04T00:00:00Z',
      endDate: '2025-01-05T00:00:00Z',
      action: 'create',
    });
    const untilOnly = await exportCsv(api, { accountId: teamId, endDate: '2025-01-01T00:00:00Z' });
    const justAfter = await exportCsv(api, {
      accountId: teamId,
      startDate: '2025-01-01T00:00:00.0001Z',
      endDate: '2025-01-02T00:00:00Z',
    });

    const ids = (response: { text: string }) =>
      parseCsv(response.text)
        .slice(1)
        .map((row) => row[3]);
    expect(ids(both)).toEqual([entityIdOn(2), entityIdOn(3), entityIdOn(4)]);
    expect(ids(withOffset)).toEqual([entityIdOn(2), entityIdOn(3)]);
    expect(ids(withAction)).toEqual([entityIdOn(5)]);
    expect(ids(untilOnly)).toEqual([entityIdOn(1)]);
    expect(ids(justAfter)).toEqual([entityIdOn(2)]);
    expect(auditQueryPlan(teamId, { startDate: '2025-01-02T00:00:00Z' })[0]?.skBetween?.[0]).toBe(
      '2025-01-02T00:00:00.000Z',
    );
  });

  it('cuts at 10,000 rows, says so in X-Truncated, and keeps the CSV clean', async () => {
    const { api, teamId } = await createTeamWithKey();
    const base = Date.UTC(2020, 0, 1);
    const events = Array.from({ length: AUDIT_EXPORT_MAX_ROWS + 1 }, (_, index) => ({
      at: new Date(base + index * 1000).toISOString(),
      event: event('bulk', 'import', index),
    }));
    await seedAudit(teamId, events);
    const tenThousandth = events[AUDIT_EXPORT_MAX_ROWS - 1]?.at ?? '';

    const cut = await exportCsv(api, { accountId: teamId });
    const exact = await exportCsv(api, { accountId: teamId, endDate: tenThousandth });

    expect(cut.status).toBe(200);
    expect(cut.headers.get('x-truncated')).toBe('true');
    const cutRows = parseCsv(cut.text);
    expect(cutRows[0]).toEqual([...AUDIT_CSV_COLUMNS]);
    expect(cutRows).toHaveLength(AUDIT_EXPORT_MAX_ROWS + 1);
    expect(cutRows.every((row) => row.length === AUDIT_CSV_COLUMNS.length)).toBe(true);
    expect(cutRows.at(-1)?.[3]).toBe(events[AUDIT_EXPORT_MAX_ROWS - 1]?.event.entityId);
    expect(cut.text.endsWith('\r\n')).toBe(true);
    expect(exact.headers.get('x-truncated')).toBe('false');
    expect(parseCsv(exact.text)).toHaveLength(AUDIT_EXPORT_MAX_ROWS + 1);
  });

  it('returns 403 when accountId is another account', async () => {
    const { api } = await createTeamWithKey();
    const other = await createTeamWithKey();

    const foreign = await exportCsv(api, { accountId: other.teamId });
    const unknown = await exportCsv(api, { accountId: randomUUID() });

    expect(foreign.status).toBe(403);
    expect(unknown.status).toBe(403);
    expect(foreign.text).not.toContain(other.keyName);
  });

  it("accepts the key's own accountId in upper case", async () => {
    const { api, teamId } = await createTeamWithKey();

    const response = await exportCsv(api, { accountId: teamId.toUpperCase() });

    expect(response.status).toBe(200);
    expect(parseCsv(response.text).length).toBeGreaterThan(1);
  });

  it('returns 403 for a key without audit:read', async () => {
    const team = await createTeamWithKey();
    const limited = await addKey(team.teamId, team.memberId, ['products:read', 'compliance:read']);

    const response = await exportCsv(limited.api, { accountId: team.teamId });

    expect(response.status).toBe(403);
    expect(response.text).toContain('audit:read');
  });

  it.each<[string, Record<string, string | null>]>([
    ['accountId', { accountId: null }],
    ['accountId', { accountId: 'not-a-uuid' }],
    ['startDate', { startDate: 'yesterday' }],
    ['startDate', { startDate: '2025-01-01' }],
    ['endDate', { endDate: '2025-13-01T00:00:00Z' }],
    ['startDate', { startDate: '2025-02-01T00:00:00Z', endDate: '2025-01-01T00:00:00Z' }],
    ['entityType', { entityType: 'Product;DROP' }],
  ])('returns 422 naming %s for the query %j', async (path, query) => {
    const { api, teamId } = await createTeamWithKey();

    const full = Object.entries({ accountId: teamId, ...query }).filter(
      (entry): entry is [string, string] => entry[1] !== null,
    );

    const response = await exportCsv(api, Object.fromEntries(full));

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      error: { details: expect.arrayContaining([expect.objectContaining({ path })]) },
    });
  });
});
