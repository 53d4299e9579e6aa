/**
 * What the console's e2e tests share (test/e2e/console*.test.ts): an accessibility check with a screenshot,
 * sign-in at the embedded provider's form, reads through the API with the bootstrap key, the session cookie.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import type { BrowserContext, Page } from 'playwright-core';
import { SESSION_COOKIE } from '../support/browser-session';
import { baseUrl } from '../support/http-client';
import { screenshot, seriousViolations, tabTo } from './browser';
/** Expects no serious axe-core violation on the page (and photographs it when asked: ./browser.ts `screenshot`). */
export async function expectAccessible(target: Page, name: string): Promise<void> {
  await screenshot(target, name);
  expect({ page: name, violations: await seriousViolations(target) }).toEqual({ page: name, violations: [] });
}

/** Signs in at the embedded provider's real form, from the console's sign-in page. */
export async function signInThroughProvider(
  target: Page,
  credentials: { email: string; password: string },
): Promise<void> {
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
export async function eventually<T>(read: () => Promise<T>, expected: T): Promise<T> {
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

/** The API key the server made for the demo team on its first start. */
export function bootstrapKey(): string {
  const file = join(process.env.VEXDESK_TEST_DATA_DIR ?? '', 'bootstrap.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { apiKey: string }).apiKey;
}

/** A GET with an API key: the status, and the body (JSON when it is JSON). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads JSON
export async function apiGet(path: string, key: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl()}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return {
    status: response.status,
    body: response.headers.get('content-type')?.includes('json') ? await response.json() : await response.text(),
  };
}

/** A GET that must answer 200, with the answer in the failure message otherwise. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads JSON
export async function apiData(path: string): Promise<any> {
  const { status, body } = await apiGet(path, bootstrapKey());
  expect({ path, status, body: status === 200 ? 'ok' : body }).toEqual({ path, status: 200, body: 'ok' });
  return body;
}

/** The value of the console's session cookie in a browser context. */
export async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies(baseUrl())).find((entry) => entry.name === SESSION_COOKIE);
  if (!cookie) throw new Error('no session cookie');
  return cookie.value;
}
