/**
 * Which URLs may be OIDC issuers or key-set locations (docs/oidc.md): HTTPS
 * only; loopback hosts (also over HTTP) only when configured for tests
 * (VEXDESK_ALLOW_LOOPBACK_ISSUERS=1). Kept apart from the key fetching so the
 * settings function validates policies without bundling jose.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Why `url` may not be an issuer or key-set location, or undefined when it may. */
export function issuerUrlProblem(url: string, allowLoopback: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.username || parsed.password || parsed.search || parsed.hash)
    return 'must not carry credentials, a query or a fragment';
  const loopback = LOOPBACK_HOSTS.has(parsed.hostname);
  if (loopback)
    return allowLoopback
      ? undefined
      : 'loopback issuers are accepted only when the server runs with VEXDESK_ALLOW_LOOPBACK_ISSUERS=1 (tests)';
  if (parsed.protocol !== 'https:') return 'must use https';
  return undefined;
}
