/**
 * The web console end to end (issue 12 "Done when"), in Debian's chromium against the real local
 * server: sign in through the embedded OpenID provider's form, create a product and a release,
 * drop a fixture SBOM, triage in bulk, generate a VEX document, submit it, approve it as a second
 * member, publish it, and check the public page's hash against the raw download; a key created in
 * the UI works until revoked there; a cookie POST without the CSRF token is refused; an expired
 * session lands on the sign-in page. axe-core runs on every page, key actions are done from the
 * keyboard (Tab until focused, then Enter or Space), and every page is photographed.
 *
 * The steps share one browser and run in order: each builds on the one before.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dynamo, tableName } from '../../shared/service/aws-clients';
import { keys } from '../../shared/service/data/keys';
import { hashSessionId } from '../../shared/service/identity/sessions';
import { MAX_SBOM_BYTES } from '../../shared/service/sboms/sbom-limits';
import { demoLogin, devAccount, SESSION_COOKIE } from '../support/browser-session';
import { baseUrl } from '../support/http-client';
import { launchBrowser, recordCspViolations, screenshot, seriousViolations, tabTo } from './browser';

jest.setTimeout(90_000);

const FIXTURE = join(import.meta.dirname, '../fixtures/sboms/cyclonedx-1.5_maven_cdxgen_vuln-spring.json');

let browser: Browser;
let admin: BrowserContext;
let page: Page;
const cspViolations: string[] = [];
const state: {
  productId?: string;
  releaseId?: string;
  findingCount?: number;
  approver?: { email: string; name: string; password: string };
  disclosurePath?: string;
} = {};

async function expectAccessible(target: Page, name: string): Promise<void> {
  await screenshot(target, name);
  expect({ page: name, violations: await seriousViolations(target) }).toEqual({ page: name, violations: [] });
}

/** Signs in at the embedded provider's real form, from the console's sign-in page. */
async function signInThroughProvider(target: Page, credentials: { email: string; password: string }): Promise<void> {
  await target.getByRole('heading', { name: 'Sign in to Vexdesk' }).waitFor();
  await tabTo(target, target.getByRole('link', { name: 'Sign in' }));
  await target.locator('#email').waitFor();
  await target.locator('#email').fill(credentials.email);
  await target.locator('#password').fill(credentials.password);
  await target.locator('#password').press('Enter');
  await target.waitForURL(
    (url) => url.origin === baseUrl() && !url.pathname.startsWith('/sign-in') && !url.pathname.startsWith('/api/'),
  );
}

/** Reads `read` until it gives `expected` (the page re-renders after its request answers) or 10 s pass; the last reading. */
async function eventually<T>(read: () => Promise<T>, expected: T): Promise<T> {
  let last = await read();
  for (
    const deadline = Date.now() + 10_000;
    JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline;
    last = await read()
  ) {
    await new Promise((done) => setTimeout(done, 100));
  }
  return last;
}

function bootstrapKey(): string {
  const file = join(process.env.VEXDESK_TEST_DATA_DIR ?? '', 'bootstrap.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { apiKey: string }).apiKey;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads JSON
async function apiGet(path: string, key: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl()}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return {
    status: response.status,
    body: response.headers.get('content-type')?.includes('json') ? await response.json() : await response.text(),
  };
}

/** A GET that must answer 200, with the answer in the failure message otherwise. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads JSON
async function apiData(path: string): Promise<any> {
  const { status, body } = await apiGet(path, bootstrapKey());
  expect({ path, status, body: status === 200 ? 'ok' : body }).toEqual({ path, status: 200, body: 'ok' });
  return body;
}

async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies(baseUrl())).find((entry) => entry.name === SESSION_COOKIE);
  if (!cookie) throw new Error('no session cookie');
  return cookie.value;
}

beforeAll(async () => {
  browser = await launchBrowser();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  cspViolations.push(...recordCspViolations(page));
  page.on('dialog', (dialog) => void dialog.accept());
});

afterAll(async () => {
  await browser?.close();
});

describe('the web console, from sign-in to a published disclosure', () => {
  it('sends a visitor without a session to sign-in, and signs in through the embedded provider', async () => {
    await page.goto(`${baseUrl()}/`);
    await page.waitForURL(/\/sign-in\?returnTo=%2F$/);
    await expectAccessible(page, '01-sign-in');
    await signInThroughProvider(page, await demoLogin());
    await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await expectAccessible(page, '02-products-empty');
  });

  it('creates a product and a release from the keyboard', async () => {
    const create = page.getByRole('region', { name: 'New product' });
    await create.getByLabel('Name').fill('Widget Server');
    await create.getByLabel('Slug').fill('widget-server');
    await create.getByLabel('Vendor').fill('Acme <Security> & Co');
    await tabTo(page, create.getByRole('button', { name: 'Create product' }));
    await page.waitForURL(/\/products\/[0-9a-f-]{36}$/);
    state.productId = page.url().split('/').pop();
    await page.getByRole('heading', { name: 'Widget Server', level: 1 }).waitFor();
    await expectAccessible(page, '03-product');
    const editProduct = page.getByRole('region', { name: 'Edit product' });
    await editProduct.getByLabel('Description').fill("The widget fleet's server");
    await tabTo(page, editProduct.getByRole('button', { name: 'Save product' }));
    await editProduct.getByRole('status').getByText('Saved.').waitFor();
    expect((await apiData(`/api/products/${state.productId}`)).data).toMatchObject({
      description: "The widget fleet's server",
      vendor: 'Acme <Security> & Co',
    });

    const release = page.getByRole('region', { name: 'New release' });
    await release.getByLabel('Version').fill('2.4.0');
    await tabTo(page, release.getByRole('button', { name: 'Create release' }));
    await page.waitForURL(/\/releases\/[0-9a-f-]{36}$/);
    state.releaseId = page.url().split('/').pop();
    await page.getByRole('heading', { name: 'Widget Server 2.4.0', level: 1 }).waitFor();
    const editRelease = page.getByRole('region', { name: 'Edit release' });
    await editRelease.getByLabel('Notes').fill('First release on the new platform');
    await tabTo(page, editRelease.getByRole('button', { name: 'Save release' }));
    await editRelease.getByRole('status').getByText('Saved.').waitFor();
    expect((await apiData(`/api/releases/${state.releaseId}`)).data).toMatchObject({
      notes: 'First release on the new platform',
      status: 'active',
    });
  });

  it('uploads a fixture SBOM by drag and drop and shows its findings once scanned', async () => {
    const content = readFileSync(FIXTURE, 'utf8');
    // Page-side code as text: the test project compiles without the DOM library.
    const dataTransfer = await page.evaluateHandle(`(({ text, name }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], name, { type: 'application/json' }));
      return transfer;
    })(${JSON.stringify({ text: content, name: 'vuln-spring.bom.json' })})`);
    await page.dispatchEvent('[data-testid=sbom-dropzone]', 'drop', { dataTransfer });
    await page.getByText(/vuln-spring\.bom\.json: CycloneDX 1\.5, \d+ components/).waitFor();

    // The scan runs in the background (the list answers 409 scan_pending meanwhile); the page polls until it is done.
    let total = 0;
    for (
      const deadline = Date.now() + 30_000;
      Date.now() < deadline && total === 0;
      await new Promise((done) => setTimeout(done, 250))
    ) {
      const listed = await apiGet(`/api/releases/${state.releaseId}/vulnerabilities?perPage=1`, bootstrapKey());
      if (listed.status === 200) total = listed.body.meta.total as number;
      else expect(listed.body.error.code).toBe('scan_pending');
    }
    expect(total).toBeGreaterThan(1);
    state.findingCount = total;
    await page.getByText(`${total} findings · ${total} without a decision`).waitFor({ timeout: 20_000 });
    await expect(page.getByRole('checkbox', { name: /^Select (CVE|GHSA)-/ }).count()).resolves.toBe(total);
    await expectAccessible(page, '04-release-findings');
  });

  it('sorts and filters the findings on the server', async () => {
    const kevRows = (await apiData(`/api/releases/${state.releaseId}/vulnerabilities?kev=true&perPage=500`)).meta
      .total as number;
    await page.getByLabel('Known exploited (KEV)').check();
    await page.getByText(`${kevRows} findings ·`).waitFor();
    await expect(page.getByRole('checkbox', { name: /^Select (CVE|GHSA)-/ }).count()).resolves.toBe(kevRows);
    await page.getByLabel('Known exploited (KEV)').uncheck();
    await page.getByText(`${state.findingCount} findings ·`).waitFor();
    await page.getByRole('button', { name: 'Component' }).click();
    await page.locator('th[aria-sort="ascending"]', { hasText: 'Component' }).waitFor();
    const byComponent = (await apiData(`/api/releases/${state.releaseId}/vulnerabilities?sort=component&perPage=500`))
      .data as Array<{ component_name: string; component_version: string | null }>;
    const expected = byComponent.map((row) => `${row.component_name} ${row.component_version ?? ''}`.trim());
    expect(expected.length).toBe(state.findingCount);
    const shown = await eventually(
      () => page.locator('table.findings tbody tr td:nth-child(3)').allInnerTexts(),
      expected,
    );
    expect(shown).toEqual(expected);
  });

  it('triages every finding in bulk (select all, Space; apply, Enter) through the batch route', async () => {
    await tabTo(page, page.getByRole('checkbox', { name: 'Select every finding on this page' }), ' ');
    const bulk = page.getByRole('form', { name: 'Decide the selected findings' });
    await bulk.getByLabel('Status').selectOption('not_affected');
    await bulk.getByLabel('Justification').selectOption('vulnerable_code_not_in_execute_path');
    await bulk.getByLabel('Detail').fill('The affected endpoint is disabled in our build.');
    await tabTo(page, bulk.getByRole('button', { name: `Apply to ${state.findingCount} selected` }));
    await page.getByText(`${state.findingCount} findings marked not affected.`).waitFor();
    await page.getByText(`${state.findingCount} findings · 0 without a decision`).waitFor();

    const listed = (await apiData(`/api/releases/${state.releaseId}/vulnerabilities?perPage=500`)).data as Array<{
      disposition?: { status: string; justification: string };
    }>;
    expect(listed.map((row) => [row.disposition?.status, row.disposition?.justification])).toEqual(
      listed.map(() => ['not_affected', 'vulnerable_code_not_in_execute_path']),
    );

    await page
      .getByRole('button', { name: /^Details of / })
      .first()
      .click();
    const panel = page.getByRole('complementary');
    await panel.getByText('status: — → not affected').waitFor();
    await expectAccessible(page, '05-disposition-panel');
    await panel.getByRole('button', { name: 'Close' }).click();
  });

  it('generates a VEX document and submits it; a rejection needs a comment', async () => {
    const vex = page.getByRole('region', { name: 'VEX documents' });
    await tabTo(page, vex.getByRole('button', { name: 'Generate VEX document' }));
    await vex.getByRole('heading', { name: /OpenVEX v1 draft/ }).waitFor();
    await tabTo(page, vex.getByRole('button', { name: 'Submit for approval' }));
    await vex.getByRole('heading', { name: /OpenVEX v1 submitted/ }).waitFor();
    await expect(vex.getByRole('button', { name: 'Reject' }).isDisabled()).resolves.toBe(true);
    await vex.getByLabel('Comment (required to reject)').fill('x');
    await expect(vex.getByRole('button', { name: 'Reject' }).isDisabled()).resolves.toBe(false);
    await vex.getByLabel('Comment (required to reject)').fill('');
    await vex.getByRole('button', { name: 'View the document' }).click();
    await vex.getByLabel('Document content').getByText('"@context": "https://openvex.dev/ns/v0.2.0"').waitFor();
    await vex.getByText(/^submit by Demo Admin/).waitFor();
    await expectAccessible(page, '06-vex-submitted');
  });

  it('invites a second member from the settings page', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    state.approver = await devAccount('approver');
    const invite = page.getByRole('form', { name: 'Invite a member' });
    await invite.getByLabel('Email').fill(state.approver.email);
    await invite.getByLabel('Name').fill(state.approver.name);
    await invite.getByLabel(/^Edit content/).check();
    await tabTo(page, invite.getByRole('button', { name: 'Invite' }));
    await page.getByText(`${state.approver.email} invited`).waitFor();
    // The name is text, never markup.
    await page
      .getByRole('cell', { name: new RegExp(`approver <b>&</b>`) })
      .first()
      .waitFor();
    await expectAccessible(page, '07-settings');
  });

  it('lets the second member approve in their own browser session', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const approverPage = await context.newPage();
    cspViolations.push(...recordCspViolations(approverPage));
    await approverPage.goto(`${baseUrl()}/releases/${state.releaseId}`);
    await signInThroughProvider(approverPage, state.approver!);
    expect(new URL(approverPage.url()).pathname).toBe(`/releases/${state.releaseId}`);
    const vex = approverPage.getByRole('region', { name: 'VEX documents' });
    await vex.getByLabel('Comment (required to reject)').fill('Checked against the build: approved.');
    await tabTo(approverPage, vex.getByRole('button', { name: 'Approve' }));
    await vex.getByRole('heading', { name: /OpenVEX v1 approved/ }).waitFor();
    await vex.getByText(/^approve by approver <b>&<\/b>.*Checked against the build: approved\./).waitFor();
    await context.close();
  });

  it('publishes, and the public page shows the hash of the raw download and a valid signature', async () => {
    await page.goto(`${baseUrl()}/releases/${state.releaseId}`);
    const vex = page.getByRole('region', { name: 'VEX documents' });
    await vex.getByRole('heading', { name: /OpenVEX v1 approved/ }).waitFor();
    await tabTo(page, vex.getByRole('button', { name: 'Publish' }));
    await vex.getByRole('heading', { name: /OpenVEX v1 published/ }).waitFor();
    state.disclosurePath =
      (await vex.getByRole('link', { name: 'Public disclosure page' }).getAttribute('href')) ?? undefined;
    expect(state.disclosurePath).toMatch(/^\/d\/[a-z0-9-]+$/);
    await expectAccessible(page, '08-vex-published');

    // Anyone: a fresh browser without a session.
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const publicPage = await visitor.newPage();
    cspViolations.push(...recordCspViolations(publicPage));
    await publicPage.goto(`${baseUrl()}${state.disclosurePath}`);
    await publicPage.getByRole('heading', { name: 'Widget Server 2.4.0', level: 1 }).waitFor();
    await publicPage
      .getByTestId('signature-status')
      .getByText(/^Valid/)
      .waitFor();
    const shownHash = (await publicPage.getByTestId('content-hash').innerText()).trim();
    const rawHref = await publicPage.getByTestId('raw-download').getAttribute('href');
    const raw = Buffer.from(await (await fetch(new URL(rawHref!, baseUrl()))).arrayBuffer());
    expect(shownHash).toBe(createHash('sha256').update(raw).digest('hex'));
    const statements = (JSON.parse(raw.toString('utf8')) as { statements: unknown[] }).statements.length;
    expect(statements).toBeGreaterThan(0);
    await expect(
      publicPage
        .getByRole('region', { name: /^Statements/ })
        .getByRole('row')
        .count(),
    ).resolves.toBe(statements + 1);
    await publicPage.getByText('Acme <Security> & Co', { exact: false }).waitFor();
    await expectAccessible(publicPage, '09-public-disclosure');
    await visitor.close();
  });

  it("changes a member's permissions and removes the member from the settings page", async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const email = state.approver!.email;
    const contentWrite = page.getByRole('checkbox', { name: `content.write for ${email}` });
    await contentWrite.waitFor();
    await tabTo(page, contentWrite, ' ');
    await page.getByText(`Permissions of ${email} saved.`).waitFor();
    const listed = () =>
      apiData('/api/members').then((body) =>
        (body.data as Array<{ email: string; permissions: string[] }>).find((member) => member.email === email),
      );
    expect((await listed())?.permissions).toEqual([]);
    await tabTo(page, page.getByRole('button', { name: `Remove ${email}` }));
    await page.getByText(`${email} removed.`).waitFor();
    expect(await listed()).toBeUndefined();
  });

  it("changes the team's session timeouts on the settings page, and shows the service's refusal of an inconsistent pair", async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Session timeouts' });
    const idle = form.getByLabel('Idle timeout (minutes)');
    await idle.fill('90');
    await form.getByText('1 h 30 min').waitFor();
    await tabTo(page, form.getByRole('button', { name: 'Save timeouts' }));
    await page.getByText('Session timeouts saved', { exact: false }).waitFor();
    const stored = async () => ((await apiData('/api/settings')).data as { sessionTimeouts: unknown }).sessionTimeouts;
    expect(await stored()).toEqual({ idleMinutes: 90, absoluteMinutes: 7 * 24 * 60 });

    // An idle timeout longer than the absolute one: the service refuses (422) and the page says why.
    await form.getByLabel('Absolute timeout (minutes)').fill('60');
    await tabTo(page, form.getByRole('button', { name: 'Save timeouts' }));
    await page
      .getByRole('region', { name: 'Browser sessions' })
      .getByRole('alert')
      .getByText(/cannot exceed the absolute timeout/)
      .waitFor();
    expect(await stored()).toEqual({ idleMinutes: 90, absoluteMinutes: 7 * 24 * 60 });
    await expectAccessible(page, '13-session-timeouts');
  });

  it('serves the compliance report and the audit export to the session', async () => {
    const report = await admin.request.get(`${baseUrl()}/api/compliance/${state.releaseId}/report`);
    expect(report.status()).toBe(200);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { name: 'Audit export', level: 1 }).waitFor();
    await page.getByLabel('Entity type').selectOption('vex_document');
    const href = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
    const csv = await admin.request.get(`${baseUrl()}${href}`);
    expect(csv.status()).toBe(200);
    expect(await csv.text()).toMatch(/^timestamp,action,entity_type/);
    expect(await csv.text()).toContain('publish');
    await expectAccessible(page, '10-audit');
  });

  it('creates an API key in the UI, which works until it is revoked there (then 401)', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const create = page.getByRole('form', { name: 'Create an API key' });
    await create.getByLabel('Name').fill('ci-e2e');
    await tabTo(page, create.getByRole('button', { name: 'Create key' }));
    const value = await page.getByTestId('created-key').inputValue();
    expect(value).toMatch(/^vxd_[0-9a-f]{64}$/);
    await screenshot(page, '11-key-created');
    expect((await apiGet(`/api/products/${state.productId}/releases`, value)).status).toBe(200);

    await tabTo(page, page.getByRole('button', { name: 'Revoke ci-e2e' }));
    await page
      .getByRole('row', { name: /ci-e2e/ })
      .getByText(/^Revoked/)
      .waitFor();
    expect((await apiGet(`/api/products/${state.productId}/releases`, value)).status).toBe(401);
    await expectAccessible(page, '12-key-revoked');
  });

  it('refuses a state-changing request with the session cookie but no CSRF token (403)', async () => {
    const cookie = `${SESSION_COOKIE}=${await sessionCookie(admin)}`;
    const body = JSON.stringify({ name: 'Forged', slug: 'forged' });
    const crossSite = await fetch(`${baseUrl()}/api/products`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: 'https://evil.example', 'Content-Type': 'application/json' },
      body,
    });
    expect(crossSite.status).toBe(403);
    // The same request from the console's own origin, still without the token.
    const sameOrigin = await page.evaluate(
      async (payload) =>
        (
          await fetch('/api/products', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: payload,
          })
        ).status,
      body,
    );
    expect(sameOrigin).toBe(403);
    const listed = (await apiData('/api/products?slug=forged')).data as unknown[];
    expect(listed).toEqual([]);
  });

  it('uploads a larger SBOM through the file input, gzip-compressed in the browser, stored byte for byte', async () => {
    const file = join(import.meta.dirname, '../fixtures/sboms/cyclonedx-1.4_go-cargo-pypi_syft_sbomgr.json');
    const created = await fetch(`${baseUrl()}/api/products/${state.productId}/releases`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${bootstrapKey()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ version: '2.5.0' }),
    });
    expect(created.status).toBe(201);
    const releaseId = ((await created.json()) as { data: { id: string } }).data.id;
    await page.goto(`${baseUrl()}/releases/${releaseId}`);
    await page.getByRole('heading', { name: 'Widget Server 2.5.0', level: 1 }).waitFor();
    const upload = page.waitForRequest((request) => request.url().includes('/api/sboms/upload?'));
    await page.getByLabel('Choose a file').setInputFiles(file);
    expect((await upload).headers()['content-encoding']).toBe('gzip');
    await page.getByText(/sbomgr\.json: CycloneDX 1\.4, \d+ components/).waitFor();
    const stored = (await apiData(`/api/releases/${releaseId}/sboms`)).data as Array<{
      file_hash: string;
      file_name: string;
    }>;
    expect(stored.map(({ file_hash, file_name }) => [file_hash, file_name])).toEqual([
      [createHash('sha256').update(readFileSync(file)).digest('hex'), 'cyclonedx-1.4_go-cargo-pypi_syft_sbomgr.json'],
    ]);
  });

  it('refuses a file over the 10 MB SBOM limit before sending it, and says so', async () => {
    // 2.4.0 is locked by its published VEX (no upload there): a release of its own.
    const created = await fetch(`${baseUrl()}/api/products/${state.productId}/releases`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${bootstrapKey()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ version: '2.6.0' }),
    });
    expect(created.status).toBe(201);
    await page.goto(`${baseUrl()}/releases/${((await created.json()) as { data: { id: string } }).data.id}`);
    await page.getByRole('heading', { name: 'Widget Server 2.6.0', level: 1 }).waitFor();
    const uploads: string[] = [];
    const watch = (request: { url: () => string }) => {
      if (request.url().includes('/api/sboms/upload')) uploads.push(request.url());
    };
    page.on('request', watch);
    await page.getByLabel('Choose a file').setInputFiles({
      name: 'huge.cdx.json',
      mimeType: 'application/json',
      buffer: Buffer.alloc(MAX_SBOM_BYTES + 1, 0x20),
    });
    await page
      .getByRole('alert')
      .getByText('huge.cdx.json: The file is 10.0 MB; the service accepts SBOMs up to 10.0 MB (10,485,760 bytes).')
      .waitFor();
    page.off('request', watch);
    expect(uploads).toEqual([]);
  });

  it('sends an expired session to sign-in, in the open console and on the next load', async () => {
    await page.goto(`${baseUrl()}/settings`);
    // Loaded to the end (its requests done), so only the click below meets the ended session.
    await page.getByRole('form', { name: 'SLA policy' }).waitFor();
    await page.getByRole('row', { name: /ci-e2e/ }).waitFor();
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.session(hashSessionId(await sessionCookie(admin))),
        UpdateExpression: 'SET absoluteExpiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Products' }).click();
    await page.waitForURL(/\/sign-in\?expired=1&returnTo=%2F$/);
    await page.getByText('Your session has ended. Sign in again to continue.').waitFor();
    await screenshot(page, '13-session-expired');
    await page.goto(`${baseUrl()}/releases/${state.releaseId}`);
    await page.waitForURL(new RegExp(`/sign-in\\?returnTo=${encodeURIComponent(`/releases/${state.releaseId}`)}$`));
    expect(await page.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe(
      `/api/auth/login?returnTo=${encodeURIComponent(`/releases/${state.releaseId}`)}`,
    );
  });

  it('signs out from the header: the session ends on the server and the console asks to sign in', async () => {
    await page.goto(`${baseUrl()}/`);
    await page.waitForURL(/\/sign-in\?returnTo=%2F$/);
    await tabTo(page, page.getByRole('link', { name: 'Sign in' }));
    // The embedded provider may still hold its own sign-in from the start of this file and send us straight back.
    const back = page.waitForURL((url) => url.origin === baseUrl() && url.pathname === '/');
    const form = page
      .locator('#email')
      .waitFor()
      .then(async () => {
        const credentials = await demoLogin();
        await page.locator('#email').fill(credentials.email);
        await page.locator('#password').fill(credentials.password);
        await page.locator('#password').press('Enter');
      });
    // When the provider sends us back, the form never appears: its wait must not fail the run later.
    form.catch(() => undefined);
    await back;
    await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
    const cookie = `${SESSION_COOKIE}=${await sessionCookie(admin)}`;
    expect((await fetch(`${baseUrl()}/api/products`, { headers: { Cookie: cookie } })).status).toBe(200);

    await tabTo(page, page.getByRole('button', { name: 'Sign out' }));
    await page.waitForURL(/\/sign-in$/);
    await page.getByRole('heading', { name: 'Sign in to Vexdesk' }).waitFor();
    expect((await admin.cookies(baseUrl())).map((entry) => entry.name)).not.toContain(SESSION_COOKIE);
    // The old cookie value is dead on the server, not only forgotten by the browser.
    expect((await fetch(`${baseUrl()}/api/products`, { headers: { Cookie: cookie } })).status).toBe(401);
    await page.goto(`${baseUrl()}/settings`);
    await page.waitForURL(/\/sign-in\?returnTo=%2Fsettings$/);
  });

  it('ran every page under the CSP without a violation', () => {
    expect(cspViolations).toEqual([]);
  });
});
