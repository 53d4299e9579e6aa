/**
 * The context the Lambda authorizer hands to API Gateway, which passes it to
 * handlers as `event.requestContext.authorizer`. API Gateway only carries
 * string/number/boolean values, so scopes travel space-separated. Every
 * credential (API key, OIDC-issued token) ends in this one shape.
 */
import type { Caller } from '../identity/actor';
import type { AuthenticatedKey } from '../identity/api-keys';
import type { AuthenticatedWorkload } from '../identity/workload-tokens';
import type { AuthenticatedSession } from '../identity/sessions';
import { serviceAccountName } from '../identity/actor';

export type AuthorizerContext = {
  teamId: string;
  /** The credential: API key id, or the id of the token the OIDC exchange issued. */
  keyId: string;
  /** The audit actor's id: the key's service account, or the trust policy. */
  serviceAccountId: string;
  actorName: string;
  /** What the credential may do now: its scopes, capped by its owner's current permissions for keys and CI tokens. */
  scopes: string;
  /** The person behind the credential: a session's member, a key's owner, a CI token's trust policy owner. */
  personId?: string;
  /** Absent means a service account (contexts made before OIDC tokens existed). */
  principalKind?: 'service_account' | 'workload' | 'member';
  /** A browser session's member (their email is in the audit trail). */
  actorEmail?: string;
  /** A browser session's CSRF token (`GET /api/me` hands it to the console). */
  csrfToken?: string;
  /** An OIDC-issued token's expiry (`GET /api/me` shows it; an API key's is on its item). */
  credentialExpiresAt?: string;
};

export function toAuthorizerContext(key: AuthenticatedKey): AuthorizerContext {
  return {
    teamId: key.teamId,
    keyId: key.keyId,
    serviceAccountId: key.serviceAccountId,
    actorName: serviceAccountName(key.name),
    scopes: key.scopes.join(' '),
    personId: key.personId,
    principalKind: 'service_account',
  };
}

export function workloadAuthorizerContext(workload: AuthenticatedWorkload): AuthorizerContext {
  return {
    teamId: workload.teamId,
    keyId: workload.tokenId,
    serviceAccountId: workload.policyId,
    actorName: workload.actor.name,
    scopes: workload.scopes.join(' '),
    personId: workload.personId,
    principalKind: 'workload',
    credentialExpiresAt: workload.expiresAt,
  };
}

/** A browser session: the member is the principal; `keyId` is the session's public id. */
export function sessionAuthorizerContext({ session, scopes, csrfToken }: AuthenticatedSession): AuthorizerContext {
  return {
    teamId: session.teamId,
    keyId: session.id,
    serviceAccountId: session.memberId,
    actorName: session.name,
    actorEmail: session.email,
    scopes: scopes.join(' '),
    personId: session.memberId,
    principalKind: 'member',
    credentialExpiresAt: session.absoluteExpiresAt,
    csrfToken,
  };
}

function actorKind(kind: unknown): Caller['actor']['kind'] {
  return kind === 'workload' || kind === 'member' ? kind : 'service_account';
}

export function callerFromAuthorizer(context: Record<string, unknown> | null | undefined): Caller | undefined {
  if (!context || typeof context.teamId !== 'string' || typeof context.serviceAccountId !== 'string') return undefined;
  return {
    teamId: context.teamId,
    keyId: String(context.keyId),
    actor: {
      id: context.serviceAccountId,
      name: String(context.actorName),
      email: typeof context.actorEmail === 'string' ? context.actorEmail : null,
      kind: actorKind(context.principalKind),
      ...(typeof context.personId === 'string' ? { personId: context.personId } : {}),
    },
    scopes: typeof context.scopes === 'string' ? context.scopes.split(' ').filter(Boolean) : [],
    ...(typeof context.credentialExpiresAt === 'string' ? { credentialExpiresAt: context.credentialExpiresAt } : {}),
    ...(typeof context.csrfToken === 'string' ? { csrfToken: context.csrfToken } : {}),
  };
}
