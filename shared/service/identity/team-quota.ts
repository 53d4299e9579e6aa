/**
 * Per-team request quota: every team is one API Gateway
 * usage-plan API key, so one tenant cannot use up the stage-wide budget. The
 * Lambda authorizer returns the team's usage identifier as
 * `usageIdentifierKey` (REST API `apiKeySource: AUTHORIZER`); API Gateway
 * throttles each key with its usage plan's token bucket (rate, burst) and
 * answers 429 THROTTLED. The local emulator keeps the same buckets.
 *
 * The quota in force is the stack default (TEAM_RATE_LIMIT / TEAM_BURST_LIMIT,
 * from lib/settings.ts) unless an operator set an override on the team item;
 * on AWS the admin CLI mirrors that override into a per-team usage plan.
 */
import * as z from 'zod';
import { keys } from '../data/keys';
import { getItem, transactWrite, tx } from '../data/table-client';
import { auditPut, diffChanges } from '../audit/audit-log';
import { config } from '../config';
import type { ThrottleQuota } from './throttle-quota';
import type { Actor } from './actor';
import { Teams, type Team } from './teams';

export interface TeamQuota extends ThrottleQuota {
  /** `default`: the stack's setting; `team`: an operator's override for this team. */
  source: 'default' | 'team';
}

/** API Gateway's own bounds for stage and usage-plan throttles (account default 10,000 rps, burst 5,000). */
export const throttleQuotaSchema = z.strictObject({
  rateLimit: z.int().min(1).max(10_000),
  burstLimit: z.int().min(1).max(5_000),
});

const USAGE_IDENTIFIER_PREFIX = 'vxdteam';
const USAGE_IDENTIFIER = /^vxdteam([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/;

/**
 * The team's usage-plan API key value. Derived from the team id rather than
 * stored, so the authorizer needs no extra read and every team, old ones
 * included, has one. It is not a credential: with `apiKeySource: AUTHORIZER`
 * API Gateway ignores `X-API-Key` and only the authorizer can name a key.
 * API Gateway key values are 20–128 alphanumeric characters, hence no dashes.
 */
export function usageIdentifierOf(teamId: string): string {
  return `${USAGE_IDENTIFIER_PREFIX}${teamId.toLowerCase().replace(/-/g, '')}`;
}

/** The team id a usage identifier names, or undefined for a value no team can have. */
export function teamIdOfUsageIdentifier(identifier: string): string | undefined {
  const parts = USAGE_IDENTIFIER.exec(identifier);
  return parts ? parts.slice(1, 6).join('-') : undefined;
}

export function defaultTeamQuota(): ThrottleQuota {
  const { teamRateLimit, teamBurstLimit } = config();
  return { rateLimit: teamRateLimit, burstLimit: teamBurstLimit };
}

function resolveQuota(stored: unknown): TeamQuota {
  const override = throttleQuotaSchema.safeParse(stored);
  return override.success ? { ...override.data, source: 'team' } : { ...defaultTeamQuota(), source: 'default' };
}

export function quotaOfTeam(team: Team): TeamQuota {
  return resolveQuota(team.throttle);
}

export const TeamQuotas = {
  async get(teamId: string): Promise<TeamQuota> {
    return quotaOfTeam(await Teams.get(teamId));
  },

  /**
   * The quota of a usage identifier, as API Gateway's usage plans know it;
   * undefined when no team has that identifier (API Gateway: 403 INVALID_API_KEY).
   */
  async ofUsageIdentifier(identifier: string): Promise<ThrottleQuota | undefined> {
    const teamId = teamIdOfUsageIdentifier(identifier);
    if (!teamId) return undefined;
    const item = await getItem(keys.team(teamId));
    if (!item) return undefined;
    const { rateLimit, burstLimit } = resolveQuota(item.throttle);
    return { rateLimit, burstLimit };
  },

  /** Sets (or with `null` removes) the team's override; audited like every settings change. */
  async set(teamId: string, quota: ThrottleQuota | null, actor: Actor): Promise<TeamQuota> {
    const team = await Teams.get(teamId);
    const before = resolveQuota(team.throttle);
    const next = quota === null ? null : throttleQuotaSchema.parse(quota);
    const after = resolveQuota(next);
    await transactWrite([
      next === null
        ? tx.update(
            keys.team(teamId),
            'REMOVE #throttle',
            { '#throttle': 'throttle' },
            undefined,
            'attribute_exists(pk)',
          )
        : tx.update(
            keys.team(teamId),
            'SET #throttle = :throttle',
            { '#throttle': 'throttle' },
            { ':throttle': next },
            'attribute_exists(pk)',
          ),
      auditPut(teamId, actor, {
        action: 'update',
        entityType: 'team_quota',
        entityId: teamId,
        entityName: team.name,
        changes: diffChanges({ ...before }, { ...after }),
      }),
    ]);
    return after;
  },
};
