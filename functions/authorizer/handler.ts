/**
 * REQUEST authorizer (BRIEF decisions 6 and 10). No result caching is
 * configured on the API, so each request is checked and revocation takes
 * effect at once. Two Bearer credentials, told apart by prefix: API keys
 * (`vxd_…`) and tokens issued by the OIDC exchange (`vxo_…`, refused once
 * expired or when their trust policy is deleted). Throwing "Unauthorized"
 * makes API Gateway answer 401 with the UNAUTHORIZED gateway response. No
 * credential or hash is ever logged. The result names the team's usage-plan
 * key, which carries the per-team throttle.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ApiKeys } from '../../shared/identity/api-keys';
import { WORKLOAD_TOKEN_PREFIX, WorkloadTokens } from '../../shared/identity/workload-tokens';
import { toAuthorizerContext, workloadAuthorizerContext, type AuthorizerContext } from '../../shared/http/authorizer-context';
import { usageIdentifierOf } from '../../shared/identity/team-quota';
import { logger } from '../../shared/logger';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

async function resolve(credential: string): Promise<AuthorizerContext | undefined> {
  if (credential.startsWith(WORKLOAD_TOKEN_PREFIX)) {
    const workload = await WorkloadTokens.authenticate(credential);
    return workload ? workloadAuthorizerContext(workload) : undefined;
  }
  const key = await ApiKeys.authenticate(credential);
  return key ? toAuthorizerContext(key) : undefined;
}

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  const credential = header ? BEARER.exec(header)?.[1] : undefined;
  const context = credential ? await resolve(credential) : undefined;
  if (!context) {
    logger.info('authorization rejected', { reason: credential ? 'unknown, expired or revoked credential' : 'missing or malformed Authorization header' });
    throw new Error('Unauthorized');
  }
  return {
    principalId: context.serviceAccountId,
    policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }] },
    context,
    // apiKeySource AUTHORIZER: API Gateway throttles the request with this team's usage-plan key.
    usageIdentifierKey: usageIdentifierOf(context.teamId),
  };
}
