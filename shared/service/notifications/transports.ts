/**
 * Sending one message over one channel, and what came back. Webhook and Slack requests go only to public
 * addresses, checked at connect time (shared/service/net/public-address.ts), follow no redirect and give up
 * after 10 s. E-mail goes through SES on AWS (NOTIFY_SES_FROM), SMTP at VEXDESK_SMTP_URL locally, or else
 * into `.eml` files under NOTIFY_OUTBOX_DIR: one MIME message, built once, for all three.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { Webhook } from 'standardwebhooks';
import { ses } from '../aws-clients';
import { commonJsExports } from '../common-js';
import { config } from '../config';
import { requestPublicAddress } from '../net/public-address';
import { emailMessage, slackMessage, webhookBody, type NotificationMessage } from './messages';

export const DELIVERY_TIMEOUT_MS = 10_000;
/** The log keeps the first KB of an answer. */
const RESPONSE_EXCERPT_BYTES = 1024;

export interface DeliveryOutcome {
  delivered: boolean;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
}

/** Where and how one channel delivers, opened from its sealed state. */
export type DeliveryTarget =
  | { type: 'webhook'; url: string; secret: string }
  | { type: 'slack'; url: string }
  | { type: 'email'; recipients: string[]; channelId: string };

async function post(url: string, body: string, headers: Record<string, string>): Promise<DeliveryOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const answer = await requestPublicAddress(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Vexdesk-Notifications/1', ...headers },
      body,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      allowLoopback: config().notifications.allowLoopback,
    });
    return {
      delivered: answer.status >= 200 && answer.status < 300,
      responseStatus: answer.status,
      responseBody: answer.body.toString('utf8', 0, Math.min(answer.body.length, RESPONSE_EXCERPT_BYTES)),
      durationMs: elapsed(),
      error: null,
    };
  } catch (error) {
    return {
      delivered: false,
      responseStatus: null,
      responseBody: null,
      durationMs: elapsed(),
      error: (error as Error).message,
    };
  }
}

/** Signers by secret: the package decodes the secret's key when a signer is made, not per signature. */
const signers = new Map<string, Webhook>();
const SIGNERS_KEPT = 1000;

function signerFor(secret: string): Webhook {
  let signer = signers.get(secret);
  if (!signer) {
    // Rotated and deleted channels' secrets are not kept for ever.
    if (signers.size >= SIGNERS_KEPT) signers.clear();
    signer = new Webhook(secret);
    signers.set(secret, signer);
  }
  return signer;
}

/** Standard Webhooks: `webhook-id` (the idempotency key), `webhook-timestamp` (seconds), `webhook-signature`. */
export function signedWebhookHeaders(secret: string, message: NotificationMessage, body: string, at = new Date()) {
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signerFor(secret).sign(message.id, at, body),
  };
}

async function sendEmail(
  recipients: string[],
  channelId: string,
  message: NotificationMessage,
): Promise<DeliveryOutcome> {
  const started = performance.now();
  const settings = config().notifications;
  const { subject, text, html } = emailMessage(message);
  const from = settings.sesFrom ?? settings.emailFrom;
  const unsubscribe = `${config().publicBaseUrl}/settings?notifications=unsubscribe&channel=${channelId}`;
  const mime = await new MailComposer({
    from,
    to: recipients,
    subject,
    text,
    html,
    messageId: `<${message.id}.${randomUUID()}@vexdesk>`,
    headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'X-Vexdesk-Event-Id': message.id },
  })
    .compile()
    .build();
  const done = (responseBody: string): DeliveryOutcome => ({
    delivered: true,
    responseStatus: null,
    responseBody,
    durationMs: Math.round(performance.now() - started),
    error: null,
  });
  try {
    if (settings.sesFrom) {
      const { sdk, client } = await ses();
      const sent = await client.send(
        new sdk.SendEmailCommand({
          FromEmailAddress: settings.sesFrom,
          Destination: { ToAddresses: recipients },
          Content: { Raw: { Data: mime } },
        }),
      );
      return done(`ses ${sent.MessageId ?? ''}`);
    }
    if (settings.smtpUrl) {
      const nodemailer = commonJsExports(await import('nodemailer'));
      const transport = nodemailer.createTransport(settings.smtpUrl);
      try {
        const sent = await transport.sendMail({ envelope: { from, to: recipients }, raw: mime });
        return done(String(sent.response ?? 'sent'));
      } finally {
        transport.close();
      }
    }
    if (!settings.outboxDir) throw new Error('No e-mail transport: set VEXDESK_SMTP_URL or NOTIFY_OUTBOX_DIR');
    await mkdir(settings.outboxDir, { recursive: true });
    const file = join(settings.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${message.id}.eml`);
    await writeFile(file, mime);
    return done(`written to ${file}`);
  } catch (error) {
    return {
      delivered: false,
      responseStatus: null,
      responseBody: null,
      durationMs: Math.round(performance.now() - started),
      error: (error as Error).message,
    };
  }
}

export async function send(target: DeliveryTarget, message: NotificationMessage): Promise<DeliveryOutcome> {
  switch (target.type) {
    case 'webhook': {
      const body = webhookBody(message);
      return post(target.url, body, signedWebhookHeaders(target.secret, message, body));
    }
    case 'slack':
      return post(target.url, JSON.stringify(slackMessage(message)), {});
    case 'email':
      return sendEmail(target.recipients, target.channelId, message);
  }
}
