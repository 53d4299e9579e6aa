/**
 * The local dispatcher is woken by the work its own process writes (docs/notifications.md "Locally"): on a
 * server whose polls (outbox, and due index with digests) would not come for ten minutes, an event the API writes is delivered, and its failed first
 * attempt retried, within the test's wait.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { eventually, startReceiver } from '../support/webhook-receiver';

const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-notify-wake-'));
let server: ServerProcess | undefined;
let closeReceiver: (() => Promise<void>) | undefined;

afterAll(async () => {
  await server?.stop();
  await closeReceiver?.();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${server!.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await response.json()) as { data: { id: string } };
  expect({ path, ok: response.ok }).toEqual({ path, ok: true });
  return parsed.data;
}

describe('notification dispatcher woken by its own writes', () => {
  it('delivers an event written by the API, and retries its failed first attempt, long before the next poll', async () => {
    server = await startServerProcess(dataDir, {
      VEXDESK_NOTIFY_POLL_MS: String(10 * 60_000),
      VEXDESK_NOTIFY_SWEEP_MS: String(10 * 60_000),
      VEXDESK_NOTIFY_RETRY_BASE_MS: '300',
      VEXDESK_ALLOW_LOOPBACK_WEBHOOKS: '1',
    });
    const { apiKey } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { apiKey: string };
    // The first attempt fails, the retry succeeds.
    const receiver = await startReceiver((index) => (index === 0 ? 500 : 200));
    closeReceiver = receiver.close;
    const channel = await call('POST', '/api/notification-channels', apiKey, {
      type: 'webhook',
      name: 'wake',
      url: receiver.url,
    });
    await call('POST', '/api/notification-rules', apiKey, {
      name: 'submitted',
      channelId: channel.id,
      eventTypes: ['vex.submitted'],
    });
    const product = await call('POST', '/api/products', apiKey, { name: 'Woken', slug: 'woken' });
    const release = await call('POST', `/api/products/${product.id}/releases`, apiKey, { version: '1.0.0' });
    const document = await call('POST', `/api/releases/${release.id}/vex`, apiKey, { format: 'cyclonedx_vex' });
    await call('POST', `/api/vex/${document.id}/submit`, apiKey, {});

    const [first, second] = await eventually(() => (receiver.received.length >= 2 ? receiver.received : undefined));
    expect(first!.headers['webhook-id']).toBeDefined();
    // The same delivery, attempted again.
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect((JSON.parse(second!.body) as { type: string }).type).toBe('vex.submitted');
  });
});
