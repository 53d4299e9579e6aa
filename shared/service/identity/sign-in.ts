/**
 * Browser sign-in with OpenID Connect (docs/sign-in.md): this service is a relying
 * party of the configured issuer (authorization code + PKCE, openid-client). The flow's secrets (state,
 * nonce, PKCE verifier) stay server-side in a single-use item found by the hash of a random id that only
 * the browser's flow cookie holds, so a callback cannot be replayed or completed in another browser.
 *
 * A verified email signs in as the member an admin invited with it; an identity without an invitation,
 * or whose provider does not vouch for the email, gets no session.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { auditPut } from '../audit/audit-log';
import { config } from '../config';
import { keys } from '../data/keys';
import { tableDefinition } from '../data/table-definition';
import { getItem, transactWrite, TransactionFailedError, tx } from '../data/table-client';
import { ForbiddenError, NotImplementedError } from '../errors';
import { logger } from '../logger';
import { safeReturnPath } from './return-path';
import type { Actor } from './actor';
import { csrfTokenMatches, Sessions, type SessionRecord } from './sessions';
import { FLOW_TTL_SECONDS, originMatches, SIGN_IN_CALLBACK_PATH } from './sign-in-rules';
import { Members, type MemberLogin } from './teams';

const TTL = tableDefinition.timeToLiveAttribute;
const FLOW_ID_PATTERN = /^[\w-]{43}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export type SignInRefusal =
  /** No flow item for the cookie: expired, used already, or started in another browser. */
  | 'flow_unknown'
  /** The provider answered with an error (the user cancelled, the client is misconfigured). */
  | 'provider_error'
  /** The code exchange or the ID token failed validation. */
  | 'invalid_response'
  | 'email_unverified'
  | 'not_invited';

export type SignInOutcome =
  | { kind: 'signed_in'; sessionId: string; session: SessionRecord; returnTo: string }
  | { kind: 'refused'; reason: SignInRefusal; email?: string };

let discovered: Promise<oidc.Configuration> | undefined;

function settings() {
  const signIn = config().signIn;
  if (!signIn)
    throw new NotImplementedError('Sign-in is not configured on this server (SIGN_IN_ISSUER, SIGN_IN_CLIENT_ID)');
  return signIn;
}

/** The provider's metadata, fetched once per process (a failed fetch is retried by the next request). */
function configuration(): Promise<oidc.Configuration> {
  const { issuer, clientId, clientSecret } = settings();
  // Plain HTTP only to a provider on this machine (the embedded one of `npm start`); anything else must be HTTPS.
  const loopback = LOOPBACK_HOSTS.has(new URL(issuer).hostname);
  discovered ??= oidc
    .discovery(
      new URL(issuer),
      clientId,
      undefined,
      clientSecret ? oidc.ClientSecretPost(clientSecret) : oidc.None(),
      loopback ? { execute: [oidc.allowInsecureRequests] } : undefined,
    )
    .catch((error: unknown) => {
      discovered = undefined;
      throw error;
    });
  return discovered;
}

function redirectUri(): string {
  return `${config().publicBaseUrl}${SIGN_IN_CALLBACK_PATH}`;
}

function hash(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

function memberActor(login: Pick<MemberLogin, 'memberId' | 'name' | 'email'>): Actor {
  return { id: login.memberId, name: login.name, email: login.email, kind: 'member' };
}

export const SignIn = {
  /** Starts a sign-in: the provider URL to send the browser to, and the flow id for its cookie. */
  async start(input: {
    returnTo?: string | undefined;
    teamId?: string | undefined;
  }): Promise<{ location: string; flowId: string }> {
    const { returnPath } = settings();
    const client = await configuration();
    const flowId = randomBytes(32).toString('base64url');
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    await transactWrite([
      tx.create({
        ...keys.signInFlow(hash(flowId)),
        entity: 'SignInFlow',
        state,
        nonce,
        codeVerifier,
        returnTo: safeReturnPath(input.returnTo, returnPath),
        ...(input.teamId ? { teamId: input.teamId } : {}),
        [TTL]: Math.ceil(Date.now() / 1000) + FLOW_TTL_SECONDS,
      }),
    ]);
    const location = oidc.buildAuthorizationUrl(client, {
      redirect_uri: redirectUri(),
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { location: location.href, flowId };
  },

  /** Completes a sign-in from the provider's redirect: the flow is consumed whatever the outcome. */
  async finish(input: {
    flowId: string | undefined;
    query: Record<string, string | undefined>;
  }): Promise<SignInOutcome> {
    const client = await configuration();
    if (input.flowId === undefined || !FLOW_ID_PATTERN.test(input.flowId))
      return { kind: 'refused', reason: 'flow_unknown' };
    const flowKey = keys.signInFlow(hash(input.flowId));
    const flow = await getItem(flowKey);
    if (!flow || Number(flow[TTL]) * 1000 <= Date.now()) return { kind: 'refused', reason: 'flow_unknown' };
    try {
      await transactWrite([tx.delete(flowKey, 'attribute_exists(pk)')]);
    } catch (error) {
      // Another request consumed it first: single use.
      if (error instanceof TransactionFailedError && error.failedAt(0))
        return { kind: 'refused', reason: 'flow_unknown' };
      throw error;
    }
    if (input.query.error !== undefined) {
      logger.info('sign-in refused by the provider', { error: input.query.error });
      return { kind: 'refused', reason: 'provider_error' };
    }
    const callbackUrl = new URL(redirectUri());
    for (const [name, value] of Object.entries(input.query))
      if (value !== undefined) callbackUrl.searchParams.set(name, value);
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, {
        pkceCodeVerifier: String(flow.codeVerifier),
        expectedState: String(flow.state),
        expectedNonce: String(flow.nonce),
        idTokenExpected: true,
      });
      claims = { ...(tokens.claims() ?? {}) };
      // Some providers put the email only in the UserInfo answer (Cognito's ID token has it; others vary).
      if (typeof claims.email !== 'string' && typeof claims.sub === 'string') {
        claims = { ...claims, ...(await oidc.fetchUserInfo(client, tokens.access_token, claims.sub)) };
      }
    } catch (error) {
      logger.info('sign-in response refused', { reason: (error as Error).message });
      return { kind: 'refused', reason: 'invalid_response' };
    }
    const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : undefined;
    // Cognito's UserInfo says "true" as a string; the ID token a boolean.
    if (!email || (claims.email_verified !== true && claims.email_verified !== 'true'))
      return { kind: 'refused', reason: 'email_unverified', ...(email ? { email } : {}) };
    const logins = await Members.loginsOf(email);
    const login = typeof flow.teamId === 'string' ? logins.find((entry) => entry.teamId === flow.teamId) : logins[0];
    if (!login) return { kind: 'refused', reason: 'not_invited', email };
    const { sessionId, session } = await Sessions.create(login, (created, timeouts) =>
      auditPut(login.teamId, memberActor(login), {
        action: 'sign_in',
        entityType: 'session',
        entityId: created.id,
        entityName: login.email,
        changes: { absoluteExpiresAt: created.absoluteExpiresAt, idleTimeoutMinutes: timeouts.idleMinutes },
      }),
    );
    return { kind: 'signed_in', sessionId, session, returnTo: String(flow.returnTo) };
  },

  /**
   * Server-side sign-out; a cookie naming no session is already signed out. It is a cookie request
   * that changes state, so it needs the console's Origin and the session's CSRF token like any other.
   */
  async signOut(input: {
    sessionId: string | undefined;
    csrfToken: string | undefined;
    origin: string | undefined;
  }): Promise<void> {
    const { sessionId } = input;
    if (sessionId === undefined || !(await Sessions.find(sessionId))) return;
    if (!originMatches(input.origin, config().publicBaseUrl) || !csrfTokenMatches(sessionId, input.csrfToken)) {
      throw new ForbiddenError(
        "Signing out with a session cookie needs the X-CSRF-Token header of the session and the console's Origin",
      );
    }
    await Sessions.revoke(sessionId, (session) =>
      auditPut(session.teamId, memberActor(session), {
        action: 'sign_out',
        entityType: 'session',
        entityId: session.id,
        entityName: session.email,
        changes: {},
      }),
    );
  },
};
