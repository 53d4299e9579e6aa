import * as z from 'zod';
import { csafProviderSettingBody, csafPublisherSchema } from './csaf-provider';
import { CARRY_OVER_SETTINGS } from '../dispositions/carry-over-setting';
import { SESSION_TIMEOUT_BOUNDS, type SessionTimeouts } from '../identity/session-timeout-rules';
import { craSettingsBody, craSettingsSchema } from './cra-settings';

const { idleMinutes, absoluteMinutes } = SESSION_TIMEOUT_BOUNDS;

/** Browser-session timeouts (shared/service/identity/session-timeout-rules.ts holds the bounds and defaults). */
export const sessionTimeoutsSchema = z
  .strictObject({
    /** Minutes without a request after which a browser session ends (default 480, 8 hours). */
    idleMinutes: z.number().int().min(idleMinutes.min).max(idleMinutes.max),
    /** Minutes from sign-in after which a browser session ends however active (default 10080, 7 days). */
    absoluteMinutes: z.number().int().min(absoluteMinutes.min).max(absoluteMinutes.max),
  })
  .meta({ id: 'SessionTimeouts' }) satisfies z.ZodType<SessionTimeouts>;

export const slaPolicySchema = z
  .strictObject({
    /** Days from first detection to a final disposition, per severity. */
    critical: z.number().int().min(1).max(3650),
    high: z.number().int().min(1).max(3650),
    medium: z.number().int().min(1).max(3650),
    low: z.number().int().min(1).max(3650),
    /** Known-exploited findings get their own, usually shorter, limit. */
    kev: z.number().int().min(1).max(3650),
    /** A finding is "at risk" when this share of its window has elapsed (0-1). */
    atRiskRatio: z.number().min(0.1).max(0.99),
  })
  .meta({ id: 'SlaPolicy' });

export const teamSettingsBody = z
  .strictObject({
    requireDistinctApprover: z.boolean().optional(),
    /** Hide informational findings (RustSec `unsound`/`unmaintained` notices) from vulnerability lists and the compliance report. */
    hideInformational: z.boolean().optional(),
    /** How far a release's scan carries decisions from earlier releases of the product (docs/triage-continuity.md). */
    carryOver: z.enum(CARRY_OVER_SETTINGS).optional(),
    slaPolicy: slaPolicySchema.partial().optional(),
    /** The team's CSAF trusted provider (docs/csaf-provider.md); null removes it. */
    csafProvider: csafProviderSettingBody.optional(),
    /** Browser-session timeouts (docs/sign-in.md "Sessions"); a shorter value ends running sessions at once. */
    sessionTimeouts: sessionTimeoutsSchema.partial().optional(),
    /** The manufacturer's CRA details (docs/cra-reporting.md); only supplied fields change. */
    cra: craSettingsBody.optional(),
  })
  .meta({ id: 'UpdateTeamSettings' });

/** The team's CSAF trusted provider as the settings show it (docs/csaf-provider.md). */
export const csafProviderSchema = z
  .object({
    directory: z.string(),
    publisher: csafPublisherSchema,
    providerMetadataUrl: z.string().meta({ description: "What the team's security.txt names in its `CSAF:` line" }),
    wellKnown: z
      .boolean()
      .meta({ description: 'Whether this deployment also serves it at /.well-known/csaf/provider-metadata.json' }),
  })
  .meta({ id: 'CsafProvider' });
export type CsafProviderView = z.infer<typeof csafProviderSchema>;

/** `GET`/`PUT /api/settings`: the settings in force, defaults filled in. */
export const teamSettingsSchema = z
  .object({
    requireDistinctApprover: z.boolean(),
    slaPolicy: slaPolicySchema,
    hideInformational: z.boolean(),
    carryOver: z.enum(CARRY_OVER_SETTINGS),
    throttle: z
      .object({
        rateLimit: z.number(),
        burstLimit: z.number(),
        source: z.enum(['default', 'team']).meta({ description: "`team`: an operator's override for this team" }),
      })
      .meta({ description: 'Read-only: the per-team request quota (429 with Retry-After beyond it)' }),
    csafProvider: csafProviderSchema.nullable(),
    sessionTimeouts: sessionTimeoutsSchema,
    cra: craSettingsSchema,
  })
  .meta({ id: 'TeamSettings' });
export type TeamSettingsView = z.infer<typeof teamSettingsSchema>;

export const teamSettingsResponse = z.object({ data: teamSettingsSchema }).meta({ id: 'TeamSettingsResponse' });
