import { createGroupHandler } from '../../shared/http/group-handler';
import { OidcExchange } from '../../shared/identity/oidc-exchange';

export const handler = createGroupHandler('auth', {
  exchangeOidcToken: async ({ body }) => ({ status: 200, body: { data: await OidcExchange.exchange(body) } }),
});
