/**
 * Injection into what the service writes for other programs (docs/security.md): CSV that a spreadsheet
 * opens (the audit export, the CSAF provider's changes.csv) and HTML that a browser renders (the compliance
 * report, the CSAF directory listing, the sign-in refusal page). One-line values (names, slugs, versions,
 * file names, authors) refuse control characters at the schema; free text keeps its line breaks.
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { auditItem } from '../../shared/service/audit/audit-log';
import { AUDIT_CSV_COLUMNS } from '../../shared/service/audit/csv';
import { batchWrite } from '../../shared/service/data/table-client';
import { browserSignIn } from '../support/browser-session';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { baseUrl, client, request, type HttpResponse } from '../support/http-client';
import { cycloneDxSbom } from '../support/seed';

type Api = ReturnType<typeof client>;

/** Control characters a one-line value must not carry: line breaks, TAB, NUL, ESC, DEL, C1 NEL, U+2028/2029. */
const CONTROL_PAYLOADS = ['\n', '\r', '\r\n', '\t', '\u0000', '\u001b', '\u007f', '\u0085', '\u2028', '\u2029'];

/** Formula starts a spreadsheet evaluates, each after the line breaks CSV readers split on. */
const FORMULAS = ["=cmd|' /C calc'!A0", '+1+1', '-2+3', '@SUM(A1:A2)', '\tx', '＝1+1', '＋1', '－1', '＠A1'];
const LINE_BREAKS = ['\n', '\r', '\r\n'];

const HTML_PAYLOAD = `<script>alert(1)</script>"><img src=x onerror=alert(2)><svg onload=alert(3)>'`;

/** No markup from the payload survives: neither tags nor an attribute that would break out of its quotes. */
function expectNoMarkupFrom(html: string): void {
  expect(html).not.toMatch(/<script/i);
  expect(html).not.toMatch(/<img/i);
  expect(html).not.toMatch(/<svg/i);
  expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
}

/** RFC 4180 parse: rows of raw cells, header included. */
function parseCsv(text: string): string[][] {
  return parse(text, { record_delimiter: '\r\n' });
}

async function productAndRelease(api: Api, overrides: Record<string, unknown> = {}) {
  const product = await api.post('/api/products', { name: 'Widget', slug: uniqueSlug(), ...overrides });
  expect(product.status).toBe(201);
  const release = await api.post(`/api/products/${product.body.data.id}/releases`, { version: '1.0.0' });
  expect(release.status).toBe(201);
  return { productId: product.body.data.id as string, releaseId: release.body.data.id as string };
}

/** Every request that stores a one-line value, as [label, send(value) → response]. */
function oneLineFields(api: Api, key: string, ids: { productId: string; releaseId: string; memberId: string }) {
  const cases: [string, (value: string) => Promise<HttpResponse<{ error?: unknown }>>][] = [
    ['product name (create)', (value) => api.post('/api/products', { name: `a${value}b`, slug: uniqueSlug() })],
    ['product slug (create)', (value) => api.post('/api/products', { name: 'a', slug: `a${value}b` })],
    [
      'product vendor (create)',
      (value) => api.post('/api/products', { name: 'a', slug: uniqueSlug(), vendor: `a${value}b` }),
    ],
    ['product name (update)', (value) => api.put(`/api/products/${ids.productId}`, { name: `a${value}b` })],
    ['product vendor (update)', (value) => api.put(`/api/products/${ids.productId}`, { vendor: `a${value}b` })],
    [
      'release version (create)',
      (value) => api.post(`/api/products/${ids.productId}/releases`, { version: `1.0${value}.1` }),
    ],
    [
      'release name (create)',
      (value) =>
        api.post(`/api/products/${ids.productId}/releases`, {
          version: `9.${randomUUID().slice(0, 4)}`,
          name: `a${value}b`,
        }),
    ],
    ['release version (update)', (value) => api.put(`/api/releases/${ids.releaseId}`, { version: `1.0${value}.2` })],
    ['release name (update)', (value) => api.put(`/api/releases/${ids.releaseId}`, { name: `a${value}b` })],
    [
      'member name (invite)',
      (value) => api.post('/api/members', { email: `m-${randomUUID().slice(0, 8)}@example.test`, name: `a${value}b` }),
    ],
    ['member name (update)', (value) => api.put(`/api/members/${ids.memberId}`, { name: `a${value}b` })],
    ['API key name', (value) => api.post('/api/keys', { name: `a${value}b`, scopes: ['products:read'] })],
    [
      'SBOM file name (upload)',
      (value) =>
        api.post('/api/sboms/upload', {
          releaseId: ids.releaseId,
          content: cycloneDxSbom([]),
          fileName: `bom${value}.json`,
        }),
    ],
    [
      'SBOM file name (raw upload query)',
      (value) =>
        request(
          'POST',
          `/api/sboms/upload?releaseId=${ids.releaseId}&fileName=${encodeURIComponent(`b${value}.json`)}`,
          {
            key,
            rawBody: cycloneDxSbom([]),
            headers: { 'Content-Type': 'application/vnd.cyclonedx+json' },
          },
        ),
    ],
    [
      'SBOM file name (pre-signed upload)',
      (value) => api.post('/api/sboms/uploads', { releaseId: ids.releaseId, fileName: `bom${value}.json`, size: 100 }),
    ],
    [
      'VEX author',
      (value) => api.post(`/api/releases/${ids.releaseId}/vex`, { format: 'cyclonedx_vex', author: `a${value}b` }),
    ],
    [
      'trust policy audience',
      (value) =>
        api.post('/api/trust-policies', {
          name: `policy-${randomUUID().slice(0, 8)}`,
          audience: `a${value}b`,
          claims: { repository_owner_id: '123' },
          scopes: ['sboms:write'],
        }),
    ],
    [
      'CSAF publisher name',
      (value) =>
        api.put('/api/settings', {
          csafProvider: {
            directory: `d${randomUUID().replace(/-/g, '').slice(0, 10)}`,
            publisher: { category: 'vendor', name: `a${value}b`, namespace: 'https://psirt.example' },
          },
        }),
    ],
  ];
  return cases;
}

describe('one-line values refuse control characters at the schema', () => {
  it('answers 422 for every stored name, slug, version, file name and author', async () => {
    const accepted: string[] = [];
    const fieldCount = oneLineFields(client(''), '', { productId: '', releaseId: '', memberId: '' }).length;
    // A team per field: the payloads of all fields at once would run into the team's request quota (429).
    for (let field = 0; field < fieldCount; field += 1) {
      const { api, key, memberId } = await createTeamWithKey();
      const ids = { ...(await productAndRelease(api)), memberId };
      const [label, send] = oneLineFields(api, key, ids)[field]!;
      // The same request without the control character succeeds: the 422 is about that character alone.
      const plain = await send('-');
      if (plain.status >= 300)
        accepted.push(`${label} refused a plain value: ${plain.status} ${JSON.stringify(plain.body)}`);
      for (const payload of CONTROL_PAYLOADS) {
        const response = await send(payload);
        if (response.status !== 422) accepted.push(`${label} with ${JSON.stringify(payload)}: ${response.status}`);
      }
    }
    expect(accepted).toEqual([]);
  });

  it('keeps line breaks in free text (descriptions, notes, comments, details)', async () => {
    const { api } = await createTeamWithKey();
    const text = 'first line\nsecond line\r\n\tindented';
    const { productId, releaseId } = await productAndRelease(api, { description: text });
    expect((await api.get(`/api/products/${productId}`)).body.data.description).toBe(text);
    expect((await api.put(`/api/releases/${releaseId}`, { notes: text })).status).toBe(200);
    expect((await api.get(`/api/releases/${releaseId}`)).body.data.notes).toBe(text);
  });
});

describe('the audit export holds no formula and no broken record', () => {
  /** Names stored before the schema refused line breaks, or written by paths that do not go through it. */
  async function seedHostileEntries(teamId: string): Promise<string[]> {
    const names = [
      ...FORMULAS,
      ...LINE_BREAKS.flatMap((lineBreak) => FORMULAS.map((formula) => `Widget${lineBreak}${formula}`)),
      `a,b${'\n'}"quoted"${'\r\n'}=1+1`,
      '=HYPERLINK("https://evil.example","x")',
    ];
    const actor = { id: 'legacy', name: '=cmd\n-1', email: '@legacy.example', kind: 'operator' as const };
    const items = names.map((name, index) =>
      auditItem(
        teamId,
        actor,
        { entityType: 'product', action: 'update', entityId: randomUUID(), entityName: name, changes: { index } },
        new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString(),
      ),
    );
    await batchWrite(items);
    return names;
  }

  it('quotes line breaks, escapes formulas after them, and keeps eight cells per record', async () => {
    const { api, teamId } = await createTeamWithKey();
    const names = await seedHostileEntries(teamId);
    const response = await api.get<string>(`/api/audit/export?accountId=${teamId}&entityType=product`);
    expect(response.status).toBe(200);

    // A line-based reader (or a spreadsheet splitting on any line break) sees no formula at a line start.
    for (const line of response.text.split(/\r\n|\r|\n/)) expect(line).not.toMatch(/^[=+\-@\t＝＋－＠]/);

    const [header, ...rows] = parseCsv(response.text);
    expect(header).toEqual([...AUDIT_CSV_COLUMNS]);
    const byName = rows.filter((row) => row[5] === "'@legacy.example");
    expect(byName).toHaveLength(names.length);
    for (const row of byName) {
      expect(row).toHaveLength(8);
      // Every line of a cell that a spreadsheet would evaluate starts with the quote that makes it text.
      for (const cell of row.slice(1, 7))
        for (const line of cell.split(/\r\n|\r|\n/)) expect(line).not.toMatch(/^[=+\-@\t＝＋－＠]/);
      expect(row[6]).toBe("'=cmd\n'-1");
    }
    const unescape = (cell: string) => cell.replace(/(^|\r\n|\r|\n)'(?=[=+\-@\t＝＋－＠])/g, '$1');
    expect(byName.map((row) => unescape(row[4]!)).sort()).toEqual([...names].sort());
  });

  it('escapes a formula name created through the API', async () => {
    const { api, teamId } = await createTeamWithKey();
    for (const name of FORMULAS.filter((formula) => !formula.startsWith('\t')))
      expect((await api.post('/api/products', { name, slug: uniqueSlug() })).status).toBe(201);
    const response = await api.get<string>(`/api/audit/export?accountId=${teamId}&entityType=product`);
    const rows = parseCsv(response.text).slice(1);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row[4]).toMatch(/^'/);
  });
});

describe('HTML outputs escape what users typed', () => {
  it('the compliance report renders hostile product, release, SBOM and component values as text', async () => {
    const { api } = await createTeamWithKey();
    const { releaseId } = await productAndRelease(api, {
      name: `Widget ${HTML_PAYLOAD}`,
      vendor: HTML_PAYLOAD,
      description: `${HTML_PAYLOAD}\n${HTML_PAYLOAD}`,
      websiteUrl: 'https://example.test/"><script>alert(4)</script>',
    });
    expect((await api.put(`/api/releases/${releaseId}`, { name: HTML_PAYLOAD, notes: HTML_PAYLOAD })).status).toBe(200);
    const sbom = cycloneDxSbom([{ name: HTML_PAYLOAD, version: HTML_PAYLOAD, purl: 'pkg:npm/left-pad@1.0.0' }]);
    expect(
      (await api.post('/api/sboms/upload', { releaseId, content: sbom, fileName: `${HTML_PAYLOAD}.json` })).status,
    ).toBe(201);

    const report = await api.get<string>(`/api/compliance/${releaseId}/report`);
    expect(report.status).toBe(200);
    expect(report.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(report.headers.get('content-security-policy')).not.toMatch(/script-src/);
    expectNoMarkupFrom(report.text);
    expect(report.text).not.toMatch(/href="javascript:/i);
  });

  it('the CSAF directory listing escapes the publisher name', async () => {
    const { api } = await createTeamWithKey();
    const directory = `inj-${
      randomUUID()
        .replace(/[^a-f]/g, '')
        .slice(0, 8) || 'abc'
    }`;
    const publisher = { category: 'vendor', name: HTML_PAYLOAD, namespace: 'https://psirt.example' };
    expect((await api.put('/api/settings', { csafProvider: { directory, publisher } })).status).toBe(200);
    const listing = await request<string>('GET', `/api/disclosures/csaf/${directory}/white`);
    expect(listing.status).toBe(200);
    expectNoMarkupFrom(listing.text);
    const changes = await request<string>('GET', `/api/disclosures/csaf/${directory}/white/changes.csv`);
    expect(changes.status).toBe(200);
    for (const line of changes.text.split(/\r\n|\r|\n/)) expect(line).not.toMatch(/^[=+\-@\t]/);
  });

  it('the sign-in refusal page escapes the email the provider vouched for', async () => {
    // The embedded provider only holds valid addresses (an apostrophe is valid); the page's escaping of
    // markup itself is held by test/unit/sessions.test.ts.
    const email = `o'brien+${randomUUID().slice(0, 8)}@evil.example`;
    const password = randomUUID();
    const file = join(process.env.VEXDESK_TEST_DATA_DIR ?? '', 'dev-accounts.json');
    const existing = await readFile(file, 'utf8').then(
      (text) => JSON.parse(text) as unknown[],
      () => [],
    );
    await writeFile(file, JSON.stringify([...existing, { email, name: HTML_PAYLOAD, password }]));
    const { last, session } = await browserSignIn({ email, password });
    expect(last.url.startsWith(`${baseUrl()}/api/auth/callback`)).toBe(true);
    expect(last.status).toBe(403);
    expect(session).toBeUndefined();
    expect(last.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(last.text).toContain(email.replace("'", '&#39;'));
    expect(last.text).not.toContain(email);
    expect(last.text).not.toMatch(/<script|<img|<svg/i);
  });
});
