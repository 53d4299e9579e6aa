/**
 * The web console end to end, in Debian's chromium against the real local server: sign in through the
 * embedded OpenID provider's form, create a product and a release, drop a fixture SBOM, triage in bulk,
 * generate a VEX document, submit it, approve it as a second member, publish it, and check the public page's
 * hash against the raw download; then the settings, the compliance report and the audit export, and larger
 * uploads. axe-core runs on every page, key actions are done from the keyboard (Tab until focused, then
 * Enter or Space), and every page is photographed. API keys, CSRF and the session's end are in
 * console-account.test.ts.
 *
 * The steps share one browser and run in order: each builds on the one before.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';

import { createHash } from 'node:crypto';

import { readFileSync } from 'node:fs';

import { join } from 'node:path';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { MAX_SBOM_BYTES } from '../../shared/service/sboms/sbom-limits';

import { demoLogin, devAccount } from '../support/browser-session';

import { baseUrl } from '../support/http-client';

import { launchBrowser, recordCspViolations, tabTo } from './browser';

import { apiData, apiGet, bootstrapKey, eventually, expectAccessible, signInThroughProvider } from './console-support';

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
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByRole('region', { name: 'Vulnerability data' }).getByText('Corpus version').waitFor();
    await expectAccessible(page, '02-dashboard');
    await tabTo(page, page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Products' }));
    await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
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
    // They own no keys: the default (revoke) leaves nothing behind.
    await tabTo(
      page,
      page.getByRole('form', { name: `Remove ${email}` }).getByRole('button', { name: 'Remove member' }),
    );
    await page.getByText(`${email} removed.`, { exact: false }).waitFor();
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

  it('ran every page under the CSP without a violation', () => {
    expect(cspViolations).toEqual([]);
  });
});
