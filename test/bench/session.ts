/**
 * Session bench (issue 12 item 2): what a browser-session request costs next to an API-key request.
 * The authorizer checks a cookie with three consistent reads (the session by hash, then the member's
 * login entry and the team's session timeouts in parallel) against one for a key. Real local server,
 * the demo admin signed in through the embedded OpenID provider, one client, `GET /api/me` alternating
 * Bearer and cookie requests so both see the same machine load. Prints medians and their ratio.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { printReport } from './main';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserSignIn, demoLogin, SESSION_COOKIE } from '../support/browser-session';
import { startServerProcess } from '../support/server-process';
import { median, ms } from './stats';

const ROUNDS = 400;

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET /api/me answered ${response.status}`);
  return performance.now() - t0;
}

export async function benchSession(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-bench-session-'));
  const server = await startServerProcess(dataDir, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    TEAM_RATE_LIMIT: '10000',
    TEAM_BURST_LIMIT: '5000',
  });
  try {
    process.env.VEXDESK_TEST_BASE_URL = server.baseUrl;
    process.env.VEXDESK_TEST_DATA_DIR = dataDir;
    const { apiKey } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
    const { session } = await browserSignIn(await demoLogin());
    if (!session) throw new Error('the demo admin could not sign in');
    const url = `${server.baseUrl}/api/me`;
    const bearer = { Authorization: `Bearer ${apiKey}` };
    const cookie = { Cookie: `${SESSION_COOKIE}=${session}` };
    // Warm-up: module loading and the first reads of each path.
    for (let round = 0; round < 20; round += 1) await Promise.all([timed(url, bearer), timed(url, cookie)]);
    const keyTimes: number[] = [];
    const sessionTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      keyTimes.push(await timed(url, bearer));
      sessionTimes.push(await timed(url, cookie));
    }
    const [keyMedian, sessionMedian] = [median(keyTimes), median(sessionTimes)];
    return [
      `Session bench: GET /api/me, 1 client, ${ROUNDS} alternating pairs (load ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')})`,
      `  API key (Bearer)          median ${ms(keyMedian)}`,
      `  browser session (cookie)  median ${ms(sessionMedian)}   ratio session/key ${(sessionMedian / keyMedian).toFixed(2)}`,
    ].join('\n');
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printReport(benchSession());
}
