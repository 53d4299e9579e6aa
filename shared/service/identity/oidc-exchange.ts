/**
 * The OIDC token exchange (docs/oidc.md): a CI job's OIDC token
 * (GitHub Actions by default) becomes a short-lived bearer token with the
 * scopes of the team's trust policy it satisfies. The request names the team;
 * the token never chooses it, and a policy of another team never matches.
 *
 * Order of checks: well-formed JWT with an allowed algorithm → a policy of the
 * team trusts its issuer → signature against the issuer's JWKS, `iss`, `exp`,
 * `nbf`, `iat` (60 s skew) → audience of some policy → that policy's claims →
 * `jti` unused. Each refusal is a 401 with one stable code (OIDC_REFUSALS);
 * which finer check failed is logged, not answered.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { auditPut } from '../audit/audit-log';
import { config } from '../config';
import { AppError, ServiceUnavailableError } from '../errors';
import { logger } from '../logger';
import type { TrustPolicy } from '../schemas/trust-policies';
import { issuerKeys, IssuerUnavailableError } from './oidc-issuers';
import { claimsMatch } from './trust-policies';
import { TrustPolicyStore } from './trust-policy-store';
import { workloadActor, WORKLOAD_TOKEN_PREFIX, hashWorkloadToken } from './workload-tokens';
import { JtiReplayedError, WorkloadTokenStore, type WorkloadTokenRecord } from './workload-token-store';

/** Asymmetric algorithms only: never `none`, never HS* (a shared secret would be the public JWKS). */
export const ALLOWED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
const CLOCK_SKEW_SECONDS = 60;
/** GitHub's tokens live 5 minutes; an older `iat` is refused even if `exp` says otherwise. */
const MAX_TOKEN_AGE_SECONDS = 15 * 60;

/** The refusal codes a client sees, and what each tells the workflow's author to fix. */
export const OIDC_REFUSALS = {
  invalid_token:
    'The OIDC token is not a JWT signed by its issuer with an allowed algorithm; send the token exactly as the CI provider issued it.',
  untrusted_issuer: "No trust policy of this team trusts the token's issuer.",
  token_expired:
    'The OIDC token is expired, not yet valid, or too old; request a fresh token right before the exchange.',
  invalid_audience:
    "The token's audience is not the audience of a trust policy of this team; request the token with the policy's audience.",
  no_matching_policy:
    "The token's claims (repository, ref, workflow, environment) satisfy no trust policy of this team, or the named policy does not exist.",
  token_replayed: 'This OIDC token was already exchanged; request a new token for each exchange.',
} as const;
export type OidcRefusalCode = keyof typeof OIDC_REFUSALS;

export class OidcTokenRefusedError extends AppError {
  constructor(code: OidcRefusalCode) {
    super(401, code, OIDC_REFUSALS[code]);
  }
}

export interface ExchangeRequest {
  token: string;
  teamId: string;
  policyId?: string | undefined;
}

export interface IssuedWorkloadToken {
  token: string;
  tokenType: 'Bearer';
  expiresAt: string;
  expiresIn: number;
  scopes: string[];
  teamId: string;
  policyId: string;
}

function refuse(code: OidcRefusalCode, detail: string): never {
  logger.info('oidc exchange refused', { code, detail });
  throw new OidcTokenRefusedError(code);
}

function unverifiedParts(token: string): { alg: unknown; iss: unknown } {
  try {
    const header = decodeProtectedHeader(token);
    const payload = decodeJwt(token);
    return { alg: header.alg, iss: payload.iss };
  } catch {
    return refuse('invalid_token', 'not a compact JWS with a JSON payload');
  }
}

function audiencesOf(payload: JWTPayload): string[] {
  if (typeof payload.aud === 'string') return [payload.aud];
  return Array.isArray(payload.aud) ? payload.aud.filter((aud): aud is string => typeof aud === 'string') : [];
}

async function verify(token: string, issuer: string): Promise<JWTPayload> {
  try {
    const getKey = await issuerKeys(issuer, config().allowLoopbackIssuers);
    const { payload } = await jwtVerify(token, getKey, {
      issuer,
      algorithms: ALLOWED_ALGORITHMS,
      clockTolerance: CLOCK_SKEW_SECONDS,
      maxTokenAge: MAX_TOKEN_AGE_SECONDS,
      requiredClaims: ['exp', 'iat', 'jti', 'sub'],
    });
    return payload;
  } catch (error) {
    if (error instanceof IssuerUnavailableError) {
      throw new ServiceUnavailableError(
        'issuer_unavailable',
        "The OIDC issuer's discovery document or key set could not be read; try again later.",
      );
    }
    if (error instanceof errors.JWTExpired) return refuse('token_expired', error.message);
    if (error instanceof errors.JWTClaimValidationFailed && ['nbf', 'iat'].includes(error.claim))
      return refuse('token_expired', error.message);
    if (error instanceof errors.JOSEError) return refuse('invalid_token', `${error.code}: ${error.message}`);
    throw error;
  }
}

export const OidcExchange = {
  async exchange(request: ExchangeRequest, now = new Date()): Promise<IssuedWorkloadToken> {
    const { alg, iss } = unverifiedParts(request.token);
    if (typeof alg !== 'string' || !ALLOWED_ALGORITHMS.includes(alg))
      refuse('invalid_token', `algorithm ${String(alg)} not allowed`);
    if (typeof iss !== 'string') refuse('invalid_token', 'no iss claim');
    let policies: TrustPolicy[];
    if (request.policyId) {
      const policy = await TrustPolicyStore.get(request.teamId, request.policyId);
      policies = policy ? [policy] : [];
    } else {
      policies = await TrustPolicyStore.list(request.teamId);
    }
    if (policies.length === 0) refuse('no_matching_policy', 'the team has no such policy');
    const trusting = policies.filter((policy) => policy.issuer === iss);
    if (trusting.length === 0) refuse('untrusted_issuer', `issuer ${iss} not trusted`);

    const payload = await verify(request.token, iss);
    const audiences = audiencesOf(payload);
    const forAudience = trusting.filter((policy) => audiences.includes(policy.audience));
    if (forAudience.length === 0) refuse('invalid_audience', `audience ${audiences.join(',')} not trusted`);
    const policy = forAudience.find((candidate) => claimsMatch(candidate.claims, payload));
    if (!policy) refuse('no_matching_policy', `sub ${String(payload.sub)} matches no policy`);

    const rawToken = `${WORKLOAD_TOKEN_PREFIX}${randomBytes(32).toString('hex')}`;
    const expiresAt = new Date(now.getTime() + policy.ttlMinutes * 60_000);
    const claim = (name: string): string | null => {
      const value = payload[name];
      return typeof value === 'string' ? value : null;
    };
    const record: WorkloadTokenRecord = {
      id: randomUUID(),
      tokenHash: hashWorkloadToken(rawToken),
      teamId: request.teamId,
      policyId: policy.id,
      policyName: policy.name,
      scopes: policy.scopes,
      issuedAt: now.toISOString(),
      expiresAt: expiresAt.toISOString(),
      repository: claim('repository'),
      ref: claim('ref'),
      runId: claim('run_id'),
    };
    // The jti stays claimed until the CI token itself can no longer pass `exp` (with the skew).
    const jti = {
      hash: createHash('sha256')
        .update(`${iss}\n${String(payload.jti)}`)
        .digest('hex'),
      expiresAtEpoch: Number(payload.exp) + CLOCK_SKEW_SECONDS,
    };
    try {
      await WorkloadTokenStore.issue(
        record,
        jti,
        auditPut(request.teamId, workloadActor(record), {
          action: 'exchange',
          entityType: 'workload_token',
          entityId: record.id,
          entityName: policy.name,
          changes: {
            policyId: policy.id,
            scopes: record.scopes,
            expiresAt: record.expiresAt,
            sub: payload.sub,
            repository: record.repository,
            ref: record.ref,
            runId: record.runId,
          },
        }),
      );
    } catch (error) {
      if (error instanceof JtiReplayedError) refuse('token_replayed', 'jti already used');
      throw error;
    }
    return {
      token: rawToken,
      tokenType: 'Bearer',
      expiresAt: record.expiresAt,
      expiresIn: policy.ttlMinutes * 60,
      scopes: record.scopes,
      teamId: record.teamId,
      policyId: policy.id,
    };
  },
};
