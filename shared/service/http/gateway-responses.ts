/**
 * Responses that API Gateway itself produces (before any Lambda runs), in the
 * service's one error-body shape. The CDK stack installs them as REST API
 * gateway responses; the local server emulates them from the same table.
 * `$context.requestId` is API Gateway template syntax; the local server
 * substitutes its own request id.
 */
import { PUBLIC_CLIENT_WINDOW_SECONDS } from './throttling';

export const gatewayResponses = {
  /** No Authorization header, or the authorizer rejected the key (missing, malformed, expired, revoked). */
  UNAUTHORIZED: {
    statusCode: 401,
    code: 'unauthorized',
    message:
      'A valid API key is required: send "Authorization: Bearer vxd_<64 hex>". Missing, malformed, expired and revoked keys are rejected.',
  },
  /** The authorizer denied the request. */
  ACCESS_DENIED: { statusCode: 403, code: 'forbidden', message: 'Access denied' },
  /** REST APIs answer unknown paths and methods with this response; it is a 404 to callers. */
  MISSING_AUTHENTICATION_TOKEN: { statusCode: 404, code: 'not_found', message: 'No such endpoint' },
  REQUEST_TOO_LARGE: { statusCode: 413, code: 'payload_too_large', message: 'Request body too large' },
  THROTTLED: { statusCode: 429, code: 'throttled', message: 'Too many requests' },
  /**
   * The stage's web ACL blocked the request: its only rule is the per-client
   * rate limit of the anonymous routes, so it is a 429 like THROTTLED.
   */
  WAF_FILTERED: { statusCode: 429, code: 'throttled', message: 'Too many requests' },
  /** The authorizer named a usage-plan key that no usage plan holds: the team's quota is not provisioned. */
  INVALID_API_KEY: { statusCode: 403, code: 'forbidden', message: 'Access denied' },
  DEFAULT_4XX: { statusCode: 400, code: 'bad_request', message: 'Bad request' },
  DEFAULT_5XX: { statusCode: 500, code: 'internal_error', message: 'Internal error' },
} as const;

export type GatewayResponseType = keyof typeof gatewayResponses;

/** Velocity template body for the stack; the local server renders the same JSON. */
export function gatewayResponseTemplate(type: GatewayResponseType): string {
  const { code, message } = gatewayResponses[type];
  return JSON.stringify({ error: { code, message, requestId: '$context.requestId' } });
}

export function renderGatewayResponse(
  type: GatewayResponseType,
  requestId: string,
): { statusCode: number; body: string } {
  const { statusCode, code, message } = gatewayResponses[type];
  return { statusCode, body: JSON.stringify({ error: { code, message, requestId } }) };
}

/** The headers every handler response carries (shared/service/http/response.ts) apply to API Gateway's own answers too. */
export const GATEWAY_RESPONSE_HEADERS = {
  'Content-Type': 'application/json',
  'X-Content-Type-Options': 'nosniff',
} as const;

/** Largest request payload API Gateway REST APIs accept (10 MB). */
export const API_GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/**
 * Headers some gateway responses add to GATEWAY_RESPONSE_HEADERS. API Gateway
 * gateway responses only take static values: THROTTLED refills within a
 * second; a WAF rate-based rule looks back over its whole window.
 */
export const GATEWAY_RESPONSE_EXTRA_HEADERS: Partial<Record<GatewayResponseType, Readonly<Record<string, string>>>> = {
  THROTTLED: { 'Retry-After': '1' },
  WAF_FILTERED: { 'Retry-After': String(PUBLIC_CLIENT_WINDOW_SECONDS) },
};

/** Every header of one gateway response, as the stack installs it and the local server sends it. */
export function gatewayResponseHeaders(type: GatewayResponseType): Record<string, string> {
  return { ...GATEWAY_RESPONSE_HEADERS, ...GATEWAY_RESPONSE_EXTRA_HEADERS[type] };
}

/**
 * 405 for a method the route table does not serve on a known path. Not a gateway response type
 * (API Gateway answers an unknown method with MISSING_AUTHENTICATION_TOKEN, like an unknown path):
 * the stack puts a MOCK `ANY` method on each resource answering this, with a static `Allow` per
 * resource; the local server renders the same. `$context.httpMethod` is the method asked for.
 */
export const METHOD_NOT_ALLOWED = { statusCode: 405, code: 'method_not_allowed' } as const;

function methodNotAllowedMessage(method: string, path: string, allow: readonly string[]): string {
  return `${method} is not allowed on ${path}; allowed: ${allow.join(', ')}`;
}

export function methodNotAllowedTemplate(path: string, allow: readonly string[]): string {
  return JSON.stringify({
    error: {
      code: METHOD_NOT_ALLOWED.code,
      message: methodNotAllowedMessage('$context.httpMethod', path, allow),
      requestId: '$context.requestId',
    },
  });
}

export function renderMethodNotAllowed(
  method: string,
  path: string,
  allow: readonly string[],
  requestId: string,
): { statusCode: number; headers: Record<string, string>; body: string } {
  return {
    statusCode: METHOD_NOT_ALLOWED.statusCode,
    headers: { ...GATEWAY_RESPONSE_HEADERS, Allow: allow.join(', ') },
    body: JSON.stringify({
      error: { code: METHOD_NOT_ALLOWED.code, message: methodNotAllowedMessage(method, path, allow), requestId },
    }),
  };
}
