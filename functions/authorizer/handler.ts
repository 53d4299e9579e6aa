/**
 * REQUEST authorizer (BRIEF decision 6). No result caching is configured on
 * the API, so each request is checked and revocation takes effect at once.
 * Throwing "Unauthorized" makes API Gateway answer 401 with the UNAUTHORIZED
 * gateway response. The key and its hash are never logged. The result names
 * the team's usage-plan key, which carries the per-team throttle.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ApiKeys } from '../../shared/identity/api-keys';
import { toAuthorizerContext } from '../../shared/http/authorizer-context';
import { usageIdentifierOf } from '../../shared/identity/team-quota';
import { logger } from '../../shared/logger';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  const rawKey = header ? BEARER.exec(header)?.[1] : undefined;
  const key = rawKey ? await ApiKeys.authenticate(rawKey) : undefined;
  if (!key) {
    logger.info('authorization rejected', { reason: rawKey ? 'unknown, expired or revoked key' : 'missing or malformed Authorization header' });
    throw new Error('Unauthorized');
  }
  return {
    principalId: key.serviceAccountId,
    policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }] },
    context: toAuthorizerContext(key),
    // apiKeySource AUTHORIZER: API Gateway throttles the request with this team's usage-plan key.
    usageIdentifierKey: usageIdentifierOf(key.teamId),
  };
}
