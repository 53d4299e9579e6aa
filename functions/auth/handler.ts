import { createGroupHandler } from '../../shared/service/http/group-handler';
import { authRoutes } from '../../shared/service/http/route-groups/auth';
import { OidcExchange } from '../../shared/service/identity/oidc-exchange';

export const handler = createGroupHandler(authRoutes, {
  exchangeOidcToken: async ({ body }) => ({ status: 200, body: { data: await OidcExchange.exchange(body) } }),
});
