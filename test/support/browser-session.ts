/**
 * A browser, as far as sign-in needs one: follows redirects by hand with a cookie jar, across the
 * local server and its embedded OpenID provider, and fills in the provider's login form. (The real
 * browser test is test/e2e/console.test.ts.) Cookies are kept per origin and path prefix, and deleted by
 * `Max-Age=0`, as browsers do; attributes beyond that are not modelled.
 */
import { baseUrl } from './http-client';

interface StoredCookie {
  value: string;
  path: string;
}

export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, StoredCookie>>();

  store(url: string, setCookies: string[]): void {
    const { origin } = new URL(url);
    const cookies = this.byOrigin.get(origin) ?? new Map<string, StoredCookie>();
    this.byOrigin.set(origin, cookies);
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const equals = pair.indexOf('=');
      const name = pair.slice(0, equals);
      const path = attributes.find((attribute) => attribute.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      if (attributes.some((attribute) => attribute.toLowerCase() === 'max-age=0')) cookies.delete(name);
      else cookies.set(name, { value: pair.slice(equals + 1), path });
    }
  }

  header(url: string): string | undefined {
    const { origin, pathname } = new URL(url);
    const cookies = [...(this.byOrigin.get(origin) ?? new Map<string, StoredCookie>()).entries()].filter(([, cookie]) =>
      pathname.startsWith(cookie.path),
    );
    return cookies.length ? cookies.map(([name, cookie]) => `${name}=${cookie.value}`).join('; ') : undefined;
  }

  get(url: string, name: string): string | undefined {
    return this.byOrigin.get(new URL(url).origin)?.get(name)?.value;
  }

  set(url: string, name: string, value: string): void {
    this.store(url, [`${name}=${value}; Path=/`]);
  }
}

export interface BrowserResponse {
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

/** One request with the jar's cookies; the answer's cookies go into the jar. */
export async function browserFetch(
  jar: CookieJar,
  url: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<BrowserResponse> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  const cookie = jar.header(url);
  if (cookie) headers.Cookie = cookie;
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body, redirect: 'manual' });
  jar.store(url, response.headers.getSetCookie());
  return { url, status: response.status, headers: response.headers, text: await response.text() };
}

/** Follows redirects (GET) until an answer that is not one, or one `until` accepts; returns every hop. */
export async function follow(
  jar: CookieJar,
  url: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
  until: (hop: BrowserResponse) => boolean = () => false,
): Promise<BrowserResponse[]> {
  const hops = [await browserFetch(jar, url, init)];
  for (let hop = hops[0]!; hop.status >= 300 && hop.status < 400 && hop.headers.get('location') && !until(hop);) {
    if (hops.length > 20) throw new Error('too many redirects');
    hop = await browserFetch(jar, new URL(hop.headers.get('location')!, hop.url).href);
    hops.push(hop);
  }
  return hops;
}

export const SESSION_COOKIE = 'vxd_session';

/** The demo account of bootstrap.json (written by `npm start` in the test server's data directory). */
export async function demoLogin(): Promise<{ email: string; password: string; teamId: string; memberId: string }> {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const record = JSON.parse(
    await readFile(join(process.env.VEXDESK_TEST_DATA_DIR ?? '', 'bootstrap.json'), 'utf8'),
  ) as { teamId: string; memberId: string; login: { email: string; password: string } };
  return { ...record.login, teamId: record.teamId, memberId: record.memberId };
}

/** Adds an identity to the embedded provider (its `$DATA_DIR/dev-accounts.json`, read at each sign-in). */
export async function devAccount(label: string): Promise<{ email: string; name: string; password: string }> {
  const { readFile, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { randomUUID } = await import('node:crypto');
  const file = join(process.env.VEXDESK_TEST_DATA_DIR ?? '', 'dev-accounts.json');
  const existing = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as unknown[],
    () => [],
  );
  const account = {
    email: `${label}-${randomUUID().slice(0, 8)}@example.test`,
    name: `${label} <b>&</b>`,
    password: randomUUID(),
  };
  await writeFile(file, JSON.stringify([...existing, account]));
  return account;
}

/**
 * Signs in through the embedded provider like a browser: the server's login route, the provider's
 * form, back to the callback. Returns the hops (the last is the callback's answer, or the form again
 * when the password is wrong) and the jar.
 */
export async function browserSignIn(
  credentials: { email: string; password: string },
  options: { jar?: CookieJar; returnTo?: string; startQuery?: string; stopBeforeCallback?: boolean } = {},
) {
  const jar = options.jar ?? new CookieJar();
  // startQuery: the login route's query string as sent on the wire (for payloads that must not be encoded again).
  const query =
    options.startQuery ?? (options.returnTo ? `returnTo=${encodeURIComponent(options.returnTo)}` : undefined);
  const start = `${baseUrl()}/api/auth/login${query ? `?${query}` : ''}`;
  const toForm = await follow(jar, start);
  const form = toForm[toForm.length - 1]!;
  if (form.status !== 200 || !form.text.includes('<form'))
    throw new Error(`expected the provider's login form, got ${form.status} ${form.text.slice(0, 200)}`);
  const action = /action="([^"]+)"/.exec(form.text)?.[1];
  if (!action) throw new Error('login form without action');
  // Stops at the callback's answer: where it sends the browser next is the console's business.
  const hops = await follow(
    jar,
    new URL(action, form.url).href,
    {
      method: 'POST',
      body: new URLSearchParams(credentials).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    },
    (hop) =>
      hop.url.startsWith(`${baseUrl()}/api/auth/callback`) ||
      (options.stopBeforeCallback === true &&
        (hop.headers.get('location') ?? '').startsWith(`${baseUrl()}/api/auth/callback`)),
  );
  const last = hops[hops.length - 1]!;
  return { jar, hops, last, session: jar.get(baseUrl(), SESSION_COOKIE) };
}
