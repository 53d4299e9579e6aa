/**
 * Managing the team and granting: every place a permission (a member's) or a scope (an API key's, a trust
 * policy's) is handed out goes through these two functions (docs/security-authorization.md):
 * - `authorizeManager`: only a manager manages the team (spec "Authentication" rule 7). The person behind the
 *   caller holds `settings.manage` now: a session's member, or the member a key acts for (its owner); the
 *   operator (admin CLI) manages every team; a CI token never does.
 * - `assertGrantable`: nobody grants what they do not hold. An API caller holds its credential's scopes, which
 *   the authorizer already capped by the owner's current permissions; the admin CLI acting for a member
 *   (`--by`) holds that member's permissions; the operator holds everything.
 */
import { ForbiddenError, NotFoundError } from '../errors';
import type { Scope } from './scopes';
import { isOperatorId, memberOwner, OPERATOR_OWNER, type CredentialOwner } from './credential-owner';
import { personOf, type Actor, type Caller } from './actor';
import { scopesOfPermissions } from './member-scopes';
import { MANAGE, Members, type Permission } from './teams';

/** Who manages: the audit actor, the person who will own what they create, and what they may grant. */
export interface Manager {
  actor: Actor;
  owner: CredentialOwner;
  holds: readonly string[] | 'everything';
}

/**
 * How a management verb is called: by an API caller, by the admin CLI (the operator, or `--by` a member), or by
 * code that already authorized the manager (offboarding acting on the removed member's keys).
 */
export type ManagerRequest =
  | { caller: Caller }
  | { operator: Actor; byMemberId?: string | undefined }
  | { manager: Manager };

function notManager(why: string): ForbiddenError {
  return new ForbiddenError(`Only members holding the settings.manage permission manage the team: ${why}`);
}

async function managingMember(teamId: string, memberId: string, why: string) {
  const member = await Members.find(teamId, memberId);
  if (!member?.permissions.includes(MANAGE)) throw notManager(why);
  return member;
}

export async function authorizeManager(teamId: string, request: ManagerRequest): Promise<Manager> {
  if ('manager' in request) return request.manager;
  if ('operator' in request) {
    if (request.byMemberId === undefined)
      return { actor: request.operator, owner: OPERATOR_OWNER, holds: 'everything' };
    const member = await Members.find(teamId, request.byMemberId);
    if (!member) throw new NotFoundError('Member');
    if (!member.permissions.includes(MANAGE)) throw notManager(`${member.email} does not hold it`);
    return {
      actor: Members.actorOf(member),
      owner: memberOwner(member),
      holds: scopesOfPermissions(member.permissions),
    };
  }
  const { caller } = request;
  if (caller.actor.kind === 'workload') throw notManager('a CI token never manages the team');
  const person = personOf(caller.actor);
  // Rule 11: a key still acts as its service account in the audit log; what it makes is its owner's.
  if (isOperatorId(person)) return { actor: caller.actor, owner: OPERATOR_OWNER, holds: caller.scopes };
  const member = await managingMember(
    caller.teamId,
    person,
    caller.actor.kind === 'member' ? 'you do not hold it' : 'the member this key acts for does not hold it',
  );
  return { actor: caller.actor, owner: memberOwner(member), holds: caller.scopes };
}

/** Refuses (403) a grant of anything the manager does not hold, naming what is missing. */
export function assertGrantable(manager: Manager, granted: readonly string[], what: string): void {
  const { holds } = manager;
  if (holds === 'everything') return;
  const beyond = [...new Set(granted)].filter((scope) => !holds.includes(scope)).sort();
  if (beyond.length > 0)
    throw new ForbiddenError(`${what} may grant only what the caller holds; not held: ${beyond.join(', ')}`);
}

/**
 * The scopes a change of a member's permissions grants: those the new permissions give that the old ones did not
 * (a new member gets every member's read scopes too). Taking a permission away grants nothing.
 */
export function scopesGrantedToMember(
  before: readonly Permission[] | undefined,
  after: readonly Permission[],
): Scope[] {
  const had = new Set<string>(before ? scopesOfPermissions(before) : []);
  return scopesOfPermissions(after).filter((scope) => !had.has(scope));
}
