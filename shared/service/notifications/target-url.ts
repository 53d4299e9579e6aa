/**
 * Which URLs a webhook or Slack channel may deliver to: https on a public address. Checked when a channel is
 * created or changed (an IP literal, and every address a name resolves to now), and again at every connection
 * (shared/service/net/public-address.ts), so a name that later resolves elsewhere (DNS rebinding) is refused
 * too. Loopback over plain http only with VEXDESK_ALLOW_LOOPBACK_WEBHOOKS=1 (tests and local use).
 */
import { lookup } from 'node:dns/promises';
import { ipLiteralHost, nonPublicRange } from '../net/public-address';

function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** Why `url` may not receive deliveries, judged on its text alone; undefined when it may. */
export function targetUrlProblem(url: string, allowLoopback: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL, e.g. https://hooks.example.com/vexdesk';
  }
  if (parsed.username || parsed.password || parsed.hash) return 'must not carry credentials or a fragment';
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must use https';
  const literal = ipLiteralHost(parsed);
  const range = literal === undefined ? undefined : nonPublicRange(literal, { allowLoopback: false });
  if (range === 'loopback' || isLoopbackName(parsed.hostname))
    return allowLoopback
      ? undefined
      : 'loopback URLs are accepted only when the server runs with VEXDESK_ALLOW_LOOPBACK_WEBHOOKS=1 (tests)';
  if (range !== undefined) return `must be on a public address, not ${literal} (${range})`;
  if (parsed.protocol !== 'https:') return 'must use https';
  return undefined;
}

/** Resolves a name now; refuses one that resolves to a non-public address or does not exist. */
export async function resolvedTargetProblem(url: string, allowLoopback: boolean): Promise<string | undefined> {
  const textual = targetUrlProblem(url, allowLoopback);
  if (textual !== undefined) return textual;
  const parsed = new URL(url);
  if (ipLiteralHost(parsed) !== undefined || isLoopbackName(parsed.hostname)) return undefined;
  try {
    const addresses = await lookup(parsed.hostname, { all: true });
    for (const { address } of addresses) {
      const range = nonPublicRange(address, { allowLoopback });
      if (range !== undefined) return `${parsed.hostname} resolves to ${address}, a non-public address (${range})`;
    }
    return undefined;
  } catch (error) {
    // A name that does not exist is a mistake to report now; a resolver that is down says nothing about the URL,
    // and the connection-time check still stands.
    if ((error as NodeJS.ErrnoException).code === 'ENOTFOUND') return `${parsed.hostname} does not resolve`;
    return undefined;
  }
}

/** The URL as a read shows it: scheme and host only, since the path of a Slack or webhook URL is its secret. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}/…`;
}
