/**
 * The owner of a credential: the person an API key or a trust policy (and the CI tokens issued under it)
 * acts for. A member's key is theirs, and so is every key or policy it makes; the admin CLI's are the
 * operator's. A credential acts with at most its own scopes and its owner's current permissions, read
 * on every request from the owner's login entry (the member item family the authorizer may read), so a
 * demoted owner's keys lose what the owner lost at once and a removed owner's stop working.
 */
import type * as z from 'zod';
import { SCOPES, type Scope } from './scopes';
import { credentialOwnerSchema } from '../schemas/workspace';
import { OPERATOR_ACTOR } from './actor';
import { scopesOfPermissions } from './member-scopes';
import { Members } from './teams';

export type CredentialOwner =
  | { kind: 'member'; id: string; email: string }
  | { kind: 'operator'; id: string; email: null };

/** An owner as the views carry it (the API schema's shape). */
export type StoredOwner = z.infer<typeof credentialOwnerSchema>;

export const OPERATOR_OWNER: CredentialOwner = { kind: 'operator', id: 'operator', email: null };

export function memberOwner(member: { id: string; email: string }): CredentialOwner {
  return { kind: 'member', id: member.id, email: member.email.toLowerCase() };
}

/** A stored owner; undefined on an item written before owners were recorded (shared/service/identity/credential-owner-migration.ts). */
export function parseOwner(value: unknown): CredentialOwner | undefined {
  const parsed = credentialOwnerSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { kind, id, email } = parsed.data;
  if (kind === 'operator') return { kind, id, email: null };
  return email === null ? undefined : { kind, id, email };
}

export function isOperatorId(id: string): boolean {
  return id === OPERATOR_ACTOR.id;
}

/**
 * The scopes the owner holds now: every scope for the operator, a member's from their current permissions
 * (shared/service/identity/member-scopes.ts); undefined once the member has left (a member removed and invited
 * again is a new member, and owns nothing of the old one).
 */
export async function ownerScopesNow(teamId: string, owner: StoredOwner): Promise<readonly Scope[] | undefined> {
  if (owner.kind === 'operator') return SCOPES;
  if (owner.email === null) return undefined;
  const login = await Members.loginOf(owner.email, teamId);
  if (!login || login.memberId !== owner.id) return undefined;
  return scopesOfPermissions(login.permissions);
}

/** What a credential may do: those of its own scopes its owner holds now. */
export function capScopes<S extends string>(own: readonly S[], ownerScopes: readonly string[]): S[] {
  return own.filter((scope) => ownerScopes.includes(scope));
}
