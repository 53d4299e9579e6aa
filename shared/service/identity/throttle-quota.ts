/**
 * A team's request quota as API Gateway throttles it (a usage plan's token bucket). A leaf module: no
 * imports, so shared/service/config.ts, the CDK app (lib/settings.ts) and the local emulator can all read it.
 */

export interface ThrottleQuota {
  /** Steady-state requests per second (token refill rate). */
  rateLimit: number;
  /** Bucket size: requests admitted at once after an idle spell. */
  burstLimit: number;
}

/** Default per-team usage-plan throttle: half the default stage limit (100 rps, burst 200), so no one team can take it all. */
export const DEFAULT_TEAM_QUOTA: ThrottleQuota = { rateLimit: 50, burstLimit: 100 };
