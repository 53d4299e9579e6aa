import { config } from '../../shared/service/config';
import {
  clearSessionCookieHeader,
  cookiePolicy,
  flowCookieHeader,
  parseCookies,
  sessionCookieHeader,
} from '../../shared/service/http/cookies';
import { createGroupHandler } from '../../shared/service/http/group-handler';
import { signInRoutes } from '../../shared/service/http/route-groups/signin';
import { signInRefusalPage } from '../../shared/service/identity/sign-in-pages';
import { SignIn } from '../../shared/service/identity/sign-in';

const policy = cookiePolicy(config().publicBaseUrl);
/** The refusal page has no script and no outside resource. */
const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

export const handler = createGroupHandler(signInRoutes, {
  startSignIn: async ({ query }) => {
    const { location, flowId } = await SignIn.start({ returnTo: query.returnTo, teamId: query.team });
    return { status: 302, headers: { Location: location, 'Set-Cookie': flowCookieHeader(policy, flowId) } };
  },
  finishSignIn: async ({ query, headers }) => {
    const outcome = await SignIn.finish({ flowId: parseCookies(headers.cookie).get(policy.flowCookie), query });
    if (outcome.kind === 'refused') {
      return {
        status: 403,
        raw: signInRefusalPage(outcome),
        contentType: 'text/html; charset=utf-8',
        headers: PAGE_HEADERS,
      };
    }
    const maxAge = Math.floor((Date.parse(outcome.session.absoluteExpiresAt) - Date.now()) / 1000);
    return {
      status: 303,
      headers: { Location: outcome.returnTo, 'Set-Cookie': sessionCookieHeader(policy, outcome.sessionId, maxAge) },
    };
  },
  signOut: async ({ headers }) => {
    await SignIn.signOut({
      sessionId: parseCookies(headers.cookie).get(policy.sessionCookie),
      csrfToken: headers['x-csrf-token'],
      origin: headers.origin,
    });
    return { status: 204, headers: { 'Set-Cookie': clearSessionCookieHeader(policy) } };
  },
});
