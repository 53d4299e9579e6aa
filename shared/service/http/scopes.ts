import type { Scope } from '../identity/scopes';

/**
 * A route's scope in the route table: a scope the key must hold, `authenticated` for a route any
 * valid credential may call whatever its scopes (`GET /api/me`: a key must be able to find out what
 * it may do), or `null` for a public route (no authorizer).
 */
export const ANY_CREDENTIAL = 'authenticated';
export type RouteScope = Scope | typeof ANY_CREDENTIAL | null;

/** Whether a caller holding `held` may call a private route requiring `required`. */
export function scopeAllows(required: Scope | typeof ANY_CREDENTIAL, held: readonly string[]): boolean {
  return required === ANY_CREDENTIAL || held.includes(required);
}
