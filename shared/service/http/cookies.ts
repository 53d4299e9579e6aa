/**
 * Cookies of browser sign-in (docs/sign-in.md "Sessions"). On an HTTPS origin the session cookie is
 * `__Host-vxd_session` (Secure, Path=/, no Domain: browsers refuse it otherwise). Browsers also refuse a
 * `__Host-` cookie without Secure, and a Secure cookie over plain HTTP, so on a plain-HTTP loopback
 * origin (`npm start`) it is `vxd_session` without Secure. Which one is configuration (PUBLIC_BASE_URL),
 * not a code path.
 */
import { FLOW_TTL_SECONDS, SIGN_IN_CALLBACK_PATH } from '../identity/sign-in-rules';

export interface CookiePolicy {
  sessionCookie: string;
  /** The sign-in flow's cookie: only sent to the callback, so it needs no clearing afterwards. */
  flowCookie: string;
  secure: boolean;
}

export function cookiePolicy(publicBaseUrl: string): CookiePolicy {
  const secure = new URL(publicBaseUrl).protocol === 'https:';
  return { sessionCookie: secure ? '__Host-vxd_session' : 'vxd_session', flowCookie: 'vxd_signin', secure };
}

/** The cookies of a `Cookie` header; the first of a repeated name wins (RFC 6265 §5.4 sends the most specific path first). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const equals = part.indexOf('=');
    if (equals <= 0) continue;
    const name = part.slice(0, equals).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(equals + 1).trim());
  }
  return cookies;
}

export function serializeCookie(
  name: string,
  value: string,
  options: { secure: boolean; path: string; maxAgeSeconds?: number },
): string {
  const parts = [`${name}=${value}`, `Path=${options.path}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  return parts.join('; ');
}

export function sessionCookieHeader(policy: CookiePolicy, sessionId: string, maxAgeSeconds: number): string {
  return serializeCookie(policy.sessionCookie, sessionId, { secure: policy.secure, path: '/', maxAgeSeconds });
}

export function clearSessionCookieHeader(policy: CookiePolicy): string {
  return serializeCookie(policy.sessionCookie, '', { secure: policy.secure, path: '/', maxAgeSeconds: 0 });
}

export function flowCookieHeader(policy: CookiePolicy, flowId: string): string {
  return serializeCookie(policy.flowCookie, flowId, {
    secure: policy.secure,
    path: SIGN_IN_CALLBACK_PATH,
    maxAgeSeconds: FLOW_TTL_SECONDS,
  });
}

/** Methods that change state: a cookie-authenticated request with one needs the CSRF token and the console's Origin. */
export function isUnsafeMethod(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}
