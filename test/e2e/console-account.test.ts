/**
 * The web console's API keys and session, in Debian's chromium against the real local server: a key created
 * in the UI works until revoked there; a cookie POST without the CSRF token is refused; an expired session
 * lands on the sign-in page; Sign out ends the session on the server. Signed in as the demo admin through the
 * embedded provider's form, with a product and a release of its own made through the API.
 *
 * The steps share one browser and run in order: the expiry needs the key's row, sign-out comes last.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dynamo, tableName } from '../../shared/service/aws-clients';
import { keys } from '../../shared/service/data/keys';
import { hashSessionId } from '../../shared/service/identity/sessions';
import { demoLogin, SESSION_COOKIE } from '../support/browser-session';
import { baseUrl } from '../support/http-client';
import { launchBrowser, recordCspViolations, screenshot, tabTo } from './browser';
import {
  apiData,
  apiGet,
  bootstrapKey,
  expectAccessible,
  sessionCookie,
  signInThroughProvider,
} from './console-support';

jest.setTimeout(90_000);

let browser: Browser;
let admin: BrowserContext;
let page: Page;
const cspViolations: string[] = [];
const state: { productId?: string; releaseId?: string } = {};

/** A POST with the bootstrap key that must answer 201; the created entity's id. */
async function created(path: string, body: unknown): Promise<string> {
  const response = await fetch(`${baseUrl()}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${bootstrapKey()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { data: { id: string } };
  expect({ path, status: response.status }).toEqual({ path, status: 201 });
  return answer.data.id;
}

beforeAll(async () => {
  browser = await launchBrowser();
  admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await admin.newPage();
  cspViolations.push(...recordCspViolations(page));
  page.on('dialog', (dialog) => void dialog.accept());
  state.productId = await created('/api/products', { name: 'Account Console', slug: 'account-console' });
  state.releaseId = await created(`/api/products/${state.productId}/releases`, { version: '1.0.0' });
  await page.goto(`${baseUrl()}/`);
  await signInThroughProvider(page, await demoLogin());
});

afterAll(async () => {
  await browser?.close();
});

describe('the web console: API keys, CSRF and the end of a session', () => {
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
    await page.waitForURL(/\/sign-in\?expired=1&returnTo=%2Fproducts$/);
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
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
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
