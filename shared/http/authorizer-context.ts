/**
 * The context the Lambda authorizer hands to API Gateway, which passes it to
 * handlers as `event.requestContext.authorizer`. API Gateway only carries
 * string/number/boolean values, so scopes travel space-separated.
 */
import type { Caller } from '../identity/actor';
import type { AuthenticatedKey } from '../identity/api-keys';
import { serviceAccountName } from '../identity/actor';

export type AuthorizerContext = {
  teamId: string;
  keyId: string;
  serviceAccountId: string;
  actorName: string;
  scopes: string;
};

export function toAuthorizerContext(key: AuthenticatedKey): AuthorizerContext {
  return {
    teamId: key.teamId,
    keyId: key.keyId,
    serviceAccountId: key.serviceAccountId,
    actorName: serviceAccountName(key.name),
    scopes: key.scopes.join(' '),
  };
}

export function callerFromAuthorizer(context: Record<string, unknown> | null | undefined): Caller | undefined {
  if (!context || typeof context.teamId !== 'string' || typeof context.serviceAccountId !== 'string') return undefined;
  return {
    teamId: context.teamId,
    keyId: String(context.keyId),
    actor: { id: context.serviceAccountId, name: String(context.actorName), email: null, kind: 'service_account' },
    scopes: typeof context.scopes === 'string' ? context.scopes.split(' ').filter(Boolean) : [],
  };
}
