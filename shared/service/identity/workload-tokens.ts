/**
 * Tokens issued by the OIDC exchange (shared/service/identity/oidc-exchange.ts):
 * `vxo_` + 64 lowercase hex, only the SHA-256 stored (like API keys). The authorizer accepts one while it has not expired, its
 * trust policy still exists (read on every request, so deleting the policy
 * ends its tokens at once) and the policy's owner is still a member; it acts
 * with those of its scopes the owner holds now (shared/service/identity/credential-owner.ts).
 * Actions are attributed to the policy, with the CI job's repository, ref and run id.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Actor } from './actor';
import { capScopes, ownerScopesNow } from './credential-owner';
import { TrustPolicyStore } from './trust-policy-store';
import { WorkloadTokenStore, type WorkloadTokenRecord } from './workload-token-store';

export const WORKLOAD_TOKEN_PREFIX = 'vxo_';
export const WORKLOAD_TOKEN_PATTERN = /^vxo_[0-9a-f]{64}$/;

export interface AuthenticatedWorkload {
  teamId: string;
  tokenId: string;
  policyId: string;
  actor: Actor;
  /** The token's scopes its policy's owner holds now. */
  scopes: string[];
  expiresAt: string;
  /** The person the token acts for: its policy's owner. */
  personId: string;
}

export function hashWorkloadToken(rawToken: string): string {
  return createHash('sha256').update(rawToken, 'utf8').digest('hex');
}

/** The audit actor of a token's actions: the policy, with the job that exchanged its CI token. */
export function workloadActor(
  record: Pick<WorkloadTokenRecord, 'policyId' | 'policyName' | 'repository' | 'ref' | 'runId'>,
): Actor {
  const job = [record.repository, record.ref, record.runId ? `run ${record.runId}` : null].filter(Boolean).join(' ');
  return {
    id: record.policyId,
    name: `oidc_${record.policyName}${job ? ` (${job})` : ''}`,
    email: null,
    kind: 'workload',
  };
}

export const WorkloadTokens = {
  async authenticate(rawToken: string, now = new Date()): Promise<AuthenticatedWorkload | undefined> {
    if (!WORKLOAD_TOKEN_PATTERN.test(rawToken)) return undefined;
    const computed = Buffer.from(hashWorkloadToken(rawToken), 'hex');
    const record = await WorkloadTokenStore.findByHash(computed.toString('hex'));
    if (!record) return undefined;
    const stored = Buffer.from(record.tokenHash, 'hex');
    if (stored.length !== computed.length || !timingSafeEqual(stored, computed)) return undefined;
    // TTL deletion lags: the expiry is checked here, not left to DynamoDB.
    if (Date.parse(record.expiresAt) <= now.getTime()) return undefined;
    const owner = (await TrustPolicyStore.get(record.teamId, record.policyId))?.owner;
    const ownerScopes = owner && (await ownerScopesNow(record.teamId, owner));
    if (!owner || !ownerScopes) return undefined;
    return {
      teamId: record.teamId,
      tokenId: record.id,
      policyId: record.policyId,
      actor: workloadActor(record),
      scopes: capScopes(record.scopes, ownerScopes),
      expiresAt: record.expiresAt,
      personId: owner.id,
    };
  },
};
