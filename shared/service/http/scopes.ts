/**
 * API key scopes. The first fifteen are the spec's ("Authentication" → Scopes);
 * `settings:read`/`settings:write` are ours, for the team settings the spec
 * leaves open (SLA policy, distinct-approver rule).
 */
export const SCOPES = [
  'products:read',
  'products:write',
  'releases:read',
  'releases:write',
  'sboms:read',
  'sboms:write',
  'vulnerabilities:read',
  'dispositions:read',
  'dispositions:write',
  'vex:read',
  'vex:write',
  'disclosures:read',
  'compliance:read',
  'audit:read',
  'cve:trigger',
  'settings:read',
  'settings:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

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
