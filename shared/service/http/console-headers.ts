/**
 * Security headers of the web console (docs/console-hosting.md): CloudFront's
 * response headers policy sends them on AWS (lib/console-hosting.ts); one definition here, so a
 * local server serving the console at `/` can send the same values.
 *
 * The console is a static single-page app whose only scripts are its own hashed files: no inline
 * script, no eval, no third-party origin. It talks to the same origin only (`/api/*`); sign-in is a
 * top-level navigation to `/api/auth/login`, which redirects to the identity provider, so neither
 * connect-src nor any other fetch directive needs the provider's origin.
 */
export const CONSOLE_CSP_DIRECTIVES: ReadonlyArray<readonly [string, string]> = [
  ['default-src', "'self'"],
  ['script-src', "'self'"],
  ['style-src', "'self'"],
  ['img-src', "'self' data:"],
  ['font-src', "'self'"],
  ['connect-src', "'self'"],
  ['object-src', "'none'"],
  ['base-uri', "'self'"],
  ['form-action', "'self'"],
  ['frame-ancestors', "'none'"],
  ['upgrade-insecure-requests', ''],
];

export const CONSOLE_CONTENT_SECURITY_POLICY = CONSOLE_CSP_DIRECTIVES.map(([name, value]) =>
  value ? `${name} ${value}` : name,
).join('; ');

/** Two years, the value HSTS preload lists ask for; subdomains included. */
export const HSTS_MAX_AGE_SECONDS = 63_072_000;

/** Headers beyond CSP that every console and API response carries. */
export const CONSOLE_SECURITY_HEADERS = {
  'Strict-Transport-Security': `max-age=${HSTS_MAX_AGE_SECONDS}; includeSubDomains`,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
} as const;

/**
 * The same rules for the console `npm start` serves over plain HTTP on loopback: no
 * upgrade-insecure-requests (it would send the page's own requests to an https:// port nothing
 * listens on) and no HSTS (browsers ignore it over HTTP). Everything else is what CloudFront sends.
 */
export function plainHttpConsoleHeaders(): Record<string, string> {
  const { 'Strict-Transport-Security': _hsts, ...rest } = CONSOLE_SECURITY_HEADERS;
  const csp = CONSOLE_CSP_DIRECTIVES.filter(([name]) => name !== 'upgrade-insecure-requests')
    .map(([name, value]) => (value ? `${name} ${value}` : name))
    .join('; ');
  return { 'Content-Security-Policy': csp, ...rest };
}
