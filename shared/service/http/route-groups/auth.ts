import { defineGroup } from '../route-definition';
import * as trustPolicies from '../../schemas/trust-policies';

/** The `auth` group's routes (the function `functions/auth/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const authRoutes = defineGroup('auth', [
  {
    operationId: 'exchangeOidcToken',
    method: 'POST',
    path: '/api/auth/oidc/token',
    scope: null,
    mutates: true,
    teamFromBody: true,
    summary:
      "Exchange a CI job's OIDC token for a short-lived bearer token with the matching trust policy's scopes (401 with a refusal code otherwise)",
    request: { body: trustPolicies.oidcTokenExchangeBody },
    responses: { 200: { description: 'The issued token', schema: trustPolicies.oidcTokenResponse } },
  },
]);
