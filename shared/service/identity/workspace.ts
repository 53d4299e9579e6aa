/**
 * The team workspace's self-service verbs: members and API keys managed by the
 * team itself. Spec "Authentication" rule 7: only managers do this (shared/service/identity/grants.ts):
 * the route table already asks for `settings:write` (a session gets it only from `settings.manage`, a key
 * only while its owner holds it), and the person behind the credential must hold `settings.manage` now.
 * Nobody grants a member more than they hold themselves. The admin CLI calls the same Members and ApiKeys verbs.
 */
import { serviceAccountName, type Caller } from './actor';
import { ApiKeys, type ApiKeyRecord } from './api-keys';
import { assertGrantable, authorizeManager, scopesGrantedToMember } from './grants';
import { removeMember } from './offboarding';
import { Members, type Member, type Permission } from './teams';
import type { ApiKeyView, CreatedApiKeyView } from '../schemas/workspace';

function keyView(record: ApiKeyRecord): ApiKeyView {
  return {
    id: record.id,
    name: record.name,
    scopes: record.scopes,
    serviceAccount: serviceAccountName(record.name),
    createdAt: record.createdAt,
    createdBy: record.createdBy,
    owner: record.owner,
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

export const Workspace = {
  async listMembers(caller: Caller) {
    await authorizeManager(caller.teamId, { caller });
    return (await Members.list(caller.teamId)).map(memberView).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },

  /** An invitation is a member entry: the person signs in with an identity whose verified email matches. */
  async inviteMember(caller: Caller, input: { email: string; name?: string | undefined; permissions: Permission[] }) {
    const manager = await authorizeManager(caller.teamId, { caller });
    const permissions = [...new Set(input.permissions)];
    assertGrantable(manager, scopesGrantedToMember(undefined, permissions), "A member's permissions");
    const email = input.email.toLowerCase();
    const name = input.name ?? email.slice(0, email.indexOf('@'));
    return memberView(await Members.add(caller.teamId, { email, name, permissions }, manager.actor));
  },

  /** Members.update and Members.remove keep the team's last holder of settings.manage (409 last_manager), atomically. */
  async updateMember(
    caller: Caller,
    memberId: string,
    patch: { name?: string | undefined; permissions?: Permission[] | undefined },
  ) {
    const manager = await authorizeManager(caller.teamId, { caller });
    return memberView(
      await Members.update(caller.teamId, memberId, patch, manager.actor, (before, after) =>
        assertGrantable(
          manager,
          scopesGrantedToMember(before.permissions, after.permissions),
          "A member's permissions",
        ),
      ),
    );
  },

  /** Offboarding (shared/service/identity/offboarding.ts): their keys and trust policies are revoked, or handed over. */
  async removeMember(caller: Caller, memberId: string, options: { handOverTo?: string | undefined } = {}) {
    const manager = await authorizeManager(caller.teamId, { caller });
    await removeMember(caller.teamId, memberId, manager, options.handOverTo);
  },

  async listKeys(caller: Caller): Promise<ApiKeyView[]> {
    await authorizeManager(caller.teamId, { caller });
    return (await ApiKeys.list(caller.teamId)).map(keyView).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  },

  async createKey(caller: Caller, input: unknown): Promise<CreatedApiKeyView> {
    const manager = await authorizeManager(caller.teamId, { caller });
    const created = await ApiKeys.create(caller.teamId, input, { manager });
    return { ...keyView(created), key: created.key };
  },

  /** Spec rule 9: revocation is permanent and deletes the key's service account. */
  async revokeKey(caller: Caller, keyId: string): Promise<void> {
    const manager = await authorizeManager(caller.teamId, { caller });
    await ApiKeys.revoke(caller.teamId, keyId, { manager });
  },
};
