/**
 * REQUEST authorizer. No result caching is
 * configured on the API, so each request is checked and revocation takes
 * effect at once. A Bearer credential comes first, told apart by prefix: API keys
 * (`vxd_…`) and tokens issued by the OIDC exchange (`vxo_…`, refused once
 * expired or when their trust policy is deleted). Only a request without an
 * Authorization header may use the browser session cookie (spec "Authentication"
 * rule 2); a cookie request that changes state must also carry the session's
 * CSRF token and the console's Origin, or it is denied (403). Throwing "Unauthorized"
 * makes API Gateway answer 401 with the UNAUTHORIZED gateway response. No
 * credential or hash is ever logged. The result names the team's usage-plan
 * key, which carries the per-team throttle.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { config } from '../../shared/service/config';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { csrfTokenMatches, Sessions } from '../../shared/service/identity/sessions';
import { WORKLOAD_TOKEN_PREFIX, WorkloadTokens } from '../../shared/service/identity/workload-tokens';
import {
  sessionAuthorizerContext,
  toAuthorizerContext,
  workloadAuthorizerContext,
  type AuthorizerContext,
} from '../../shared/service/http/authorizer-context';
import { cookiePolicy, isUnsafeMethod, parseCookies } from '../../shared/service/http/cookies';
import { originMatches } from '../../shared/service/identity/sign-in-rules';
import { usageIdentifierOf } from '../../shared/service/identity/team-quota';
import { logger } from '../../shared/service/logger';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const { publicBaseUrl } = config();
const cookies = cookiePolicy(publicBaseUrl);

async function resolve(credential: string): Promise<AuthorizerContext | undefined> {
  if (credential.startsWith(WORKLOAD_TOKEN_PREFIX)) {
    const workload = await WorkloadTokens.authenticate(credential);
    return workload ? workloadAuthorizerContext(workload) : undefined;
  }
  const key = await ApiKeys.authenticate(credential);
  return key ? toAuthorizerContext(key) : undefined;
}

function header(event: APIGatewayRequestAuthorizerEvent, name: string): string | undefined {
  return Object.entries(event.headers ?? {}).find(([candidate]) => candidate.toLowerCase() === name)?.[1];
}

function policy(
  event: APIGatewayRequestAuthorizerEvent,
  context: AuthorizerContext,
  effect: 'Allow' | 'Deny',
): APIGatewayAuthorizerResult {
  return {
    principalId: context.serviceAccountId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: event.methodArn }],
    },
    context,
    // apiKeySource AUTHORIZER: API Gateway throttles the request with this team's usage-plan key.
    usageIdentifierKey: usageIdentifierOf(context.teamId),
  };
}

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const authorization = header(event, 'authorization');
  if (authorization !== undefined) {
    const credential = BEARER.exec(authorization)?.[1];
    const context = credential ? await resolve(credential) : undefined;
    if (!context) {
      logger.info('authorization rejected', {
        reason: credential ? 'unknown, expired or revoked credential' : 'malformed Authorization header',
      });
      throw new Error('Unauthorized');
    }
    return policy(event, context, 'Allow');
  }
  const sessionId = parseCookies(header(event, 'cookie')).get(cookies.sessionCookie);
  const session = sessionId ? await Sessions.authenticate(sessionId) : undefined;
  if (!sessionId || !session) {
    logger.info('authorization rejected', {
      reason: sessionId ? 'unknown, expired or ended session' : 'no credential',
    });
    throw new Error('Unauthorized');
  }
  const context = sessionAuthorizerContext(session);
  if (
    isUnsafeMethod(event.httpMethod) &&
    (!originMatches(header(event, 'origin'), publicBaseUrl) ||
      !csrfTokenMatches(sessionId, header(event, 'x-csrf-token')))
  ) {
    logger.info('authorization denied', {
      reason: 'cookie request changing state without the CSRF token and the console origin',
    });
    return policy(event, context, 'Deny');
  }
  return policy(event, context, 'Allow');
}
