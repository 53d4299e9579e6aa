/**
 * Where an OIDC issuer's signing keys come from: its discovery document
 * (`<issuer>/.well-known/openid-configuration`, OpenID Connect Discovery 1.0
 * §4) names the JWKS, which jose's remote key set fetches, caches per Lambda
 * instance and refetches when a token names a `kid` it does not hold (at most
 * once per cooldown, so unknown kids cannot make us hammer the issuer).
 * Issuers must be HTTPS; plain-HTTP loopback issuers only when configured for
 * tests (VEXDESK_ALLOW_LOOPBACK_ISSUERS=1). Both documents are fetched from
 * public addresses only: the names are resolved and checked for each connection.
 */
import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey } from 'jose';
import * as z from 'zod';
import { fetchFromPublicAddress } from '../net/public-address';
import { issuerUrlProblem } from './issuer-url';

const FETCH_TIMEOUT_MS = 5_000;
/** How long a discovered JWKS location is trusted before the discovery document is read again. */
const DISCOVERY_MAX_AGE_MS = 60 * 60 * 1000;
/** The issuer could not be reached or answered something unusable: not the token's fault. */
export class IssuerUnavailableError extends Error {
  constructor(issuer: string, reason: string, options?: { cause: unknown }) {
    super(`OIDC issuer ${issuer} unavailable: ${reason}`, options);
    this.name = 'IssuerUnavailableError';
  }
}

const discoverySchema = z.object({ issuer: z.string(), jwks_uri: z.string() });

interface CachedIssuer {
  keys: JWTVerifyGetKey;
  discoveredAt: number;
}

const cache = new Map<string, CachedIssuer>();

async function discover(issuer: string, allowLoopback: boolean): Promise<CachedIssuer> {
  const location = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let body: unknown;
  try {
    // Redirects are not followed: a 3xx is not ok.
    const response = await fetchFromPublicAddress(location, {
      allowLoopback,
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`discovery answered ${response.status}`);
    body = await response.json();
  } catch (error) {
    throw new IssuerUnavailableError(issuer, 'discovery document not readable', { cause: error });
  }
  const parsed = discoverySchema.safeParse(body);
  // Discovery §4.3: the document's issuer must be exactly the one it was fetched for.
  if (!parsed.success || parsed.data.issuer !== issuer)
    throw new IssuerUnavailableError(issuer, 'discovery document names another issuer or no jwks_uri');
  const problem = issuerUrlProblem(parsed.data.jwks_uri, allowLoopback);
  if (problem) throw new IssuerUnavailableError(issuer, `jwks_uri ${problem}`);
  const remote = createRemoteJWKSet(new URL(parsed.data.jwks_uri), {
    timeoutDuration: FETCH_TIMEOUT_MS,
    [customFetch]: (url, { headers, signal }) => fetchFromPublicAddress(url, { allowLoopback, headers, signal }),
  });
  // A key-set fetch that fails is the issuer's problem; a kid that is not in a fresh key set is the token's.
  const keys: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys ||
        error instanceof errors.JOSENotSupported
      )
        throw error;
      throw new IssuerUnavailableError(issuer, 'key set not readable', { cause: error });
    }
  };
  return { keys, discoveredAt: Date.now() };
}

/** The issuer's key set, discovered once per Lambda instance (and again after an hour or a failure). */
export async function issuerKeys(issuer: string, allowLoopback: boolean): Promise<JWTVerifyGetKey> {
  const problem = issuerUrlProblem(issuer, allowLoopback);
  if (problem) throw new IssuerUnavailableError(issuer, problem);
  const cached = cache.get(issuer);
  if (cached && Date.now() - cached.discoveredAt < DISCOVERY_MAX_AGE_MS) return cached.keys;
  const fresh = await discover(issuer, allowLoopback);
  cache.set(issuer, fresh);
  return fresh.keys;
}
