/**
 * The per-client limit on the anonymous disclosure routes, shared by the stack's web ACL
 * (lib/vexdesk-stack.ts, lib/settings.ts) and the local API Gateway emulation. A leaf module: no
 * imports, so the CDK app can read it. A team's own quota is identity/throttle-quota.ts.
 */

/**
 * Evaluation window of the per-client (per source IP) limit on the anonymous
 * disclosure routes: AWS WAF's shortest rate-based window (60, 120, 300 or 600 s).
 */
export const PUBLIC_CLIENT_WINDOW_SECONDS = 60;

/** Default requests per client IP per window on the disclosure routes (WAF's floor is 10). */
export const DEFAULT_PUBLIC_CLIENT_LIMIT = 300;

/**
 * What the per-client rule covers: the anonymous disclosure routes. The web
 * ACL matches the URI path with CONTAINS, so the rule holds with and without
 * the stage prefix (`/prod/api/disclosures…` on the execute-api URL).
 */
export const PUBLIC_CLIENT_LIMITED_PATH = '/api/disclosures';

export function isPublicClientLimitedPath(path: string): boolean {
  return path.includes(PUBLIC_CLIENT_LIMITED_PATH);
}

/**
 * The anonymous routes that start a sign-in or exchange a CI token: each request writes an item (a sign-in
 * flow, a token), so each client gets a small budget of them per PUBLIC_CLIENT_WINDOW_SECONDS, counted
 * together. Matched with CONTAINS like the disclosure paths.
 */
export const SIGN_IN_CLIENT_LIMITED_PATHS = ['/api/auth/login', '/api/auth/oidc/token'] as const;

/** Default sign-in starts and token exchanges per client per window. */
export const DEFAULT_SIGN_IN_CLIENT_LIMIT = 30;

export function isSignInClientLimitedPath(path: string): boolean {
  return SIGN_IN_CLIENT_LIMITED_PATHS.some((limited) => path.includes(limited));
}
