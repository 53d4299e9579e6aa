/**
 * Teams (accounts) and their human members. Service accounts backing API keys
 * live under their own key prefix, so member listings never include them and
 * they never count toward member quotas (spec "API key").
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { keys } from '../data/keys';
import { getItem, queryAll, transactWrite, TransactionFailedError, tx, type Item } from '../data/table-client';
import { auditPut } from '../audit/audit-log';
import { ConflictError, NotFoundError } from '../errors';
import type { Actor } from './actor';

export const PERMISSIONS = ['settings.manage'] as const;
export type Permission = (typeof PERMISSIONS)[number];
export const permissionSchema = z.enum(PERMISSIONS);

export interface Team {
  id: string;
  name: string;
  createdAt: string;
  settings: Record<string, unknown>;
  /** Operator's request-quota override (shared/identity/team-quota.ts resolves and validates it). */
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

export const Members = {
  async add(teamId: string, input: { email: string; name: string; permissions: Permission[] }, actor: Actor): Promise<Member> {
    await Teams.get(teamId);
    const member: Member = { id: randomUUID(), teamId, email: input.email, name: input.name, permissions: input.permissions, createdAt: new Date().toISOString() };
    try {
      await transactWrite([
        tx.create({ ...keys.member(teamId, member.id), entity: 'Member', ...member }),
        tx.create({ ...keys.memberEmailClaim(teamId, member.email), entity: 'MemberEmailClaim', memberId: member.id }),
        auditPut(teamId, actor, {
          action: 'create', entityType: 'member', entityId: member.id, entityName: member.name,
          changes: { email: member.email, name: member.name, permissions: member.permissions },
        }),
      ]);
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(1)) throw new ConflictError(`A member with email ${member.email} already exists`);
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

  actorOf(member: Member): Actor {
    return { id: member.id, name: member.name, email: member.email, kind: 'member' };
  },
};
