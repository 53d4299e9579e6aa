/**
 * OIDC trust policies (issue 10, docs/oidc.md): which CI tokens a team trusts
 * and what a trusted job may do. Created and deleted by members holding
 * `settings.manage` (the admin CLI's `--by`), by the operator, or through the
 * API by a key holding `settings:write`, which only such a member can create;
 * a key cannot hand out scopes it does not hold itself. Every change is audited.
 */
import { randomUUID } from 'node:crypto';
import { auditPut } from '../audit/audit-log';
import { config } from '../config';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { createTrustPolicyBody, type TrustPolicy, type TrustPolicyClaims } from '../schemas/trust-policies';
import type { Actor } from './actor';
import { globMatch } from './glob';
import { issuerUrlProblem } from './issuer-url';
import { TrustPolicyStore } from './trust-policy-store';
import { Members, Teams } from './teams';

/** Who manages a policy: the acting principal and, for an API call, the scopes its credential holds. */
export interface PolicyManager {
  actor: Actor;
  /** Present for API callers: a policy may grant only scopes the caller holds. */
  heldScopes?: readonly string[];
}

/** The admin CLI's `--by MEMBER_ID`: acts as that member, who must hold `settings.manage`. */
export async function managerOf(
  teamId: string,
  byMemberId: string | undefined,
  operator: Actor,
): Promise<PolicyManager> {
  if (byMemberId === undefined) return { actor: operator };
  const member = await Members.find(teamId, byMemberId);
  if (!member) throw new NotFoundError('Member');
  return { actor: Members.actorOf(member) };
}

async function authorize(teamId: string, manager: PolicyManager): Promise<void> {
  if (manager.actor.kind === 'workload')
    throw new ForbiddenError('A token issued through a trust policy cannot manage trust policies');
  if (manager.actor.kind === 'member') {
    const member = await Members.find(teamId, manager.actor.id);
    if (!member?.permissions.includes('settings.manage')) {
      throw new ForbiddenError(
        'Only members holding the settings.manage permission can create or delete trust policies',
      );
    }
  }
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
  async create(teamId: string, rawInput: unknown, manager: PolicyManager): Promise<TrustPolicy> {
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
    await authorize(teamId, manager);
    const scopes = [...new Set(input.scopes)];
    if (manager.heldScopes) {
      const missing = scopes.filter((scope) => !manager.heldScopes?.includes(scope));
      if (missing.length > 0)
        throw new ForbiddenError(`A trust policy cannot grant scopes the caller does not hold: ${missing.join(', ')}`);
    }
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
        },
      }),
    );
    return policy;
  },

  async list(teamId: string): Promise<TrustPolicy[]> {
    return TrustPolicyStore.list(teamId);
  },

  /** Deleting a policy ends every token issued under it at once (the authorizer checks the policy per request). */
  async delete(teamId: string, policyId: string, manager: PolicyManager): Promise<void> {
    const policy = await TrustPolicyStore.get(teamId, policyId);
    if (!policy) throw new NotFoundError('Trust policy');
    await authorize(teamId, manager);
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
};
