/**
 * Where a browser goes after sign-in: a path of this origin, nothing else. An open redirect would hand
 * the fresh session's user to another site, and a header value carrying CR or LF would break the
 * callback's answer. Shared by the server and the console, so it imports nothing.
 *
 * Browsers follow a Location through the WHATWG URL parser, which drops TAB, CR and LF anywhere and reads
 * `\` as `/`: `/\t/evil.example` is `//evil.example` to them. So a candidate is kept only when it is
 * printable ASCII without a backslash, starts with a single `/`, and the same parser resolves it to this
 * origin with a path that does not start with `//` either. Anything else gets the fallback.
 */

/** Stands in for this origin: the check is about the candidate's shape, not about the host it runs on. */
const PROBE_ORIGIN = 'https://origin.invalid';
/** Printable ASCII (no space): what browsers send for a path and query once percent-encoded. */
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

export function safeReturnPath(candidate: string | undefined, fallback: string): string {
  if (
    candidate === undefined ||
    !PRINTABLE_ASCII.test(candidate) ||
    candidate.includes('\\') ||
    !candidate.startsWith('/') ||
    candidate.startsWith('//')
  )
    return fallback;
  let resolved: URL;
  try {
    resolved = new URL(candidate, PROBE_ORIGIN);
  } catch {
    return fallback;
  }
  if (resolved.origin !== PROBE_ORIGIN || resolved.pathname.startsWith('//')) return fallback;
  return candidate;
}
