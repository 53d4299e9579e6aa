/**
 * Fixed points of browser sign-in (docs/sign-in.md) that the flow (identity/sign-in.ts), the authorizer
 * and the HTTP cookies (http/cookies.ts) share: plain values and functions, so the flow needs no HTTP code.
 */

/** Where the OpenID provider sends the browser back; the flow cookie is scoped to this path. */
export const SIGN_IN_CALLBACK_PATH = '/api/auth/callback';

/** How long a started sign-in may take before its flow item and cookie expire. */
export const FLOW_TTL_SECONDS = 600;

/** Whether the request's Origin is the console's (PUBLIC_BASE_URL): browsers send it on every cross-origin and every POST request. */
export function originMatches(originHeader: string | undefined, publicBaseUrl: string): boolean {
  if (originHeader === undefined) return false;
  return originHeader === new URL(publicBaseUrl).origin;
}
