/**
 * The console's one way to the API: openapi-fetch typed from docs/openapi.json (shared/api/schema.d.ts is
 * generated from it; test/unit/api-types.test.ts checks it is current). Same origin only.
 *
 * Cookie sessions need the session's CSRF token on every state-changing request (docs/sign-in.md
 * "CSRF"); the browser adds `Origin` itself. A 401 means the session ended: the console goes to
 * its sign-in page, which returns here afterwards.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import { safeReturnPath } from '../../../shared/service/identity/return-path';
import type { components, paths } from '../../../shared/api/schema';

export type Schemas = components['schemas'];

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
let csrfToken: string | undefined;
let onSessionEnded: (() => void) | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export function csrfHeaders(): Record<string, string> {
  return csrfToken ? { 'X-CSRF-Token': csrfToken } : {};
}

/** What to do when a request answers 401 (set once by the app shell). */
export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

const session: Middleware = {
  onRequest({ request }) {
    if (!SAFE_METHODS.has(request.method) && csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) onSessionEnded?.();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(session);

/** The API's error body (`{ error: { code, message } }`) as one line for the page. */
export function errorText(error: unknown, fallback = 'The request failed.'): string {
  if (error && typeof error === 'object' && 'error' in error) {
    const inner = (error as { error?: { message?: unknown; details?: unknown } }).error;
    if (inner && typeof inner.message === 'string') {
      const details = Array.isArray(inner.details)
        ? inner.details
            .map((detail) =>
              detail && typeof detail === 'object' && 'message' in detail
                ? String((detail as { message: unknown }).message)
                : '',
            )
            .filter(Boolean)
        : [];
      return details.length ? `${inner.message}: ${details.join('; ')}` : inner.message;
    }
  }
  if (error instanceof Error) return error.message;
  return fallback;
}

/** The sign-in route with a path of this origin to come back to. */
export function signInUrl(returnTo: string): string {
  const path = safeReturnPath(returnTo, '/');
  // Back to the sign-in page itself would only ask again.
  return `/api/auth/login?returnTo=${encodeURIComponent(path.startsWith('/sign-in') ? '/' : path)}`;
}
