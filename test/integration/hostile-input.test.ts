/**
 * Hostile input through HTTP (issue 8, defects 5 and 8; docs/hostile-input.md): malformed
 * percent-encoding is API Gateway's 400 on every route, API Gateway's own answers carry
 * nosniff, an SBOM version built to make a regex backtrack does not stall the server, and
 * XML bombs are refused (issue 9).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { importAdvisories } from '../../shared/service/corpus/import';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { sbomStore } from '../../shared/service/sboms/sbom-store';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { request, type HttpResponse } from '../support/http-client';

const UNKNOWN_ID = '7d0f3c1e-5b7a-4c41-9f57-2f4f0d8e9a10';
/** Truncated UTF-8 (the issue's case), an invalid byte sequence, non-hex digits, and a lone `%`. */
const BAD_ESCAPES = ['%E0%A4%A', '%C3%28', '%ZZ', '%'];

type ErrorBody = { error?: { code?: string; requestId?: string } };

function expectGatewayError(response: HttpResponse<ErrorBody>, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.body.error?.requestId).toEqual(expect.any(String));
  expect(response.text).not.toMatch(/URIError|node_modules|at [\w.]+ \(/);
}

describe('malformed percent-encoding', () => {
  it.each(BAD_ESCAPES.map((escape) => [escape]))(
    'answers 400 for %s in a path, on public and private routes, with or without a key',
    async (escape) => {
      const { key } = await createTeamWithKey();
      const paths = [
        `/api/disclosures/${escape}`,
        `/api/disclosures/a${escape}/verify`,
        `/api/products/${escape}`,
        `/api/sboms/${escape}/vulnerabilities`,
        `/api/vex/${escape}/submit`,
        `/api/no-such-route/${escape}`,
      ];

      for (const path of paths) {
        const method = path.endsWith('/submit') ? 'POST' : 'GET';
        expectGatewayError(await request(method, path, { key }), 400, 'bad_request');
        expectGatewayError(await request(method, path), 400, 'bad_request');
      }
    },
  );

  it.each(BAD_ESCAPES.map((escape) => [escape]))(
    'answers 400 for %s in a query name or value, on public and private routes',
    async (escape) => {
      const { key } = await createTeamWithKey();
      const paths = [
        `/api/disclosures?page=${escape}`,
        `/api/disclosures?${escape}=1`,
        `/api/products?search=${escape}`,
        `/api/sboms/${UNKNOWN_ID}/vulnerabilities?severity=high&severity=${escape}`,
        `/api/audit/export?from=${escape}`,
      ];

      for (const path of paths) expectGatewayError(await request('GET', path, { key }), 400, 'bad_request');
    },
  );

  it('still decodes well-formed escapes in paths and queries', async () => {
    const { api } = await createTeamWithKey();
    const name = `Ünïcode ${randomUUID().slice(0, 8)}`;
    const created = await api.post('/api/products', { name, slug: uniqueSlug('enc') });
    expect(created.status).toBe(201);

    const found = await api.get(`/api/products?search=${encodeURIComponent(name).replace(/%20/g, '+')}`);
    const byId = await api.get(`/api/products/${encodeURIComponent(created.body.data.id)}`);
    const missing = await request('GET', '/api/disclosures/%E2%80%AE-no-such-slug');

    expect(found.status).toBe(200);
    expect(found.body.data.map((product: { name: string }) => product.name)).toEqual([name]);
    expect(byId.status).toBe(200);
    expect(missing.status).toBe(404);
  });
});

describe("API Gateway's own error responses", () => {
  it('send X-Content-Type-Options: nosniff on 401, 403, 404 and 405', async () => {
    const { key } = await createTeamWithKey(['products:read']);
    // The authorizer never denies (scopes are checked in the handler), so this 403 is the handler's; the
    // gateway's ACCESS_DENIED shares the headers of the others (test/infra/default-stack/stack-rest-api.ts).

    expectGatewayError(await request('GET', '/api/products'), 401, 'unauthorized');
    expectGatewayError(await request('GET', '/api/products', { key: `vxd_${'0'.repeat(64)}` }), 401, 'unauthorized');
    expectGatewayError(await request('GET', '/api/audit/export', { key }), 403, 'forbidden');
    expectGatewayError(await request('GET', '/api/no-such-route'), 404, 'not_found');
    expectGatewayError(await request('DELETE', '/api/disclosures'), 405, 'method_not_allowed');
  });
});

describe('an SBOM version built to make the Packagist regex backtrack', () => {
  it('is scanned at once and leaves public reads fast (it held the event loop for 22 s)', async () => {
    const { api } = await createTeamWithKey();
    const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
    const name = `acme-${suffix}/target`;
    // The advisory makes the scan order the hostile version with the Packagist comparator.
    await importAdvisories([
      {
        source: 'hostile-input-test',
        advisory: parseOsvAdvisory({
          id: `GHSA-hostile-${suffix}`,
          modified: new Date().toISOString(),
          aliases: [`CVE-2091-${Date.now() % 10_000_000}`],
          affected: [
            {
              package: { ecosystem: 'Packagist', name },
              ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
            },
          ],
        }),
      },
    ]);
    const product = (await api.post('/api/products', { name: 'Hostile', slug: uniqueSlug('hostile') })).body.data;
    const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;
    const version = `1beta${'1'.repeat(31)}!`;
    const content = JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      version: 1,
      components: [
        { type: 'library', 'bom-ref': 'hostile', name, version, purl: `pkg:composer/${name}` },
        { type: 'library', 'bom-ref': 'plain', name, version: '1.0.0', purl: `pkg:composer/${name}@1.0.0` },
      ],
    });

    const upload = await api.post('/api/sboms/upload', { releaseId: release.id, content });
    expect(upload.status).toBe(201);
    // The upload queued an automatic scan: a public read now waits for any regex it runs.
    const readStarted = performance.now();
    const publicRead = await request('GET', '/api/disclosures');
    const readMs = performance.now() - readStarted;
    const scanStarted = performance.now();
    const scan = await api.post('/api/cve-scan', { sbomId: upload.body.data.id });
    const scanMs = performance.now() - scanStarted;

    // Generous: these take tens of milliseconds; the old pattern needed 22 s for this one version.
    expect({ status: publicRead.status, slow: readMs > 5000 }).toEqual({ status: 200, slow: false });
    expect({ status: scan.status, slow: scanMs > 5000 }).toEqual({ status: 202, slow: false });
    // The hostile version is no Composer version: indeterminate, not a finding; the plain one is affected.
    expect(scan.body.data).toMatchObject({ findingCount: 1, matchedComponentCount: 1 });
  });
});

describe('XML bombs and entity tricks in an SBOM upload (issue 9, defect 9)', () => {
  const bom = (doctype: string, name: string) =>
    `<?xml version="1.0"?>${doctype}<bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components><component type="library"><name>${name}</name><version>1.0.0</version></component></components></bom>`;
  const laughs = Array.from(
    { length: 9 },
    (_, level) => `<!ENTITY lol${level + 1} "${`&lol${level};`.repeat(10)}">`,
  ).join('');

  it.each([
    ['a billion laughs', bom(`<!DOCTYPE bom [<!ENTITY lol0 "lol">${laughs}]>`, '&lol9;')],
    [
      'an external entity naming a local file (XXE)',
      bom('<!DOCTYPE bom [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', '&xxe;'),
    ],
    ['an external DTD on the loopback network', bom('<!DOCTYPE bom SYSTEM "http://127.0.0.1:9/bom.dtd">', 'a')],
  ])('answers %s with 422 at once, stores nothing and leaks nothing', async (_label, content) => {
    const { api, teamId } = await createTeamWithKey();
    const product = (await api.post('/api/products', { name: 'Bombed', slug: uniqueSlug('bombed') })).body.data;
    const release = (await api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data;

    const started = performance.now();
    const upload = await api.post('/api/sboms/upload', { releaseId: release.id, content, fileName: 'bom.xml' });
    const ms = performance.now() - started;

    // Generous: a refusal takes milliseconds; an expanded billion laughs would take gigabytes.
    expect({ status: upload.status, code: upload.body.error?.code, slow: ms > 5000 }).toEqual({
      status: 422,
      code: 'sbom_rejected',
      slow: false,
    });
    expect(upload.text).not.toMatch(/root:|node_modules|at [\w.]+ \(/);
    expect(await sbomStore.listByRelease(teamId, product.id, release.id)).toEqual([]);
  });
});
