/**
 * Per-client rate limits of the anonymous routes that write (docs/security.md): starting a sign-in and
 * exchanging a CI token each store an item, so one client gets 30 of them a minute, counted together,
 * as the stack's WAF rule does (test/infra/default-stack/client-firewall.ts). A server of its own with the default
 * limits: the shared test server serves every test file from the same loopback address, with the limit
 * raised (test/support/global-setup.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_SIGN_IN_CLIENT_LIMIT } from '../../shared/service/http/throttling';
import { startServerProcess, type ServerProcess } from '../support/server-process';

let server: ServerProcess;

beforeAll(async () => {
  server = await startServerProcess(mkdtempSync(join(tmpdir(), 'vexdesk-rate-limits-')), {
    VEXDESK_SIGN_IN_CLIENT_LIMIT: undefined,
  });
}, 120_000);

afterAll(async () => {
  await server.stop();
});

async function send(path: string, init: RequestInit = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, { redirect: 'manual', ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

const exchange = () =>
  send('/api/auth/oidc/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: 'not-a-jwt', teamId: '00000000-0000-4000-8000-000000000000' }),
  });

describe('sign-in starts and token exchanges per client', () => {
  it('answers 429 with Retry-After past 30 a minute, counting both routes together, and leaves other routes open', async () => {
    expect(DEFAULT_SIGN_IN_CLIENT_LIMIT).toBe(30);
    const answers: number[] = [];
    for (let index = 0; index < DEFAULT_SIGN_IN_CLIENT_LIMIT; index += 1)
      answers.push((index % 2 === 0 ? await send('/api/auth/login') : await exchange()).status);
    // Each admitted request got its own answer: sign-in starts go to the provider, the bad token is refused.
    expect(new Set(answers)).toEqual(new Set([302, 401]));

    const overLogin = await send('/api/auth/login');
    const overExchange = await exchange();
    for (const over of [overLogin, overExchange]) {
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toBe('60');
      expect(JSON.parse(over.text)).toMatchObject({ error: { code: 'throttled' } });
    }
    expect((await send('/api/openapi.json')).status).toBe(200);
    expect((await send('/api/disclosures')).status).toBe(200);
  }, 120_000);
});
