/**
 * The console's CRA reporting page, in Debian's chromium against the real local server: the settings page
 * records the manufacturer's CRA details and the product page puts a product on the EU market; an advisory for a
 * package its release ships arrives and CISA KEV lists its CVE (corpus changes applied in this process, as the
 * admin CLI does), and a case opens. The cases list shows it with its three countdowns; the case page shows the
 * drafts, copies them (Markdown and JSON name the CVE), saves an edited field, sets the awareness time earlier
 * (the early warning turns overdue, in red), shows the API's 422 for a submission in the future, then records
 * the early warning and shows the status and the lateness. A second release joins the case; the "Inform users"
 * panel drafts the CSAF advisory of the release chosen, links its VEX document, and once it is published (through
 * the API) shows when users were informed with the public disclosure. axe-core runs on every page.
 *
 * The steps share one browser and run in order: each builds on the one before.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { importCorpusFiles } from '../../shared/service/corpus/import';
import { applyCorpusChanges } from '../../shared/service/watch/watch';
import { demoLogin } from '../support/browser-session';
import { baseUrl, client } from '../support/http-client';
import { cycloneDxSbom } from '../support/seed';
import { kevCatalog, osvRecord, writeRecords } from '../support/corpus-records';
import { launchBrowser, recordCspViolations } from './browser';
import { bootstrapKey, eventually, expectAccessible, signInThroughProvider } from './console-support';

jest.setTimeout(90_000);

const HOUR = 60 * 60 * 1000;
const suffix = randomUUID().slice(0, 8);
const pkg = `vexdesk-e2e-cra-${suffix}`;
const cve = `CVE-2098-${String(Date.now()).slice(-7)}`;
const advisoryId = `GHSA-e2e-cra-${suffix}`;
// Markup in a name must reach the page as text.
const productName = `CRA <i>Router</i> ${suffix}`;

let browser: Browser;
let page: Page;
const cspViolations: string[] = [];
const state: { productId?: string; caseId?: string } = {};
const api = () => client(bootstrapKey());

/** Imports one corpus file in this process and re-evaluates what it touches, as `admin corpus import` does. */
async function corpusChange(name: string, content: unknown): Promise<void> {
  await importCorpusFiles([writeRecords({ [name]: content })[name]!]);
  expect(await applyCorpusChanges()).toMatchObject({ complete: true });
}

/** A time as the browser's datetime-local input takes it (the context runs in UTC). */
const localInput = (time: number) => new Date(time).toISOString().slice(0, 19);

const caseRow = () => page.getByRole('region', { name: 'Cases' }).getByRole('row', { name: new RegExp(cve) });

beforeAll(async () => {
  const product = await api().post('/api/products', {
    name: productName,
    slug: `cra-router-${suffix.replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)]!)}`,
  });
  expect(product.status).toBe(201);
  state.productId = product.body.data.id;
  const release = await api().post(`/api/products/${state.productId}/releases`, { version: '4.2.0' });
  const upload = await api().post('/api/sboms/upload', {
    releaseId: release.body.data.id,
    content: cycloneDxSbom([{ name: pkg, version: '1.0.0', purl: `pkg:npm/${pkg}@1.0.0` }]),
  });
  expect(upload.status).toBe(201);
  expect((await api().post('/api/cve-scan', { sbomId: upload.body.data.id })).status).toBeLessThan(300);
  // A fresh server records the sample corpus it loads as changes: apply those first, so that each step below
  // applies only its own change. A minute on a loaded machine.
  await applyCorpusChanges();

  browser = await launchBrowser();
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    timezoneId: 'UTC',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  page = await context.newPage();
  cspViolations.push(...recordCspViolations(page));
  await page.goto(`${baseUrl()}/`);
  await signInThroughProvider(page, await demoLogin());
}, 240_000);

afterAll(async () => {
  await browser?.close();
});

describe('the CRA reporting page', () => {
  it('records the manufacturer on the settings page and puts the product on the EU market', async () => {
    await page.goto(`${baseUrl()}/settings`);
    const form = page.getByRole('form', { name: 'CRA reporting details' });
    await form.getByLabel('Manufacturer name').fill('Acme Routers GmbH');
    await form.getByLabel('Contact').fill('psirt@acme.example');
    await form.getByLabel('Main establishment').selectOption('DE');
    await form.getByRole('group', { name: 'Made available in' }).getByLabel('FR', { exact: true }).check();
    await form.getByRole('group', { name: 'Made available in' }).getByLabel('DE', { exact: true }).check();
    await form.getByRole('button', { name: 'Save CRA details' }).click();
    await page.getByRole('region', { name: 'CRA reporting' }).getByText('CRA details saved.').waitFor();
    expect((await api().get('/api/settings')).body.data.cra).toEqual({
      manufacturerName: 'Acme Routers GmbH',
      contact: 'psirt@acme.example',
      mainEstablishment: 'DE',
      memberStates: ['DE', 'FR'],
    });
    await expectAccessible(page, '60-settings-cra');

    await page.goto(`${baseUrl()}/products/${state.productId}`);
    await page.getByRole('heading', { name: productName, level: 1 }).waitFor();
    await page.getByLabel(/^Placed on the EU market/).check();
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByText('On the EU market: CRA Article 14 applies').waitFor();
    expect((await api().get(`/api/products/${state.productId}`)).body.data.cra_in_scope).toBe(true);
  });

  it('lists the case that opens when KEV lists the CVE, with its three countdowns', async () => {
    await corpusChange('advisory.json', osvRecord(advisoryId, cve, pkg, { summary: `Command injection in ${pkg}` }));
    await corpusChange('kev.json', kevCatalog([cve], '2099-04-01'));
    const [opened] = (await api().get(`/api/cra/cases?productId=${state.productId}`)).body.data;
    expect(opened).toMatchObject({ vulnerability_id: cve, aliases: [advisoryId], status: 'open' });
    state.caseId = opened.id;

    await page.goto(`${baseUrl()}/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'CRA reporting' }).click();
    await page.getByRole('heading', { name: 'CRA reporting', level: 1 }).waitFor();
    await page.getByLabel('Product').selectOption({ label: productName });
    const row = caseRow();
    await row.waitFor();
    const cells = await row.getByRole('cell').allInnerTexts();
    expect(cells[0]).toBe(`${cve}\n${advisoryId}`);
    expect(cells[1]).toBe(productName);
    expect(cells[2]).toBe('open');
    expect(cells[3]).toBe('4.2.0');
    // Aware just now: 24 h, 72 h, and no final report clock before a fix.
    expect(cells[4]).toMatch(/^Due in 23 h \d+ min\n\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(cells[5]).toMatch(/^Due in 2 d 23 h\n/);
    expect(cells[6]).toBe('Starts when a fix is available');
    await expectAccessible(page, '61-cra-cases');
  });

  it('opens the case and reads, copies and edits the early warning draft', async () => {
    await caseRow().getByRole('link', { name: cve }).click();
    await page.waitForURL(`${baseUrl()}/cra/${state.caseId}`);
    await page.getByRole('heading', { name: `${cve} in ${productName}`, level: 1 }).waitFor();
    await page.getByRole('region', { name: 'Timeline' }).getByText('Case opened (release 4.2.0)').waitFor();

    const draft = page.getByRole('region', { name: 'Early warning draft' });
    const summary = draft.getByLabel('Summary');
    await expect(summary.inputValue()).resolves.toContain(`${cve}, ${advisoryId} in ${productName} 4.2.0`);
    await draft.getByRole('button', { name: 'Copy Markdown of the early warning' }).click();
    await draft.getByText('Markdown copied.').waitFor();
    const markdown = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(markdown).toContain(`# Early warning: ${cve} in ${productName}`);
    expect(markdown).toContain('"FR"');
    await draft.getByRole('button', { name: 'Copy JSON of the early warning' }).click();
    await draft.getByText('JSON copied.').waitFor();
    const json = JSON.parse(await page.evaluate<string>('navigator.clipboard.readText()')) as Record<string, unknown>;
    expect(json).toMatchObject({ case_id: state.caseId, stage: 'early_warning', markdown });
    await expectAccessible(page, '62-cra-case');

    await summary.fill(`${cve} in ${productName}: exploited in the wild, reviewed by the PSIRT.`);
    await draft.getByRole('button', { name: 'Save draft of the early warning' }).click();
    await draft.getByText('Draft saved.').waitFor();
    await page.getByRole('region', { name: 'Timeline' }).getByText('Early warning draft edited (version 1)').waitFor();
    const edited = `${cve} in ${productName}: exploited in the wild, reviewed by the PSIRT.`;
    await draft.getByText(/draft version 1 \(edited by /).waitFor();
    await expect(draft.getByLabel('Summary').inputValue()).resolves.toBe(edited);
    expect((await api().get(`/api/cra/cases/${state.caseId}/reports/early_warning`)).body.data.fields.summary).toBe(
      edited,
    );
  });

  it('sets the awareness time earlier: the early warning is overdue, in red', async () => {
    const awareAt = Date.now() - 30 * HOUR;
    const form = page.getByRole('form', { name: 'Set the awareness time earlier' });
    await form.getByLabel('Aware since').fill(localInput(awareAt));
    await form.getByLabel('Reason').fill('Our support desk heard of it from a customer first');
    await form.getByRole('button', { name: 'Set awareness time' }).click();
    const deadlines = page.getByRole('region', { name: 'Deadlines' });
    const earlyWarning = deadlines.getByRole('row', { name: /^Early warning/ }).locator('.deadline-text');
    await expect(eventually(async () => /^Overdue by 6 h/.test(await earlyWarning.innerText()), true)).resolves.toBe(
      true,
    );
    // Overdue in red (--danger); the test project compiles without the DOM library, this runs in the page.
    const color = await earlyWarning.evaluate(
      (element) =>
        (globalThis as unknown as { getComputedStyle: (node: unknown) => { color: string } }).getComputedStyle(element)
          .color,
    );
    expect(color).toBe('rgb(185, 28, 28)');
    await expect(
      deadlines
        .getByRole('row', { name: /^Notification/ })
        .locator('.deadline-text')
        .innerText(),
    ).resolves.toMatch(/^Due in 1 d 17 h/);
  });

  it('shows the 422 for a submission in the future, then records the early warning and moves the status on', async () => {
    const form = page.getByRole('form', { name: 'Record a submission' });
    await expect(form.getByLabel('Stage').inputValue()).resolves.toBe('early_warning');
    await form.getByLabel('Submitted at').fill(localInput(Date.now() + 2 * HOUR));
    await form.getByLabel('Platform reference').fill(`SRP-${suffix}`);
    await form.getByRole('button', { name: 'Record submission' }).click();
    await form.getByRole('alert').getByText('submitted_at is in the future').waitFor();

    await form.getByLabel('Submitted at').fill(localInput(Date.now() - 60_000));
    await form.getByLabel('Note').fill('Submitted by the PSIRT lead');
    await form.getByRole('button', { name: 'Record submission' }).click();
    await page.getByText('Early warning recorded.').waitFor();

    const overview = page.getByRole('region', { name: 'Case', exact: true });
    await overview.getByText('early warning sent').waitFor();
    const earlyWarning = page.getByRole('region', { name: 'Deadlines' }).getByRole('row', { name: /^Early warning/ });
    await expect(earlyWarning.locator('.deadline-text').innerText()).resolves.toMatch(/^Late by 5 h 5\d min$/);
    await expect(earlyWarning.innerText()).resolves.toContain(`SRP-${suffix}`);
    await page
      .getByRole('region', { name: 'Timeline' })
      .getByText(`Early warning submitted (reference SRP-${suffix})`)
      .waitFor();
    // The next stage is now the one the form offers.
    await expect(
      page.getByRole('form', { name: 'Record a submission' }).getByLabel('Stage').inputValue(),
    ).resolves.toBe('notification');
    expect((await api().get(`/api/cra/cases/${state.caseId}`)).body.data).toMatchObject({
      status: 'early_warning_sent',
      submissions: [{ stage: 'early_warning', reference: `SRP-${suffix}`, note: 'Submitted by the PSIRT lead' }],
      timeliness: { early_warning: { met: false } },
    });
    await expectAccessible(page, '63-cra-case-submitted');

    await page.goto(`${baseUrl()}/cra`);
    await caseRow().waitFor();
    const cells = await caseRow().getByRole('cell').allInnerTexts();
    expect(cells[2]).toBe('early warning sent');
    expect(cells[4]).toMatch(/^Late by 5 h 5\d min\n/);
  });

  it('drafts the CSAF advisory of a chosen release to inform users; its publication shows when users were informed', async () => {
    const first = (await api().get(`/api/cra/cases/${state.caseId}`)).body.data.affected_releases[0].release_id;
    // A second release ships the package too: its scan joins the case.
    const release = await api().post(`/api/products/${state.productId}/releases`, { version: '4.3.0' });
    const upload = await api().post('/api/sboms/upload', {
      releaseId: release.body.data.id,
      content: cycloneDxSbom([{ name: pkg, version: '1.0.0', purl: `pkg:npm/${pkg}@1.0.0` }]),
    });
    expect((await api().post('/api/cve-scan', { sbomId: upload.body.data.id })).status).toBeLessThan(300);
    const affected = async () =>
      (await api().get(`/api/cra/cases/${state.caseId}`)).body.data.affected_releases.length as number;
    await expect(eventually(affected, 2)).resolves.toBe(2);

    await page.goto(`${baseUrl()}/cra/${state.caseId}`);
    const panel = page.getByRole('region', { name: 'Inform users (Art. 14(8))' });
    await panel.getByText('Users not informed yet').waitFor();
    const form = panel.getByRole('form', { name: 'Draft the CSAF advisories' });
    await form.getByLabel('4.3.0', { exact: true }).uncheck();
    await form.getByLabel('Author').fill('Acme PSIRT');
    await form.getByRole('button', { name: 'Draft CSAF advisories' }).click();
    await panel.getByText('1 CSAF advisory drafted: publish through the VEX workflow.').waitFor();
    const [drafted] = (await api().get(`/api/cra/cases/${state.caseId}`)).body.data.users_informed.documents;
    expect(drafted).toMatchObject({ release_id: first, version: '4.2.0', published_at: null });
    const vexId = String(drafted.vex_id);
    expect((await api().get(`/api/vex/${vexId}`)).body.data).toMatchObject({ format: 'csaf', author: 'Acme PSIRT' });
    const row = panel.getByRole('row', { name: /^4\.2\.0/ });
    await row.getByText('draft', { exact: true }).waitFor();
    await expect(row.getByRole('link', { name: 'CSAF VEX document' }).getAttribute('href')).resolves.toBe(
      `/releases/${first}#vex-${vexId}`,
    );
    // Only the release without an advisory is still offered.
    await expect(form.getByRole('checkbox').count()).resolves.toBe(1);
    await expect(form.getByLabel('4.3.0', { exact: true }).isChecked()).resolves.toBe(true);
    await page
      .getByRole('region', { name: 'Timeline' })
      .getByText('CSAF advisory drafted to inform users (release 4.2.0)')
      .waitFor();

    for (const step of ['submit', 'approve', 'publish']) {
      expect((await api().post(`/api/vex/${vexId}/${step}`, {})).status).toBe(200);
    }
    const published = (await api().get(`/api/cra/cases/${state.caseId}`)).body.data;
    const slug = String(published.users_informed.documents[0].disclosure_url).split('/').pop();
    await page.reload();
    await panel
      .getByText(`Users informed at ${published.users_informed_at.replace('T', ' ').slice(0, 16)} UTC`)
      .waitFor();
    await expect(
      panel
        .getByRole('status')
        .filter({ hasText: 'Users informed' })
        .getByRole('link', { name: 'public disclosure' })
        .getAttribute('href'),
    ).resolves.toBe(`/d/${slug}`);
    await row.getByText('published', { exact: true }).waitFor();
    await page
      .getByRole('region', { name: 'Timeline' })
      .getByText(`Users informed: advisory published (disclosure ${slug})`)
      .waitFor();
    await expectAccessible(page, '64-cra-inform-users');
    expect(cspViolations).toEqual([]);
  });
});
