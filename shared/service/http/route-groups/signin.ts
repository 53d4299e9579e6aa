import { defineGroup, noContent } from '../route-definition';
import * as signIn from '../../schemas/sign-in';

/** The `signin` group's routes (the function `functions/signin/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const signInRoutes = defineGroup('signin', [
  // Browser sign-in (docs/sign-in.md): public routes under /api so the console's origin reaches them through the same /api/* path.
  {
    // mutates false: it writes only the flow's own short-lived item, no team's data, so there is nothing to audit (the callback audits the sign-in).
    operationId: 'startSignIn',
    method: 'GET',
    path: '/api/auth/login',
    scope: null,
    mutates: false,
    summary: 'Start browser sign-in: redirects (302) to the OpenID provider (authorization code + PKCE)',
    request: { query: signIn.signInStartQuery },
    responses: { 302: { description: "To the provider's authorization endpoint; sets the flow cookie" } },
  },
  {
    operationId: 'finishSignIn',
    method: 'GET',
    path: '/api/auth/callback',
    scope: null,
    mutates: true,
    summary:
      "The provider's redirect back: signs an invited member in (303 to the return path, session cookie set); 403 HTML page otherwise",
    request: { query: signIn.signInCallbackQuery },
    responses: {
      303: { description: 'Signed in; sets the session cookie' },
      403: { description: 'Not signed in, and why', contentType: 'text/html; charset=utf-8' },
    },
  },
  {
    operationId: 'signOut',
    method: 'POST',
    path: '/api/auth/logout',
    scope: null,
    mutates: true,
    summary: "End the browser session server-side and clear its cookie (needs X-CSRF-Token and the console's Origin)",
    responses: noContent,
  },
]);
