/**
 * Webhooks are signed with node:crypto's HMAC (shared/service/notifications/transports.ts), not the
 * `standardwebhooks` package's pure-JavaScript SHA-256: the signature must stay byte for byte the package's, and
 * verify with it, for any body and secret.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { signedWebhookHeaders, webhookSignature } from '../../shared/service/notifications/transports';

const message = (id: string) => ({ id, type: 'finding.detected', timestamp: '2026-12-06T18:00:00.000Z', data: {} });

describe('webhook signature', () => {
  it("is byte for byte the standardwebhooks package's, for ASCII, Unicode and empty bodies", () => {
    const at = new Date('2026-12-06T18:00:00.999Z');
    const bodies = ['', '{"type":"finding.detected"}', JSON.stringify({ data: { name: 'Zürich ✓ 𝔘 "quoted"\n' } })];
    for (let round = 0; round < 20; round += 1) {
      const secret = `whsec_${randomBytes(8 + round).toString('base64')}`;
      const id = `evt_${randomBytes(6).toString('hex')}`;
      for (const body of bodies)
        expect(signedWebhookHeaders(secret, message(id), body, at)['webhook-signature']).toBe(
          new Webhook(secret).sign(id, at, body),
        );
    }
  });

  it('verifies with the package, and the timestamp header is whole seconds', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const body = JSON.stringify({ type: 'test', data: { message: 'héllo' } });
    const headers = signedWebhookHeaders(secret, message('evt_1'), body);
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(body, headers)).toThrow();
  });

  it('takes a secret without the whsec_ prefix as the package does, and refuses an empty one', () => {
    const key = randomBytes(24).toString('base64');
    const at = new Date();
    expect(webhookSignature(key, 'evt_2', Math.floor(at.getTime() / 1000), 'x')).toBe(
      new Webhook(key).sign('evt_2', at, 'x'),
    );
    expect(() => webhookSignature('whsec_', 'evt_3', 0, 'x')).toThrow(/empty/);
  });
});
