/**
 * Gives API keys and trust policies made before owners were recorded their owner
 * (shared/service/identity/credential-owner.ts), which the authorizer needs: until then such a key or
 * policy's CI tokens act for nobody and are refused. The owner is found from `createdBy`: the operator,
 * a member, or a key's service account, whose key's owner it inherits. A credential whose creator is gone
 * (a member removed before removal revoked their keys, or a key revoked since) is what offboarding would
 * have ended: the key is revoked, the policy deleted. Each change is audited as the migration's.
 *
 * Runs before anything serves requests: at every local start (one GetItem once done) and, on AWS, in
 * `npm run -s admin -- table migrate --stack NAME` right after the deploy. Idempotent: each credential is
 * written once, and a run cut off leaves the rest for the next.
 */
import { keys } from '../data/keys';
import { getItem, type Item } from '../data/table-client';
import { runOnce, scanPages } from '../data/table-maintenance';
import { ConflictError, NotFoundError } from '../errors';
import type { Actor } from './actor';
import { ApiKeys } from './api-keys';
import { isOperatorId, memberOwner, OPERATOR_OWNER, parseOwner, type CredentialOwner } from './credential-owner';
import type { Manager } from './grants';
import { TrustPolicies } from './trust-policies';
import { TrustPolicyStore } from './trust-policy-store';
import { Members } from './teams';

/** Bump when owners need recording again (and extend the migration). */
export const CREDENTIAL_OWNER_VERSION = 1;

const MIGRATION_ACTOR: Actor = { id: 'migration', name: 'credential-owner migration', email: null, kind: 'operator' };
const MIGRATION: Manager = { actor: MIGRATION_ACTOR, owner: OPERATOR_OWNER, holds: 'everything' };

export interface CredentialOwnerMigration {
  keys: number;
  policies: number;
  revokedKeys: number;
  deletedPolicies: number;
}

/** Keys made by keys made by keys: a chain this long is a loop, not a delegation. */
const MAX_CHAIN = 16;

async function ownerOfCreator(teamId: string, createdBy: string, depth = 0): Promise<CredentialOwner | undefined> {
  if (isOperatorId(createdBy)) return OPERATOR_OWNER;
  const member = await Members.find(teamId, createdBy);
  if (member) return memberOwner(member);
  // A key's service account (it exists while its key is active): the creating key's owner owns this one too.
  const account = await getItem(keys.serviceAccount(teamId, createdBy));
  if (!account || depth >= MAX_CHAIN) return undefined;
  const creatingKey = await ApiKeys.find(teamId, String(account.keyId));
  if (!creatingKey) return undefined;
  return creatingKey.owner ?? ownerOfCreator(teamId, creatingKey.createdBy, depth + 1);
}

function ignoreGone(error: unknown): void {
  if (!(error instanceof ConflictError || error instanceof NotFoundError)) throw error;
}

async function migrateKey(item: Item, result: CredentialOwnerMigration): Promise<void> {
  const teamId = String(item.teamId);
  const owner = await ownerOfCreator(teamId, String(item.createdBy));
  try {
    if (owner) {
      await ApiKeys.handOver(teamId, String(item.id), owner, MIGRATION);
      result.keys += 1;
    } else {
      await ApiKeys.revoke(teamId, String(item.id), { manager: MIGRATION });
      result.revokedKeys += 1;
    }
  } catch (error) {
    ignoreGone(error);
  }
}

async function migratePolicy(item: Item, result: CredentialOwnerMigration): Promise<void> {
  const teamId = String(item.teamId);
  const policy = await TrustPolicyStore.get(teamId, String(item.id));
  if (!policy || policy.owner) return;
  const owner = await ownerOfCreator(teamId, policy.createdBy);
  try {
    if (owner) {
      if (await TrustPolicies.handOver(teamId, policy, owner, MIGRATION)) result.policies += 1;
    } else {
      await TrustPolicies.delete(teamId, policy.id, { manager: MIGRATION });
      result.deletedPolicies += 1;
    }
  } catch (error) {
    ignoreGone(error);
  }
}

export async function migrateCredentialOwners(): Promise<CredentialOwnerMigration> {
  const result: CredentialOwnerMigration = { keys: 0, policies: 0, revokedKeys: 0, deletedPolicies: 0 };
  const unowned = scanPages({
    // Active keys and policies without an owner (a revoked key acts for nobody anyway).
    expression:
      '((#entity = :key AND attribute_not_exists(#revokedAt)) OR #entity = :policy) AND attribute_not_exists(#owner)',
    names: { '#entity': 'entity', '#revokedAt': 'revokedAt', '#owner': 'owner' },
    values: { ':key': 'ApiKey', ':policy': 'TrustPolicy' },
  });
  for await (const page of unowned) {
    for (const item of page) {
      if (parseOwner(item.owner)) continue;
      if (item.entity === 'ApiKey') await migrateKey(item, result);
      else await migratePolicy(item, result);
    }
  }
  return result;
}

/** Runs the migration unless this table's marker says it is done; writes the marker after a complete run. */
export function ensureCredentialOwners(): Promise<CredentialOwnerMigration | undefined> {
  return runOnce(keys.credentialOwnerMigration(CREDENTIAL_OWNER_VERSION), migrateCredentialOwners);
}
