/** Rules of browser sessions (docs/sign-in.md): the scope table, cookies, CSRF tokens, timeouts, return paths. */
import { describe, expect, it } from '@jest/globals';
import { cookiePolicy, isUnsafeMethod, parseCookies, sessionCookieHeader } from '../../shared/service/http/cookies';
import { SCOPES } from '../../shared/service/identity/scopes';
import { MEMBER_BASE_SCOPES, scopesOfPermissions } from '../../shared/service/identity/member-scopes';
import { csrfTokenMatches, csrfTokenOf, sessionExpiry } from '../../shared/service/identity/sessions';
import { safeReturnPath } from '../../shared/service/identity/return-path';
import { originMatches } from '../../shared/service/identity/sign-in-rules';
import { escapeHtml, signInRefusalPage } from '../../shared/service/identity/sign-in-pages';

describe('session scopes from member permissions', () => {
  it('gives every member the read scopes and nothing that writes', () => {
    expect(scopesOfPermissions([])).toEqual([...MEMBER_BASE_SCOPES].sort());
    expect(scopesOfPermissions([]).some((scope) => scope.endsWith(':write') || scope === 'cve:trigger')).toBe(false);
  });

  it('adds the day-to-day writes for content.write and settings:write only for settings.manage', () => {
    expect(scopesOfPermissions(['content.write'])).toEqual(
      expect.arrayContaining(['products:write', 'sboms:write', 'cve:trigger', 'dispositions:write', 'vex:write']),
    );
    expect(scopesOfPermissions(['content.write'])).not.toContain('settings:write');
    expect(scopesOfPermissions(['settings.manage'])).toContain('settings:write');
    expect(scopesOfPermissions(['settings.manage'])).not.toContain('products:write');
  });

  it('gives a member holding both permissions every scope', () => {
    expect(scopesOfPermissions(['settings.manage', 'content.write'])).toEqual([...SCOPES].sort());
  });
});

describe('session cookies', () => {
  it('uses the __Host- name with Secure on HTTPS and a plain name without Secure on plain-HTTP loopback', () => {
    const https = cookiePolicy('https://vex.example.com');
    expect(sessionCookieHeader(https, 'id', 60)).toBe(
      '__Host-vxd_session=id; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=60',
    );
    const loopback = cookiePolicy('http://127.0.0.1:3000');
    expect(sessionCookieHeader(loopback, 'id', 60)).toBe('vxd_session=id; Path=/; HttpOnly; SameSite=Lax; Max-Age=60');
  });

  it('reads cookies from a Cookie header, the first of a repeated name winning', () => {
    const cookies = parseCookies('a=1; vxd_session=abc; vxd_session=evil; broken; =x');
    expect(cookies.get('vxd_session')).toBe('abc');
    expect(cookies.get('a')).toBe('1');
    expect(parseCookies(undefined).size).toBe(0);
  });

  it('treats everything but GET, HEAD and OPTIONS as changing state, and compares the Origin exactly', () => {
    expect(['POST', 'PUT', 'DELETE', 'PATCH'].every(isUnsafeMethod)).toBe(true);
    expect(['GET', 'HEAD', 'OPTIONS'].some(isUnsafeMethod)).toBe(false);
    expect(originMatches('https://vex.example.com', 'https://vex.example.com/prod')).toBe(true);
    expect(originMatches('https://vex.example.com.evil.test', 'https://vex.example.com')).toBe(false);
    expect(originMatches('null', 'https://vex.example.com')).toBe(false);
    expect(originMatches(undefined, 'https://vex.example.com')).toBe(false);
  });
});

describe('CSRF tokens', () => {
  it('binds the token to the session id without revealing it', () => {
    const id = 'a'.repeat(43);
    expect(csrfTokenOf(id)).not.toContain(id);
    expect(csrfTokenMatches(id, csrfTokenOf(id))).toBe(true);
    expect(csrfTokenMatches('b'.repeat(43), csrfTokenOf(id))).toBe(false);
    expect(csrfTokenMatches(id, undefined)).toBe(false);
    expect(csrfTokenMatches(id, '')).toBe(false);
  });
});

describe('session timeouts', () => {
  const now = new Date('2026-06-01T12:00:00Z');
  const defaults = { idleMinutes: 8 * 60, absoluteMinutes: 7 * 24 * 60 };
  const session = (lastSeenAgoSeconds: number, absoluteInSeconds: number, createdAgoSeconds = 3600) => ({
    createdAt: new Date(now.getTime() - createdAgoSeconds * 1000).toISOString(),
    lastSeenAt: new Date(now.getTime() - lastSeenAgoSeconds * 1000).toISOString(),
    absoluteExpiresAt: new Date(now.getTime() + absoluteInSeconds * 1000).toISOString(),
  });

  it('keeps a session active within both timeouts', () => {
    expect(sessionExpiry(session(8 * 3600 - 1, 1), defaults, now)).toBeUndefined();
  });

  it('ends a session idle for the idle timeout, or past its absolute expiry, whichever comes first', () => {
    expect(sessionExpiry(session(8 * 3600, 3600), defaults, now)).toBe('idle');
    expect(sessionExpiry(session(10, 0), defaults, now)).toBe('absolute');
  });

  it("applies the team's current, shorter timeouts to a running session", () => {
    expect(sessionExpiry(session(31 * 60, 86_400), { ...defaults, idleMinutes: 30 }, now)).toBe('idle');
    expect(sessionExpiry(session(29 * 60, 86_400), { ...defaults, idleMinutes: 30 }, now)).toBeUndefined();
    // Signed in two hours ago with a 7-day expiry; the team now allows one hour.
    expect(sessionExpiry(session(10, 86_400, 2 * 3600), { ...defaults, absoluteMinutes: 60 }, now)).toBe('absolute');
  });

  it("keeps a session's own expiry when the team lengthens the absolute timeout (its TTL was set at sign-in)", () => {
    expect(sessionExpiry(session(10, 0, 3600), { ...defaults, absoluteMinutes: 30 * 24 * 60 }, now)).toBe('absolute');
  });
});

describe('sign-in return paths and pages', () => {
  it.each([
    ['/releases/1?tab=vex', '/releases/1?tab=vex'],
    ['//evil.example', '/'],
    ['https://evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['relative', '/'],
    [undefined, '/'],
  ])('returns to %s as %s', (candidate, expected) => {
    expect(safeReturnPath(candidate, '/')).toBe(expected);
  });

  it('escapes what the refusal page shows', () => {
    expect(escapeHtml('<script>"\'&')).toBe('&lt;script&gt;&quot;&#39;&amp;');
    const page = signInRefusalPage({
      kind: 'refused',
      reason: 'not_invited',
      email: '"><script>alert(1)</script>@x.test',
    });
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;');
  });
});
