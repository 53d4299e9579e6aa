import { createGroupHandler } from '../../shared/http/group-handler';
import { authRoutes } from '../../shared/http/route-groups/auth';
import { OidcExchange } from '../../shared/identity/oidc-exchange';

export const handler = createGroupHandler(authRoutes, {
  exchangeOidcToken: async ({ body }) => ({ status: 200, body: { data: await OidcExchange.exchange(body) } }),
});
