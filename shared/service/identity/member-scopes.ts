/**
 * The one table from a member's permissions to the scopes of their browser session
 * (docs/sign-in.md "Roles and scopes"). The authorizer derives a
 * session's scopes from it on every request, from the member's current permissions,
 * so a change takes effect on the next request.
 */
import type { Scope } from './scopes';
import type { Permission } from './permission-names';

/** Every member reads everything of their team. */
export const MEMBER_BASE_SCOPES: readonly Scope[] = [
  'products:read',
  'releases:read',
  'sboms:read',
  'vulnerabilities:read',
  'dispositions:read',
  'vex:read',
  'disclosures:read',
  'compliance:read',
  'audit:read',
  'settings:read',
  'cra:read',
];

export const PERMISSION_SCOPES: Record<Permission, readonly Scope[]> = {
  /** The day-to-day work: products, releases, SBOM uploads and scans, triage, the VEX workflow, CRA reports. */
  'content.write': [
    'products:write',
    'releases:write',
    'sboms:write',
    'cve:trigger',
    'dispositions:write',
    'vex:write',
    'cra:write',
  ],
  /** Spec "Authentication" rule 7: keys, members, trust policies and team settings. */
  'settings.manage': ['settings:write'],
};

export function scopesOfPermissions(permissions: readonly Permission[]): Scope[] {
  const scopes = new Set<Scope>(MEMBER_BASE_SCOPES);
  for (const permission of permissions) for (const scope of PERMISSION_SCOPES[permission] ?? []) scopes.add(scope);
  return [...scopes].sort();
}
