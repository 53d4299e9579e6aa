/**
 * Teams (accounts) and their human members. Service accounts backing API keys
 * live under their own key prefix, so member listings never include them and
 * they never count toward member quotas (spec "API key").
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { keys } from '../data/keys';
import {
  getItem,
  queryAll,
  transactWrite,
  TransactionFailedError,
  tx,
  type Item,
  type TransactItem,
} from '../data/table-client';
import { lostRace, retryLostRaces, RETRY } from '../data/write-races';
import { auditPut } from '../audit/audit-log';
import { ConflictError, NotFoundError } from '../errors';
import type { Actor } from './actor';
import { PERMISSIONS, type Permission } from './permission-names';

export { PERMISSIONS, type Permission };
export const permissionSchema = z.enum(PERMISSIONS);

export interface Team {
  id: string;
  name: string;
  createdAt: string;
  settings: Record<string, unknown>;
  /** Operator's request-quota override (shared/service/identity/team-quota.ts resolves and validates it). */
  throttle?: unknown;
}

export interface Member {
  id: string;
  teamId: string;
  email: string;
  name: string;
  permissions: Permission[];
  createdAt: string;
}

/** A member's entry in the global login index (keys.memberLogin): what sign-in and the authorizer read. */
export interface MemberLogin {
  teamId: string;
  memberId: string;
  email: string;
  name: string;
  permissions: Permission[];
}

function loginItem(member: Member): Item {
  return {
    ...keys.memberLogin(member.email, member.teamId),
    entity: 'MemberLogin',
    teamId: member.teamId,
    memberId: member.id,
    email: member.email.toLowerCase(),
    name: member.name,
    permissions: member.permissions,
  };
}

function toLogin(item: Item): MemberLogin {
  return {
    teamId: String(item.teamId),
    memberId: String(item.memberId),
    email: String(item.email),
    name: String(item.name),
    permissions: (item.permissions as Permission[] | undefined) ?? [],
  };
}

function toTeam(item: Item): Team {
  return {
    id: String(item.id),
    name: String(item.name),
    createdAt: String(item.createdAt),
    settings: (item.settings as Record<string, unknown> | undefined) ?? {},
    ...(item.throttle !== undefined ? { throttle: item.throttle } : {}),
  };
}

function toMember(item: Item): Member {
  return {
    id: String(item.id),
    teamId: String(item.teamId),
    email: String(item.email),
    name: String(item.name),
    permissions: (item.permissions as Permission[] | undefined) ?? [],
    createdAt: String(item.createdAt),
  };
}

export const Teams = {
  async create(name: string, actor: Actor): Promise<Team> {
    const id = randomUUID();
    const createdAt = new Date().toISOString();
    const team = { id, name, createdAt, settings: {} };
    await transactWrite([
      tx.create({ ...keys.team(id), entity: 'Team', ...team }),
      auditPut(id, actor, { action: 'create', entityType: 'team', entityId: id, entityName: name, changes: { name } }),
    ]);
    return team;
  },

  async get(teamId: string): Promise<Team> {
    const item = await getItem(keys.team(teamId));
    if (!item) throw new NotFoundError('Team');
    return toTeam(item);
  },
};

/** The permission that manages the team (members, keys, settings): a team keeps at least one holder. */
export const MANAGE: Permission = 'settings.manage';

/**
 * The team keeps at least one member holding settings.manage (otherwise only the operator could manage
 * it). A read-then-write check would let two requests each remove one of the last two managers, so the
 * write carries the proof: the changed member still holds (or lacks) the permission as read, and, when it
 * loses it, another member who holds it now is condition-checked in the same transaction. Serializable
 * transactions then let at most one of two such changes commit; the loser re-reads and gets 409.
 */
async function keepsManager(
  before: Member,
  keepsPermission: boolean,
): Promise<{ memberCondition: string; checks: TransactItem[] }> {
  const held = before.permissions.includes(MANAGE);
  const memberCondition = held ? 'contains(#permissions, :manage)' : 'NOT contains(#permissions, :manage)';
  if (!held || keepsPermission) return { memberCondition, checks: [] };
  const witness = (await Members.list(before.teamId)).find(
    (member) => member.id !== before.id && member.permissions.includes(MANAGE),
  );
  if (!witness)
    throw new ConflictError('The team must keep at least one member holding settings.manage', 'last_manager');
  return {
    memberCondition,
    checks: [
      tx.check(
        keys.member(before.teamId, witness.id),
        'contains(#permissions, :manage)',
        { '#permissions': 'permissions' },
        { ':manage': MANAGE },
      ),
    ],
  };
}

export const Members = {
  async add(
    teamId: string,
    input: { email: string; name: string; permissions: Permission[] },
    actor: Actor,
  ): Promise<Member> {
    await Teams.get(teamId);
    const member: Member = {
      id: randomUUID(),
      teamId,
      email: input.email,
      name: input.name,
      permissions: input.permissions,
      createdAt: new Date().toISOString(),
    };
    try {
      await transactWrite([
        tx.create({ ...keys.member(teamId, member.id), entity: 'Member', ...member }),
        tx.create({ ...keys.memberEmailClaim(teamId, member.email), entity: 'MemberEmailClaim', memberId: member.id }),
        // A put, not a create: an entry a crash of an older remove left behind is replaced (the claim above is the uniqueness check).
        tx.put(loginItem(member)),
        auditPut(teamId, actor, {
          action: 'create',
          entityType: 'member',
          entityId: member.id,
          entityName: member.name,
          changes: { email: member.email, name: member.name, permissions: member.permissions },
        }),
      ]);
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(1))
        throw new ConflictError(`A member with email ${member.email} already exists`);
      throw error;
    }
    return member;
  },

  async get(teamId: string, memberId: string): Promise<Member> {
    const item = await getItem(keys.member(teamId, memberId));
    if (!item) throw new NotFoundError('Member');
    return toMember(item);
  },

  async find(teamId: string, memberId: string): Promise<Member | undefined> {
    const item = await getItem(keys.member(teamId, memberId));
    return item ? toMember(item) : undefined;
  },

  async list(teamId: string): Promise<Member[]> {
    const { pk, skPrefix } = keys.memberPrefix(teamId);
    return (await queryAll({ pk, skPrefix })).map(toMember);
  },

  /**
   * Changes a member's name or permissions; their sessions see the new permissions on their next request.
   * Taking settings.manage from the last member holding it is refused (409 last_manager, `keepsManager`).
   * `allow` sees the change as planned from the member as read (the caller's grant check) and may throw.
   */
  async update(
    teamId: string,
    memberId: string,
    patch: { name?: string | undefined; permissions?: Permission[] | undefined },
    actor: Actor,
    allow: (before: Member, after: Member) => void = () => undefined,
  ): Promise<Member> {
    return retryLostRaces(
      async () => {
        const before = await Members.get(teamId, memberId);
        const after: Member = {
          ...before,
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.permissions !== undefined ? { permissions: [...new Set(patch.permissions)] } : {}),
        };
        allow(before, after);
        const guard = await keepsManager(before, after.permissions.includes(MANAGE));
        try {
          await transactWrite([
            tx.update(
              keys.member(teamId, memberId),
              'SET #name = :name, #permissions = :permissions',
              { '#name': 'name', '#permissions': 'permissions' },
              { ':name': after.name, ':permissions': after.permissions, ':manage': MANAGE },
              `attribute_exists(pk) AND ${guard.memberCondition}`,
            ),
            tx.put(loginItem(after)),
            auditPut(teamId, actor, {
              action: 'update',
              entityType: 'member',
              entityId: memberId,
              entityName: after.name,
              changes: {
                name: { from: before.name, to: after.name },
                permissions: { from: before.permissions, to: after.permissions },
              },
            }),
            ...guard.checks,
          ]);
        } catch (error) {
          // The member changed or went (the next read says 404), or the remaining manager did: plan again.
          if (lostRace(error, [0, 3])) return RETRY;
          throw error;
        }
        return after;
      },
      () => new ConflictError('The member kept changing; try again'),
    );
  },

  /** Removes a member: their login entry goes in the same transaction, so their sessions end on the next request. */
  async remove(teamId: string, memberId: string, actor: Actor): Promise<void> {
    await retryLostRaces(
      async () => {
        const member = await Members.get(teamId, memberId);
        const guard = await keepsManager(member, false);
        try {
          await transactWrite([
            tx.delete(
              keys.member(teamId, memberId),
              `attribute_exists(pk) AND ${guard.memberCondition}`,
              { '#permissions': 'permissions' },
              { ':manage': MANAGE },
            ),
            tx.delete(keys.memberEmailClaim(teamId, member.email)),
            tx.delete(keys.memberLogin(member.email, teamId)),
            auditPut(teamId, actor, {
              action: 'delete',
              entityType: 'member',
              entityId: memberId,
              entityName: member.name,
              changes: { email: member.email, permissions: member.permissions },
            }),
            ...guard.checks,
          ]);
        } catch (error) {
          if (lostRace(error, [0, 4])) return RETRY;
          throw error;
        }
        return true;
      },
      () => new ConflictError('The member kept changing; try again'),
    );
  },

  /** The teams a verified email is a member of (sign-in), in team id order. */
  async loginsOf(email: string): Promise<MemberLogin[]> {
    const { pk, skPrefix } = keys.memberLoginPrefix(email);
    return (await queryAll({ pk, skPrefix })).map(toLogin);
  },

  /** One team's login entry of an email: the authorizer's per-request check of a session's member. */
  async loginOf(email: string, teamId: string): Promise<MemberLogin | undefined> {
    const item = await getItem(keys.memberLogin(email, teamId));
    return item ? toLogin(item) : undefined;
  },

  actorOf(member: Member): Actor {
    return { id: member.id, name: member.name, email: member.email, kind: 'member' };
  },
};
