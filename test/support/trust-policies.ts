/** Trust policies for the stand-in GitHub issuer, and the token exchange, for the OIDC tests (test/integration/oidc*.test.ts). */
import { uniqueSlug, type createTeamWithKey } from './factories';
import { request } from './http-client';
import { OWNER_ID, REPOSITORY_ID, type TestIssuer } from './oidc-issuer';

export type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

/** A policy trusting `issuer`'s tokens for the octo-org/octo-repo branches, with `overrides` applied. */
export function trustPolicyBody(issuer: TestIssuer, overrides: Record<string, unknown> = {}) {
  return {
    name: `ci-${uniqueSlug('p')}`,
    issuer: issuer.issuer,
    audience: 'vexdesk',
    claims: {
      repository_owner_id: OWNER_ID,
      repository_id: REPOSITORY_ID,
      sub: 'repo:octo-org/octo-repo:ref:refs/heads/*',
    },
    scopes: ['products:read', 'products:write'],
    ttlMinutes: 10,
    ...overrides,
  };
}

/** Creates the policy through the API. */
export async function createTrustPolicy(
  team: Team,
  issuer: TestIssuer,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; scopes: string[] }> {
  const response = await team.api.post<{ data: { id: string; scopes: string[] } }>(
    '/api/trust-policies',
    trustPolicyBody(issuer, overrides),
  );
  if (response.status !== 201) throw new Error(`policy create failed: ${response.status} ${response.text}`);
  return response.body.data;
}

/** The public token exchange: an issuer's token for a Vexdesk token of the team. */
export function exchange(token: string, teamId: string, policyId?: string) {
  return request('POST', '/api/auth/oidc/token', { body: { token, teamId, ...(policyId ? { policyId } : {}) } });
}

/** A JWT segment: the value as JSON, base64url-encoded. */
export function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
