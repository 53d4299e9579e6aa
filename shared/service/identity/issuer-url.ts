/**
 * Which URLs may be OIDC issuers or key-set locations (docs/oidc.md): HTTPS
 * only, on a public address; loopback hosts (also over HTTP) only when
 * configured for tests (VEXDESK_ALLOW_LOOPBACK_ISSUERS=1). An IP literal is
 * checked here; a name is checked when it is resolved for the fetch
 * (shared/service/net/public-address.ts). Kept apart from the key fetching so
 * the settings function validates policies without bundling jose.
 */
import { ipLiteralHost, nonPublicRange } from '../net/public-address';

/** RFC 6761: `localhost` and every name under it are loopback. */
function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

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
  const literal = ipLiteralHost(parsed);
  const range = literal === undefined ? undefined : nonPublicRange(literal, { allowLoopback: false });
  if (range === 'loopback' || isLoopbackName(parsed.hostname))
    return allowLoopback
      ? undefined
      : 'loopback issuers are accepted only when the server runs with VEXDESK_ALLOW_LOOPBACK_ISSUERS=1 (tests)';
  if (range !== undefined) return `must be on a public address, not ${literal} (${range})`;
  if (parsed.protocol !== 'https:') return 'must use https';
  return undefined;
}
