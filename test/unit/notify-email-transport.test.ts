/**
 * How e-mail channels deliver is decided by configuration alone (shared/service/config.ts): SES with a sender, else
 * SMTP, else `.eml` files. A deployment with none of them (the stack without an SES identity) refuses e-mail
 * channels when they are created, with a 422 that says what the operator must set, before anything is stored.
 */
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../shared/service/config';

const BASE_ENV = {
  TABLE_NAME: 'vexdesk-unit',
  SBOM_BUCKET: 'sboms',
  DISCLOSURE_BUCKET: 'disclosures',
  PUBLIC_BASE_URL: 'https://vex.acme.example',
};

describe('e-mail transport', () => {
  it('is SES when a sender is set, else SMTP, else files, else none', () => {
    const transportOf = (env: Record<string, string>) =>
      loadConfig({ ...BASE_ENV, ...env }).notifications.emailTransport;
    expect(
      transportOf({
        NOTIFY_SES_FROM: 'a@acme.example',
        VEXDESK_SMTP_URL: 'smtp://127.0.0.1:25',
        NOTIFY_OUTBOX_DIR: '/x',
      }),
    ).toBe('ses');
    expect(transportOf({ VEXDESK_SMTP_URL: 'smtp://127.0.0.1:25', NOTIFY_OUTBOX_DIR: '/x' })).toBe('smtp');
    expect(transportOf({ NOTIFY_OUTBOX_DIR: '/x' })).toBe('files');
    expect(transportOf({})).toBeNull();
  });

  it('refuses an e-mail channel with a 422 naming the settings when there is none', async () => {
    Object.assign(process.env, BASE_ENV);
    for (const name of ['NOTIFY_SES_FROM', 'VEXDESK_SMTP_URL', 'NOTIFY_OUTBOX_DIR']) delete process.env[name];
    const { NotificationChannels } = await import('../../shared/service/notifications/channels');
    const caller = {
      teamId: 'team-unit',
      keyId: 'key-unit',
      scopes: ['settings:write'],
      actor: { id: 'm1', name: 'Unit', email: null, kind: 'member' as const },
    };
    const refusal = NotificationChannels.create(caller, {
      type: 'email',
      name: 'psirt',
      recipients: ['psirt@acme.example'],
    });
    await expect(refusal).rejects.toMatchObject({
      status: 422,
      details: [{ path: 'type', message: expect.stringContaining('vexdesk:notifySesIdentity') }],
    });
  });
});
