/**
 * OIDC trust policies and the token exchange (docs/oidc.md). A policy says
 * which CI tokens a team trusts (issuer, audience, claims) and what a trusted
 * job may do (scopes, token lifetime).
 */
import * as z from 'zod';
import { SCOPES } from '../identity/scopes';
import { credentialNameSchema, oneLine } from './common';
import { credentialOwnerSchema } from './workspace';

/** GitHub Actions' OIDC issuer, the default of a policy. */
export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';

/**
 * Scopes a policy may grant: the spec's ("Authentication" → Scopes). Our own
 * `settings:*` stay out, so a CI job can never manage trust policies or keys, and
 * `cra:*` too: regulatory reports are people's work, not a pipeline's.
 */
export const WORKLOAD_SCOPES = SCOPES.filter(
  (scope) => !scope.startsWith('settings:') && !scope.startsWith('cra:'),
) as Exclude<(typeof SCOPES)[number], `settings:${string}` | `cra:${string}`>[];

export const MAX_TOKEN_TTL_MINUTES = 60;
export const DEFAULT_TOKEN_TTL_MINUTES = 15;

const idClaim = z
  .string()
  .regex(
    /^\d{1,20}$/,
    'must be a numeric id as a string, e.g. "123456" (GitHub\'s ids, not names: a name can be re-registered)',
  );
/** Glob-style: `*` any run of characters, `?` one character; matched by shared/service/identity/glob.ts (no regex). */
const claimPattern = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[!-~]+$/, 'printable ASCII without spaces; `*` and `?` are the only wildcards');

export const trustPolicyClaimsSchema = z
  .strictObject({
    repository_owner_id: idClaim.optional(),
    repository_id: idClaim.optional(),
    sub: claimPattern.optional(),
    ref: claimPattern.optional(),
    job_workflow_ref: claimPattern.optional(),
    environment: claimPattern.optional(),
  })
  .refine((claims) => claims.repository_owner_id !== undefined || claims.repository_id !== undefined, {
    message:
      'name repository_owner_id or repository_id: a policy without an exact owner or repository would trust every workflow of the issuer',
  })
  .meta({ id: 'TrustPolicyClaims' });
export type TrustPolicyClaims = z.infer<typeof trustPolicyClaimsSchema>;

export const createTrustPolicyBody = z
  .strictObject({
    name: credentialNameSchema,
    issuer: z
      .url({ protocol: /^https?$/ })
      .max(512)
      .default(GITHUB_ACTIONS_ISSUER),
    audience: oneLine(z.string().min(1).max(256)),
    claims: trustPolicyClaimsSchema,
    scopes: z.array(z.enum(WORKLOAD_SCOPES)).min(1),
    ttlMinutes: z.number().int().min(1).max(MAX_TOKEN_TTL_MINUTES).default(DEFAULT_TOKEN_TTL_MINUTES),
  })
  .meta({ id: 'CreateTrustPolicy' });
export type CreateTrustPolicyInput = z.input<typeof createTrustPolicyBody>;

export const trustPolicySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    issuer: z.string(),
    audience: z.string(),
    claims: trustPolicyClaimsSchema,
    scopes: z.array(z.enum(WORKLOAD_SCOPES)),
    ttlMinutes: z.number().int(),
    createdAt: z.string(),
    createdBy: z.string().meta({ description: "The audit actor that created it (a key's service account, a member)" }),
    owner: credentialOwnerSchema.nullable().meta({
      description:
        "The person its CI tokens act for: its creator (a key's owner), or the manager it was handed to; they act with at most this person's current permissions. Null only for a policy made before owners were recorded, until `table migrate` runs",
    }),
  })
  .meta({ id: 'TrustPolicy' });
export type TrustPolicy = z.infer<typeof trustPolicySchema>;

export const trustPolicyIdParams = z.object({ policyId: z.uuid() });

export const oidcTokenExchangeBody = z
  .strictObject({
    /** The CI job's OIDC token (a JWT), e.g. from GitHub's ACTIONS_ID_TOKEN_REQUEST_URL. */
    token: z.string().min(1).max(16_384),
    /** The team whose trust policies decide; the token never picks the team. */
    teamId: z.uuid(),
    /** Optional: only this policy of the team is tried. */
    policyId: z.uuid().optional(),
  })
  .meta({ id: 'OidcTokenExchange' });

export const oidcTokenResponse = z
  .object({
    data: z.object({
      token: z.string(),
      tokenType: z.literal('Bearer'),
      expiresAt: z.string(),
      expiresIn: z.number().int(),
      scopes: z.array(z.string()),
      teamId: z.uuid(),
      policyId: z.uuid(),
    }),
  })
  .meta({ id: 'OidcTokenResponse' });
