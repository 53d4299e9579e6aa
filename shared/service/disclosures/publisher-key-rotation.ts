/**
 * Rotating a team's publisher key (docs/disclosure-verification.md "Key
 * rotation"): by the operator (admin CLI), a member holding `settings.manage`
 * (the CLI's `--by`), or through the API by a key holding `settings:write`,
 * which only such a member can create. Audited in the rotation's transaction.
 */
import { auditPut } from '../audit/audit-log';
import { ForbiddenError, NotFoundError } from '../errors';
import type { Actor } from '../identity/actor';
import { Members, Teams } from '../identity/teams';
import { PublisherKeys, type PublisherPublicKey } from './publisher-keys';

/** What the API and the CLI show of a key: the public half only. */
export function toPublisherKeyView(key: PublisherPublicKey) {
  return {
    fingerprint: key.fingerprint,
    key_id: key.keyId,
    algorithm: key.algorithm,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
    armored: key.armored,
    jwk: key.jwk,
  };
}

async function authorize(teamId: string, actor: Actor): Promise<void> {
  if (actor.kind === 'workload')
    throw new ForbiddenError('A token issued through a trust policy cannot rotate the publisher key');
  if (actor.kind === 'member') {
    const member = await Members.find(teamId, actor.id);
    if (!member?.permissions.includes('settings.manage')) {
      throw new ForbiddenError('Only members holding the settings.manage permission can rotate the publisher key');
    }
  }
}

export const PublisherKeyRotation = {
  async rotate(teamId: string, actor: Actor) {
    await Teams.get(teamId);
    await authorize(teamId, actor);
    const key = await PublisherKeys.rotate(teamId, (fresh, previous) => [
      auditPut(teamId, actor, {
        action: 'rotate',
        entityType: 'publisher_key',
        entityId: fresh.fingerprint,
        entityName: 'publisher key',
        changes: { fingerprint: { from: previous, to: fresh.fingerprint } },
      }),
    ]);
    return toPublisherKeyView(key);
  },

  async list(teamId: string) {
    await Teams.get(teamId);
    return (await PublisherKeys.publicKeys(teamId)).map(toPublisherKeyView);
  },

  /** The admin CLI's `--by MEMBER_ID`. */
  async actorFor(teamId: string, byMemberId: string | undefined, operator: Actor): Promise<Actor> {
    if (byMemberId === undefined) return operator;
    const member = await Members.find(teamId, byMemberId);
    if (!member) throw new NotFoundError('Member');
    return Members.actorOf(member);
  },
};
