/** E-mail over SMTP when VEXDESK_SMTP_URL is set (the server of the other tests writes .eml files instead). */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { send } from '../../shared/service/notifications/transports';
import { startSmtpReceiver } from '../support/smtp-receiver';

let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
  // Read once, at the first use of the configuration: this file's first delivery.
  process.env.VEXDESK_SMTP_URL = smtp.url;
});
afterAll(async () => {
  delete process.env.VEXDESK_SMTP_URL;
  await smtp.close();
});

describe('e-mail over SMTP', () => {
  it('sends one MIME message with text, HTML and List-Unsubscribe to every recipient', async () => {
    const id = randomUUID();
    const outcome = await send(
      { type: 'email', recipients: ['a@example.test', 'b@example.test'], channelId: randomUUID() },
      {
        id,
        type: 'finding.kev_added',
        timestamp: new Date().toISOString(),
        data: { id, release_id: randomUUID(), data: { cve_id: 'CVE-2026-4242', severity: 'critical', is_kev: true } },
      },
    );
    expect(outcome).toMatchObject({ delivered: true, error: null });
    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail?.to.sort()).toEqual(['a@example.test', 'b@example.test']);
    expect(mail?.data).toMatch(/^List-Unsubscribe:\s+<http[^>]+>/m);
    expect(mail?.data).toContain('CVE-2026-4242');
    expect(mail?.data).toContain('text/html');
  });
});
