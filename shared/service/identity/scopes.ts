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
