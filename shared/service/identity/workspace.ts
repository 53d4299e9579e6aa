/**
 * The team workspace's self-service verbs (issue 12 item 3): members and API keys managed by the
 * team itself. Spec "Authentication" rule 7: only members holding `settings.manage` do this; the
 * route table already asks for `settings:write` (a session gets it only from `settings.manage`,
 * shared/service/identity/member-scopes.ts), and this checks the principal behind the credential too: a
 * session's member, or the member who created the calling key, must hold `settings.manage` now.
 * The admin CLI calls the same Members and ApiKeys verbs (one implementation).
 */
import { ForbiddenError } from '../errors';
import { OPERATOR_ACTOR, serviceAccountName, type Actor, type Caller } from './actor';
import { ApiKeys, type ApiKeyRecord } from './api-keys';
import { MANAGE, Members, type Member, type Permission } from './teams';
import type { ApiKeyView, CreatedApiKeyView } from '../schemas/workspace';

function keyView(record: ApiKeyRecord): ApiKeyView {
  return {
    id: record.id,
    name: record.name,
    scopes: record.scopes,
    serviceAccount: serviceAccountName(record.name),
    createdAt: record.createdAt,
    createdBy: record.createdBy,
    expiresAt: record.expiresAt,
    revokedAt: record.revokedAt,
  };
}

function memberView(member: Member) {
  return {
    id: member.id,
    email: member.email,
    name: member.name,
    permissions: member.permissions,
    createdAt: member.createdAt,
  };
}

/** The caller's principal holds `settings.manage` (spec rule 7); returns the audit actor (rule 11: a key acts as its service account). */
export async function authorizeManager(caller: Caller): Promise<Actor> {
  const refuse = (why: string) =>
    new ForbiddenError(`Only members holding the settings.manage permission manage members and API keys: ${why}`);
  if (caller.actor.kind === 'member') {
    const member = await Members.find(caller.teamId, caller.actor.id);
    if (!member?.permissions.includes(MANAGE)) throw refuse('you do not hold it');
    return caller.actor;
  }
  if (caller.actor.kind === 'service_account') {
    const key = await ApiKeys.find(caller.teamId, caller.keyId);
    if (!key || key.revokedAt) throw refuse('the calling key is gone');
    // The operator's keys (admin CLI without --by) are the operator's delegation.
    if (key.createdBy === OPERATOR_ACTOR.id) return caller.actor;
    const creator = await Members.find(caller.teamId, key.createdBy);
    if (!creator?.permissions.includes(MANAGE)) throw refuse('the member who created this key no longer holds it');
    return caller.actor;
  }
  throw refuse('CI tokens never manage the team');
}

export const Workspace = {
  async listMembers(caller: Caller) {
    await authorizeManager(caller);
    return (await Members.list(caller.teamId)).map(memberView).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },

  /** An invitation is a member entry: the person signs in with an identity whose verified email matches. */
  async inviteMember(caller: Caller, input: { email: string; name?: string | undefined; permissions: Permission[] }) {
    const actor = await authorizeManager(caller);
    const email = input.email.toLowerCase();
    const name = input.name ?? email.slice(0, email.indexOf('@'));
    return memberView(
      await Members.add(caller.teamId, { email, name, permissions: [...new Set(input.permissions)] }, actor),
    );
  },

  /** Members.update and Members.remove keep the team's last holder of settings.manage (409 last_manager), atomically. */
  async updateMember(
    caller: Caller,
    memberId: string,
    patch: { name?: string | undefined; permissions?: Permission[] | undefined },
  ) {
    const actor = await authorizeManager(caller);
    return memberView(await Members.update(caller.teamId, memberId, patch, actor));
  },

  async removeMember(caller: Caller, memberId: string): Promise<void> {
    const actor = await authorizeManager(caller);
    await Members.remove(caller.teamId, memberId, actor);
  },

  async listKeys(caller: Caller): Promise<ApiKeyView[]> {
    await authorizeManager(caller);
    return (await ApiKeys.list(caller.teamId)).map(keyView).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },

  async createKey(caller: Caller, input: unknown): Promise<CreatedApiKeyView> {
    const actor = await authorizeManager(caller);
    const created = await ApiKeys.create(caller.teamId, input, { authorized: actor, heldScopes: caller.scopes });
    return { ...keyView(created), key: created.key };
  },

  /** Spec rule 9: revocation is permanent and deletes the key's service account. */
  async revokeKey(caller: Caller, keyId: string): Promise<void> {
    const actor = await authorizeManager(caller);
    await ApiKeys.revoke(caller.teamId, keyId, { authorized: actor, heldScopes: caller.scopes });
  },
};
