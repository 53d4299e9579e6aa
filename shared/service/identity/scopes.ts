/**
 * API key scopes. The first fifteen are the spec's ("Authentication" → Scopes);
 * `settings:read`/`settings:write` are ours, for the team settings the spec
 * leaves open (SLA policy, distinct-approver rule); `cra:read`/`cra:write` for CRA Article 14 reporting.
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
  'cra:read',
  'cra:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * What a CI job running the GitHub Action needs to upload an SBOM and read its findings, creating the
 * product and release when it is asked to (`create: true`; docs/ci.md): every scope of products,
 * releases and SBOMs, and reading vulnerabilities. The console offers it as the preset of a new key.
 */
export const CI_SCOPES: readonly Scope[] = SCOPES.filter(
  (scope) => /^(products|releases|sboms):/.test(scope) || scope === 'vulnerabilities:read',
);
