/**
 * Removing a member ends every access they had (docs/security-authorization.md "Offboarding"): their sessions
 * (their login entry goes with them), the API keys they own (keys their keys made included: a key made by a
 * key has the same owner) and the trust policies they own, with every CI token issued under them. Or, when
 * the removal names `handOverTo`, a manager of the team takes the keys and policies over, and they act with at
 * most that manager's permissions from then on.
 *
 * The member goes first. From that moment the authorizer refuses whatever they own (a credential whose owner
 * has no login entry acts for nobody), so a failure half-way through the revocations below leaves nothing
 * usable; the revocations make the end visible in the key list, the policy list and the audit log.
 */
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { ApiKeys } from './api-keys';
import { memberOwner, type CredentialOwner, type StoredOwner } from './credential-owner';
import type { Manager } from './grants';
import { TrustPolicies } from './trust-policies';
import { MANAGE, Members } from './teams';

/** The manager named to take the leaver's credentials over: a member of the team holding settings.manage. */
async function heirNamed(teamId: string, leaverId: string, heirId: string): Promise<CredentialOwner> {
  const refuse = (message: string) => new ValidationError('Invalid hand-over', [{ path: 'handOverTo', message }]);
  if (heirId === leaverId) throw refuse('names the member being removed');
  const heir = await Members.find(teamId, heirId);
  if (!heir) throw refuse('no member of this team has that id');
  if (!heir.permissions.includes(MANAGE)) throw refuse(`${heir.email} does not hold settings.manage`);
  return memberOwner(heir);
}

const ownedBy = (memberId: string) => (owner: StoredOwner | null) => owner?.kind === 'member' && owner.id === memberId;

/** Another request revoked or deleted it meanwhile: the end is the same. */
function alreadyGone(error: unknown): boolean {
  return error instanceof ConflictError || error instanceof NotFoundError;
}

export async function removeMember(
  teamId: string,
  memberId: string,
  manager: Manager,
  handOverTo: string | undefined,
): Promise<void> {
  const heir = handOverTo === undefined ? undefined : await heirNamed(teamId, memberId, handOverTo);
  await Members.remove(teamId, memberId, manager.actor);
  const isTheirs = ownedBy(memberId);
  for (const key of await ApiKeys.list(teamId)) {
    if (key.revokedAt || !isTheirs(key.owner)) continue;
    try {
      if (heir) await ApiKeys.handOver(teamId, key.id, heir, manager);
      else await ApiKeys.revoke(teamId, key.id, { manager });
    } catch (error) {
      if (!alreadyGone(error)) throw error;
    }
  }
  for (const policy of await TrustPolicies.list(teamId)) {
    if (!isTheirs(policy.owner)) continue;
    try {
      if (heir) await TrustPolicies.handOver(teamId, policy, heir, manager);
      else await TrustPolicies.delete(teamId, policy.id, { manager });
    } catch (error) {
      if (!alreadyGone(error)) throw error;
    }
  }
}
