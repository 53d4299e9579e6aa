/** Every kind of actor; `workload`: a CI job signed in through an OIDC trust policy (docs/oidc.md). */
export const ACTOR_KINDS = ['service_account', 'member', 'operator', 'workload'] as const;

/** Who performs an action: attributed in the audit log (spec "Authentication" rule 11). */
export interface Actor {
  id: string;
  name: string;
  email: string | null;
  kind: (typeof ACTOR_KINDS)[number];
}

/** The caller of an API request, as the authorizer established it. */
export interface Caller {
  teamId: string;
  keyId: string;
  actor: Actor;
  scopes: string[];
  /** Set for OIDC-issued tokens and sessions, which have no stored key item to read the expiry from. */
  credentialExpiresAt?: string;
  /** A browser session's CSRF token, for `GET /api/me` (docs/sign-in.md "CSRF"). */
  csrfToken?: string;
}

/** The admin CLI acting without `--by` (bootstrap and operations). */
export const OPERATOR_ACTOR: Actor = { id: 'operator', name: 'admin-cli', email: null, kind: 'operator' };

export function serviceAccountName(keyName: string): string {
  return `api_${keyName}`;
}
