/** Every kind of actor; `workload`: a CI job signed in through an OIDC trust policy (docs/oidc.md). */
export const ACTOR_KINDS = ['service_account', 'member', 'operator', 'workload'] as const;

/** Who performs an action: attributed in the audit log (spec "Authentication" rule 11). */
export interface Actor {
  id: string;
  name: string;
  email: string | null;
  kind: (typeof ACTOR_KINDS)[number];
  /**
   * The person behind the credential: a session's member, the member an API key or a trust policy acts for
   * (its owner), or the operator. Rules about people (four eyes) compare this, not the credential.
   */
  personId?: string;
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

/** The person behind an actor; an actor without one (the operator, older contexts) is its own person. */
export function personOf(actor: Actor): string {
  return actor.personId ?? actor.id;
}
