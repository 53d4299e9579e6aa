/**
 * Open redirect and header injection after sign-in (docs/security.md): whatever `returnTo` the login route
 * is given, the callback's 303 sends the browser to a path of this origin, as a browser's URL parser reads
 * the Location, and its headers stay well-formed. Every payload goes through a real sign-in with the
 * embedded OpenID provider; the redirecting routes are the login route (to the provider, a URL the server
 * builds) and the callback (to `returnTo`).
 */
import { describe, expect, it } from '@jest/globals';
import { safeReturnPath } from '../../shared/service/identity/return-path';
import { browserSignIn, CookieJar, demoLogin, follow, SESSION_COOKIE } from '../support/browser-session';
import { baseUrl } from '../support/http-client';

/** Decoded `returnTo` values (sent percent-encoded): the known open-redirect and header-injection shapes. */
const DECODED_PAYLOADS = [
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r/evil.example',
  '/\r\n/evil.example',
  '\t//evil.example',
  '/\t\t/evil.example/path',
  '//evil.example',
  '//evil.example/%2F..',
  '///evil.example',
  '////evil.example',
  '/\\evil.example',
  '/\\/evil.example',
  '\\\\evil.example',
  '\\/evil.example',
  '/.//evil.example',
  '/./\\evil.example',
  'https://evil.example/',
  'HTTPS://evil.example/',
  'https:evil.example',
  'http:/evil.example',
  '//evil.example@127.0.0.1/',
  'javascript:alert(document.domain)',
  'data:text/html,<script>alert(1)</script>',
  ' //evil.example',
  '/\u0000/evil.example',
  '/\u000b/evil.example',
  '/\u007f/evil.example',
  '/\u0085/evil.example',
  '/\u2028/evil.example',
  '/\u3000/evil.example',
  '/\uff0f\uff0fevil.example',
  '/\r\nSet-Cookie: vxd_session=attacker; Path=/',
  '/\r\nLocation: https://evil.example/',
  '/\nX-Injected: 1',
];

/** Query strings as sent on the wire: encodings a decoder or a second decoding pass might turn into a redirect. */
const RAW_QUERIES = [
  'returnTo=/%09/evil.example',
  'returnTo=%2F%09%2Fevil.example',
  'returnTo=/%0d%0a/evil.example',
  'returnTo=/%0D%0ASet-Cookie:%20vxd_session=attacker',
  'returnTo=%2F%2Fevil.example',
  'returnTo=/%2F/evil.example',
  'returnTo=%2F%2F%2Fevil.example',
  'returnTo=/%5Cevil.example',
  'returnTo=%5C%5Cevil.example',
  'returnTo=/%5C/evil.example',
  'returnTo=https:%2F%2Fevil.example',
  'returnTo=https%3A%2F%2Fevil.example',
  'returnTo=/%00/evil.example',
  'returnTo=/%E2%80%A8/evil.example',
  'returnTo=/%EF%BC%8F%EF%BC%8Fevil.example',
  'returnTo=/%252F%252Fevil.example',
  'returnTo=/%25%30%39/evil.example',
  'returnTo=/products&returnTo=//evil.example',
  'returnTo=//evil.example&returnTo=/products',
  'returnTo=/+/evil.example',
];

const ORIGIN = () => new URL(baseUrl()).origin;

/** Where a browser goes with this Location: the WHATWG parser strips TAB, CR and LF and reads `\` as `/`. */
function browserTarget(location: string): URL {
  return new URL(location, `${baseUrl()}/api/auth/callback`);
}

function expectSameOriginLanding(location: string | null): void {
  expect(location).not.toBeNull();
  // Printable ASCII only: a header value with a control or non-Latin-1 character is refused or misread.
  expect(location).toMatch(/^\/[\x21-\x7e]*$/);
  expect(location).not.toMatch(/^\/\//);
  expect(location).not.toContain('\\');
  const target = browserTarget(location!);
  expect(target.origin).toBe(ORIGIN());
  expect(target.pathname.startsWith('//')).toBe(false);
}

/** The provider's login form, reached from the login route: its URL names the configured provider. */
async function demoLoginForm() {
  const hops = await follow(new CookieJar(), `${baseUrl()}/api/auth/login`);
  return hops[hops.length - 1]!;
}

async function landingAfterSignIn(options: { returnTo?: string; startQuery?: string }) {
  const { last, session } = await browserSignIn(await demoLogin(), options);
  // A header injection makes the answer unreadable (or a 500): the sign-in must still complete normally.
  expect(last.status).toBe(303);
  expect(session).toMatch(/^[\w-]{43}$/);
  expect(last.headers.getSetCookie().filter((line) => line.startsWith(`${SESSION_COOKIE}=`))).toHaveLength(1);
  expect([...last.headers.keys()]).not.toContain('x-injected');
  return last.headers.get('location');
}

describe('the return path after sign-in', () => {
  it('keeps a same-origin path with its query and fragment', async () => {
    expect(await landingAfterSignIn({ returnTo: '/products/abc?tab=releases&page=2#top' })).toBe(
      '/products/abc?tab=releases&page=2#top',
    );
    expect(await landingAfterSignIn({ startQuery: 'returnTo=%2Fproducts%3Fq%3Da%2520b' })).toBe('/products?q=a%20b');
  });

  it.each(DECODED_PAYLOADS)('lands on this origin for returnTo %j', async (payload) => {
    expectSameOriginLanding(await landingAfterSignIn({ returnTo: payload }));
  });

  it.each(RAW_QUERIES)('lands on this origin for the query %s', async (query) => {
    expectSameOriginLanding(await landingAfterSignIn({ startQuery: query }));
  });

  it('sends the login route only to the configured provider, whatever returnTo says', async () => {
    const provider = new URL((await demoLoginForm()).url).origin;
    for (const query of [
      'returnTo=https://evil.example/',
      'returnTo=//evil.example',
      'redirect_uri=https://evil.example/',
    ]) {
      const start = await fetch(`${baseUrl()}/api/auth/login?${query}`, { redirect: 'manual' });
      if (start.status !== 302) {
        expect(start.status).toBe(422);
        continue;
      }
      const toProvider = new URL(start.headers.get('location')!);
      expect(toProvider.origin).toBe(provider);
      expect(toProvider.searchParams.get('redirect_uri')).toBe(`${baseUrl()}/api/auth/callback`);
    }
  });
});

describe('safeReturnPath, the one check the server and the console share', () => {
  it.each([...DECODED_PAYLOADS, ...RAW_QUERIES.map((query) => decodeURIComponent(query.slice('returnTo='.length)))])(
    'keeps nothing that leaves this origin from %j',
    (payload) => {
      const kept = safeReturnPath(payload, '/');
      if (kept !== '/') {
        expectSameOriginLanding(kept);
      }
    },
  );

  it('keeps paths of this origin as given', () => {
    for (const path of ['/', '/products', '/products/a-b?x=1&y=%2F#frag', '/audit?from=2025-01-01T00:00:00Z'])
      expect(safeReturnPath(path, '/fallback')).toBe(path);
    expect(safeReturnPath(undefined, '/fallback')).toBe('/fallback');
    expect(safeReturnPath('', '/fallback')).toBe('/fallback');
  });
});
