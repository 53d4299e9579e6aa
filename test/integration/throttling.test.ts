/**
 * Throttling per team and per anonymous client through HTTP (issue 8,
 * defect 9): the local server enforces the same usage-plan token bucket per
 * team and the same per-IP rule as the deployed stack, with the same 429.
 */
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { toAuditEntry } from '../../shared/service/audit/audit-log';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { adminBundle } from '../support/server-bundle';
import { createTeamWithKey } from '../support/factories';
import type { HttpResponse } from '../support/http-client';
import { startServerProcess } from '../support/server-process';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CLI JSON
async function admin(...args: string[]): Promise<Record<string, any>> {
  const env = { ...process.env, DATA_DIR: process.env.VEXDESK_TEST_DATA_DIR };
  const { stdout } = await run(process.execPath, [await adminBundle(), ...args], {
    cwd: root,
    env,
  });
  return JSON.parse(stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- CLI JSON
}

/** Sequential requests, so the count admitted depends on the bucket, not on concurrency. */
async function sequence<T>(count: number, call: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let index = 0; index < count; index += 1) results.push(await call());
  return results;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- arbitrary JSON
function expectThrottledAnswer(response: HttpResponse<any>, retryAfter: string): void {
  expect(response.status).toBe(429);
  expect(response.headers.get('retry-after')).toBe(retryAfter);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.body).toEqual({
    error: { code: 'throttled', message: 'Too many requests', requestId: response.headers.get('x-amzn-requestid') },
  });
}

describe('per-team quota', () => {
  it('answers 429 with Retry-After to a team over its quota while another team is unaffected', async () => {
    const throttled = await createTeamWithKey();
    const other = await createTeamWithKey();
    const set = await admin('team', 'quota', 'set', '--team', throttled.teamId, '--rate', '1', '--burst', '3');
    expect(set.throttle).toEqual({ rateLimit: 1, burstLimit: 3, source: 'team' });

    // The settings call is the first of the team's three burst tokens.
    const started = Date.now();
    const settings = await throttled.api.get('/api/settings');
    const burst = await sequence(8, () => throttled.api.get('/api/products'));
    const seconds = (Date.now() - started) / 1000;
    const neighbour = await sequence(5, () => other.api.get('/api/products'));

    expect(settings.body.data.throttle).toEqual({ rateLimit: 1, burstLimit: 3, source: 'team' });
    expect(burst.slice(0, 2).map((response) => response.status)).toEqual([200, 200]);
    // Two tokens were left, and at 1 request per second at most one more refills per second of the run (a run
    // slowed by a busy machine admits more, never more than that).
    const admitted = burst.filter((response) => response.status === 200).length;
    expect(admitted).toBeLessThanOrEqual(2 + Math.ceil(seconds));
    const throttledAnswers = burst.filter((response) => response.status === 429);
    expect(throttledAnswers.length).toBe(burst.length - admitted);
    expect(throttledAnswers.length).toBeGreaterThan(0);
    expectThrottledAnswer(throttledAnswers[0]!, '1');
    expect(neighbour.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
  }, 60_000);

  it('shows the default quota in the team settings and keeps the override audited', async () => {
    const team = await createTeamWithKey();

    const settings = await team.api.get('/api/settings');
    await admin('team', 'quota', 'set', '--team', team.teamId, '--rate', '20', '--burst', '40');
    const shown = await admin('team', 'quota', 'show', '--team', team.teamId);
    await admin('team', 'quota', 'set', '--team', team.teamId, '--default');
    const audit = (await readAuditLog(team.teamId, { entityType: 'team_quota' })).map(toAuditEntry);

    expect(settings.body.data.throttle).toEqual({ rateLimit: 50, burstLimit: 100, source: 'default' });
    expect(shown.throttle).toEqual({ rateLimit: 20, burstLimit: 40, source: 'team' });
    expect(audit.map((entry) => entry.changes)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          rateLimit: { from: 50, to: 20 },
          burstLimit: { from: 100, to: 40 },
          source: { from: 'default', to: 'team' },
        }),
        expect.objectContaining({ rateLimit: { from: 20, to: 50 }, source: { from: 'team', to: 'default' } }),
      ]),
    );
  }, 60_000);

  it('refuses a quota API Gateway would not take, changing nothing', async () => {
    const team = await createTeamWithKey();

    const refused = admin('team', 'quota', 'set', '--team', team.teamId, '--rate', '0', '--burst', '10');

    await expect(refused).rejects.toMatchObject({ code: 2 });
    expect((await team.api.get('/api/settings')).body.data.throttle.source).toBe('default');
  }, 60_000);
});

describe('per-client limit of the anonymous routes', () => {
  it('answers 429 with Retry-After to a client over the limit on the disclosure routes only', async () => {
    // A server of its own: the shared one serves every test file from the same loopback address.
    const server = await startServerProcess(mkdtempSync(join(tmpdir(), 'vexdesk-waf-')), {
      VEXDESK_PUBLIC_CLIENT_LIMIT: '10',
    });
    try {
      const get = async (path: string) => {
        const response = await fetch(`${server.baseUrl}${path}`);
        const text = await response.text();
        return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as unknown };
      };
      const lists = await sequence(12, () => get('/api/disclosures'));
      const openapi = await get('/api/openapi.json');

      expect(lists.slice(0, 10).map((response) => response.status)).toEqual(Array(10).fill(200));
      expectThrottledAnswer(lists[10]!, '60');
      expect(lists[11]!.status).toBe(429);
      expect(openapi.status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
