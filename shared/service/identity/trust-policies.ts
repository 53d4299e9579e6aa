/**
 * OIDC trust policies (docs/oidc.md): which CI tokens a team trusts
 * and what a trusted job may do. Created and deleted by managers (shared/service/identity/grants.ts):
 * members holding `settings.manage` (in the console, with their keys, or the admin CLI's `--by`) and the
 * operator; a policy grants at most what its creator holds. A policy records its owner, the person its
 * CI tokens act for, and its tokens act with at most that person's current permissions. Every change is audited.
 */
import { randomUUID } from 'node:crypto';
import { auditPut } from '../audit/audit-log';
import { config } from '../config';
import { NotFoundError, ValidationError } from '../errors';
import { createTrustPolicyBody, type TrustPolicy, type TrustPolicyClaims } from '../schemas/trust-policies';
import type { Actor } from './actor';
import type { CredentialOwner } from './credential-owner';
import { globMatch } from './glob';
import { assertGrantable, authorizeManager, type Manager, type ManagerRequest } from './grants';
import { issuerUrlProblem } from './issuer-url';
import { TrustPolicyStore } from './trust-policy-store';
import { Teams } from './teams';

/** The admin CLI's `--by MEMBER_ID`: acts as that member, who must hold `settings.manage` (checked when it acts). */
export function managerOf(teamId: string, byMemberId: string | undefined, operator: Actor): Promise<ManagerRequest> {
  return Promise.resolve({ operator, byMemberId });
}

/** Exact ids and glob patterns of a policy against a verified token's claims (all must hold). */
export function claimsMatch(required: TrustPolicyClaims, claims: Record<string, unknown>): boolean {
  const exact = ['repository_owner_id', 'repository_id'] as const;
  const patterns = ['sub', 'ref', 'job_workflow_ref', 'environment'] as const;
  for (const name of exact) {
    const want = required[name];
    if (want !== undefined && claims[name] !== want) return false;
  }
  for (const name of patterns) {
    const pattern = required[name];
    if (pattern === undefined) continue;
    const value = claims[name];
    if (typeof value !== 'string' || !globMatch(pattern, value)) return false;
  }
  return true;
}

export const TrustPolicies = {
  async create(teamId: string, rawInput: unknown, request: ManagerRequest): Promise<TrustPolicy> {
    const parsed = createTrustPolicyBody.safeParse(rawInput);
    if (!parsed.success) {
      throw new ValidationError(
        'Invalid trust policy',
        parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      );
    }
    const input = parsed.data;
    const issuerProblem = issuerUrlProblem(input.issuer, config().allowLoopbackIssuers);
    if (issuerProblem) throw new ValidationError('Invalid trust policy', [{ path: 'issuer', message: issuerProblem }]);
    await Teams.get(teamId);
    const manager = await authorizeManager(teamId, request);
    const scopes = [...new Set(input.scopes)];
    assertGrantable(manager, scopes, 'A trust policy');
    const policy: TrustPolicy = {
      id: randomUUID(),
      name: input.name,
      issuer: input.issuer,
      audience: input.audience,
      claims: input.claims,
      scopes,
      ttlMinutes: input.ttlMinutes,
      createdAt: new Date().toISOString(),
      createdBy: manager.actor.id,
      owner: manager.owner,
    };
    await TrustPolicyStore.create(
      teamId,
      policy,
      auditPut(teamId, manager.actor, {
        action: 'create',
        entityType: 'trust_policy',
        entityId: policy.id,
        entityName: policy.name,
        changes: {
          issuer: policy.issuer,
          audience: policy.audience,
          claims: policy.claims,
          scopes: policy.scopes,
          ttlMinutes: policy.ttlMinutes,
          owner: policy.owner,
        },
      }),
    );
    return policy;
  },

  async list(teamId: string): Promise<TrustPolicy[]> {
    return TrustPolicyStore.list(teamId);
  },

  /** Deleting a policy ends every token issued under it at once (the authorizer checks the policy per request). */
  async delete(teamId: string, policyId: string, request: ManagerRequest): Promise<void> {
    const policy = await TrustPolicyStore.get(teamId, policyId);
    if (!policy) throw new NotFoundError('Trust policy');
    const manager = await authorizeManager(teamId, request);
    const deleted = await TrustPolicyStore.delete(
      teamId,
      policyId,
      auditPut(teamId, manager.actor, {
        action: 'delete',
        entityType: 'trust_policy',
        entityId: policy.id,
        entityName: policy.name,
        changes: { issuer: policy.issuer, scopes: policy.scopes },
      }),
    );
    if (!deleted) throw new NotFoundError('Trust policy');
  },

  /** Hands a policy to another owner (a manager taking over a removed member's policies); false when it is gone. */
  async handOver(teamId: string, policy: TrustPolicy, heir: CredentialOwner, manager: Manager): Promise<boolean> {
    return TrustPolicyStore.setOwner(
      teamId,
      policy.id,
      heir,
      auditPut(teamId, manager.actor, {
        action: 'hand_over',
        entityType: 'trust_policy',
        entityId: policy.id,
        entityName: policy.name,
        changes: { owner: { from: policy.owner, to: heir } },
      }),
    );
  },
};
