/**
 * Data module of OIDC trust policies: the only code that reads or writes
 * their items (keys from shared/service/data/keys.ts).
 */
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
import { trustPolicyClaimsSchema, type TrustPolicy } from '../schemas/trust-policies';
import { parseOwner, type CredentialOwner } from './credential-owner';

function toPolicy(item: Item): TrustPolicy {
  return {
    id: String(item.id),
    name: String(item.name),
    issuer: String(item.issuer),
    audience: String(item.audience),
    claims: trustPolicyClaimsSchema.parse(item.claims),
    scopes: item.scopes as TrustPolicy['scopes'],
    ttlMinutes: Number(item.ttlMinutes),
    createdAt: String(item.createdAt),
    createdBy: String(item.createdBy),
    owner: parseOwner(item.owner) ?? null,
  };
}

export const TrustPolicyStore = {
  /** Writes the policy with its audit entry, in one transaction. */
  async create(teamId: string, policy: TrustPolicy, audit: TransactItem): Promise<void> {
    await transactWrite([
      tx.create({ ...keys.trustPolicy(teamId, policy.id), entity: 'TrustPolicy', teamId, ...policy }),
      audit,
    ]);
  },

  async get(teamId: string, policyId: string): Promise<TrustPolicy | undefined> {
    const item = await getItem(keys.trustPolicy(teamId, policyId));
    return item ? toPolicy(item) : undefined;
  },

  /** Gives the policy another owner, with its audit entry; false when it was deleted meanwhile. */
  async setOwner(teamId: string, policyId: string, owner: CredentialOwner, audit: TransactItem): Promise<boolean> {
    try {
      await transactWrite([
        tx.update(
          keys.trustPolicy(teamId, policyId),
          'SET #owner = :owner',
          { '#owner': 'owner' },
          { ':owner': owner },
          'attribute_exists(pk)',
        ),
        audit,
      ]);
      return true;
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(0)) return false;
      throw error;
    }
  },

  /** Oldest first (ids are random, so by creation time). */
  async list(teamId: string): Promise<TrustPolicy[]> {
    const { pk, skPrefix } = keys.trustPolicyPrefix(teamId);
    return (await queryAll({ pk, skPrefix }))
      .map(toPolicy)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  },

  /** Deletes the policy with its audit entry; false when it was already gone. */
  async delete(teamId: string, policyId: string, audit: TransactItem): Promise<boolean> {
    try {
      await transactWrite([tx.delete(keys.trustPolicy(teamId, policyId), 'attribute_exists(pk)'), audit]);
      return true;
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(0)) return false;
      throw error;
    }
  },
};
