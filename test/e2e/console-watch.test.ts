/**
 * The console and the corpus watch, in Debian's chromium against the real local server: a release is
 * uploaded and scanned, then an advisory for one of its packages is imported and CISA KEV-lists it (in this
 * process, with importCorpusFiles + applyCorpusChanges against the server's engines, as the admin CLI would).
 * The dashboard shows the known-exploited finding and its events; the search box finds it by CVE and by purl;
 * the release page marks it new since upload; withdrawing the advisory leaves it resolved, shown under the
 * state filter. An end-of-life release says it is not watched. axe-core runs on every page.
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
import { launchBrowser, recordCspViolations, tabTo } from './browser';
import { bootstrapKey, expectAccessible, signInThroughProvider } from './console-support';

jest.setTimeout(90_000);

const suffix = randomUUID().slice(0, 8);
const pkg = `vexdesk-e2e-watch-${suffix}`;
const purl = `pkg:npm/${pkg}@1.2.0`;
const cve = `CVE-2097-${String(Date.now()).slice(-7)}`;
const advisoryId = `GHSA-e2e-${suffix}`;
// Markup in a name must reach the page as text.
const productName = `Watched <b>Gateway</b> & Co ${suffix}`;

let browser: Browser;
let page: Page;
const cspViolations: string[] = [];
const state: { releaseId?: string; retiredId?: string; productId?: string } = {};

/** Imports one corpus file in this process and re-evaluates what it touches, as `admin corpus import` does. */
async function corpusChange(name: string, content: unknown): Promise<void> {
  await importCorpusFiles([writeRecords({ [name]: content })[name]!]);
  expect(await applyCorpusChanges()).toMatchObject({ complete: true });
}

async function search(text: string, ecosystem = '—'): Promise<void> {
  const form = page.getByRole('search', { name: 'Advisory or package' });
  await form.getByLabel('Advisory id or package').fill(text);
  await form.getByLabel('Ecosystem (for a name)').selectOption({ label: ecosystem });
  await tabTo(page, form.getByRole('button', { name: 'Search' }));
  await page.waitForURL((url) => url.pathname === '/search' && url.searchParams.get('q') === text);
}

beforeAll(async () => {
  const api = client(bootstrapKey());
  const product = await api.post('/api/products', {
    name: productName,
    slug: `watched-gateway-${suffix.replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)]!)}`,
  });
  expect(product.status).toBe(201);
  state.productId = product.body.data.id;
  const release = await api.post(`/api/products/${state.productId}/releases`, { version: '3.1.0' });
  const retired = await api.post(`/api/products/${state.productId}/releases`, {
    version: '2.0.0',
    status: 'end-of-life',
  });
  state.releaseId = release.body.data.id;
  state.retiredId = retired.body.data.id;
  const upload = await api.post('/api/sboms/upload', {
    releaseId: state.releaseId,
    content: cycloneDxSbom([
      { name: pkg, version: '1.2.0', purl },
      { name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' },
    ]),
  });
  expect(upload.status).toBe(201);
  expect((await api.post('/api/cve-scan', { sbomId: upload.body.data.id })).status).toBeLessThan(300);
  // A fresh server records the sample corpus it loads as changes: apply those first (the server's own watch
  // may be at it too), so that each step below applies only its own change. A minute on a loaded machine.
  await applyCorpusChanges();

  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  cspViolations.push(...recordCspViolations(page));
  await page.goto(`${baseUrl()}/`);
  await signInThroughProvider(page, await demoLogin());
}, 240_000);

afterAll(async () => {
  await browser?.close();
});

describe('the web console and the corpus watch', () => {
  it('shows on the dashboard a known-exploited finding that arrived through a corpus change', async () => {
    await corpusChange('advisory.json', osvRecord(advisoryId, cve, pkg, { summary: `Request smuggling in ${pkg}` }));
    await corpusChange('kev.json', kevCatalog([cve], '2099-03-01'));

    await page.goto(`${baseUrl()}/`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const kev = page.getByRole('region', { name: 'Known exploited (CISA KEV)' });
    await kev.getByRole('link', { name: productName }).waitFor();
    await expect(kev.getByRole('listitem').filter({ hasText: productName }).innerText()).resolves.toBe(
      `${productName}: 1 KEV`,
    );
    // KEV comes before every other section of the page.
    const headings = await page.getByRole('heading', { level: 2 }).allInnerTexts();
    expect(headings[0]).toBe('Known exploited (CISA KEV)');
    await page
      .getByRole('region', { name: 'Products most at risk' })
      .getByRole('row', { name: new RegExp(`^${productName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) })
      .waitFor();
    await page.getByRole('img', { name: /^Open findings, last 30 days/ }).waitFor();

    const events = page.getByRole('region', { name: 'Latest events' });
    const kevEvent = events.getByRole('link', { name: `${cve} in ${pkg} 1.2.0 is listed in CISA KEV` });
    await kevEvent.waitFor();
    expect(await kevEvent.getAttribute('href')).toBe(`/releases/${state.releaseId}?q=${cve}`);
    await events.getByRole('link', { name: `${cve} in ${pkg} 1.2.0, high` }).waitFor();
    await expect(
      events
        .getByRole('listitem')
        .filter({ hasText: `${cve} in ${pkg} 1.2.0 is listed` })
        .innerText(),
    ).resolves.toContain(`${productName} 3.1.0`);
    await page.getByRole('region', { name: 'Vulnerability data' }).getByText('Corpus version').waitFor();
    await expectAccessible(page, '30-dashboard-kev');

    // The event leads to the release page, its findings narrowed to the advisory.
    await tabTo(page, kevEvent);
    await page.waitForURL(`${baseUrl()}/releases/${state.releaseId}?q=${cve}`);
    await page.getByRole('heading', { name: `${productName} 3.1.0`, level: 1 }).waitFor();
    await expect(page.getByRole('region', { name: 'Findings' }).getByLabel('Search').inputValue()).resolves.toBe(cve);
  });

  it('finds it with the search box by CVE and by purl, and says what to type for a bare name', async () => {
    await page.goto(`${baseUrl()}/`);
    await search(cve.toLowerCase());
    const findings = page.getByRole('region', { name: `Findings of ${cve}` });
    const row = findings.getByRole('row', { name: new RegExp(`3\\.1\\.0 ${cve}`) });
    await row.waitFor();
    await expect(row.innerText()).resolves.toMatch(new RegExp(`${pkg}\\s+1\\.2\\.0\\s+HIGH\\s+KEV\\s+none\\s+open`));
    expect(await row.getByRole('link').getAttribute('href')).toBe(`/releases/${state.releaseId}?q=${cve}`);
    await findings.getByText(`Searched under every alias: `).waitFor();
    await expectAccessible(page, '31-search-advisory');

    await search(purl);
    const usage = page.getByRole('region', { name: `Releases shipping ${purl}` });
    const shipped = usage.getByRole('link', { name: `${productName} 3.1.0` });
    await shipped.waitFor();
    expect(await shipped.getAttribute('href')).toBe(`/releases/${state.releaseId}`);
    await expectAccessible(page, '32-search-purl');

    await search(pkg);
    await page
      .getByRole('alert')
      .getByText(/^Type an advisory id \(CVE-…/)
      .waitFor();
    await search(pkg, 'npm');
    await page
      .getByRole('region', { name: `Releases shipping npm ${pkg}` })
      .getByRole('link', {
        name: `${productName} 3.1.0`,
      })
      .waitFor();
  });

  it('marks the finding new since upload on the release page, and an end-of-life release as not watched', async () => {
    await page.goto(`${baseUrl()}/releases/${state.releaseId}`);
    const added = page.getByRole('region', { name: 'New since upload' });
    const row = added.getByRole('row', { name: new RegExp(`^${cve}`) });
    await row.waitFor();
    await expect(row.innerText()).resolves.toMatch(new RegExp(`${pkg}\\s+1\\.2\\.0\\s+HIGH\\s+KEV since \\d{4}-`));
    const arrived = await row.locator('time').getAttribute('datetime');
    const [finding] = (await client(bootstrapKey()).get(`/api/releases/${state.releaseId}/vulnerabilities`)).body
      .data as Array<{ first_detected_at: string; detected_by: string }>;
    expect(finding).toMatchObject({ detected_by: 'corpus_update', first_detected_at: arrived });
    await page
      .getByRole('region', { name: 'Findings' })
      .getByRole('row', { name: new RegExp(cve) })
      .getByText('New since upload')
      .waitFor();
    await page.getByText('Re-evaluated when the vulnerability data changes').waitFor();
    await expectAccessible(page, '33-release-new-since-upload');

    await page.goto(`${baseUrl()}/releases/${state.retiredId}`);
    await page.getByText('Not watched: end-of-life releases are not re-evaluated').waitFor();
  });

  it('shows a withdrawn advisory as resolved under the state filter', async () => {
    await corpusChange(
      'advisory.json',
      osvRecord(advisoryId, cve, pkg, {
        summary: `Request smuggling in ${pkg}`,
        extra: { withdrawn: new Date().toISOString() },
      }),
    );
    await page.goto(`${baseUrl()}/releases/${state.releaseId}`);
    const findings = page.getByRole('region', { name: 'Findings' });
    await findings.getByText('No finding matches.').waitFor();
    await findings.getByLabel('State').selectOption('resolved');
    const row = findings.getByRole('row', { name: new RegExp(cve) });
    await row.waitFor();
    await expect(row.innerText()).resolves.toMatch(/Resolved \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: advisory withdrawn/);
    await expectAccessible(page, '34-release-resolved');
    expect(cspViolations).toEqual([]);
  });
});
