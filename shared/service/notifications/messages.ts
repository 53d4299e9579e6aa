/**
 * What a delivery says, per channel type: the Standard Webhooks body `{ type, timestamp, data }`, a Slack
 * Block Kit message within Block Kit's limits, and an e-mail's subject, text and HTML.
 */
import { config } from '../config';
import type { TeamEventView } from '../schemas/events';

/** What one delivery carries: a stream event, a channel test or a rule's daily digest. */
export interface NotificationMessage {
  /** The idempotency key (`webhook-id`): the event's id, so a redelivery of one event keeps it. */
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export function eventMessage(event: TeamEventView): NotificationMessage {
  return { id: event.id, type: event.type, timestamp: event.occurred_at, data: event };
}

export function webhookBody(message: NotificationMessage): string {
  return JSON.stringify({ type: message.type, timestamp: message.timestamp, data: message.data });
}

/** Block Kit limits (api.slack.com/reference/block-kit): header text 150, section text 3000, fields 10 × 2000, 50 blocks. */
export const SLACK_LIMITS = { header: 150, sectionText: 3000, fields: 10, fieldText: 2000, blocks: 50 } as const;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function consoleLink(data: Record<string, unknown>): string {
  const base = config().publicBaseUrl;
  if (typeof data.release_id === 'string') return `${base}/releases/${data.release_id}`;
  if (typeof data.product_id === 'string') return `${base}/products/${data.product_id}`;
  return `${base}/`;
}

/** A field's value as text: strings, numbers and booleans only (event data is JSON). */
function scalar(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** One line per fact a person on call decides with. */
function facts(data: Record<string, unknown>): [string, string][] {
  const own = (data.data as Record<string, unknown> | undefined) ?? {};
  const rows: [string, string][] = [];
  const add = (label: string, value: unknown) => {
    const text = scalar(value);
    if (text) rows.push([label, text]);
  };
  add('Severity', own.severity);
  if (own.is_kev !== undefined) add('KEV', own.is_kev === true ? 'yes: known exploited' : 'no');
  add('CVE', own.cve_id);
  if (own.component_name !== undefined)
    add('Component', `${scalar(own.component_name)} ${scalar(own.component_version)}`.trim());
  add('Product', data.product_id);
  add('Release', data.release_id);
  add('Findings', own.finding_count);
  add('Error', own.error);
  return rows;
}

function headline(message: NotificationMessage): string {
  if (message.type === 'test') return 'Vexdesk test notification';
  if (message.type === 'digest') return `Vexdesk daily digest: ${scalar(message.data.count) || '0'} events`;
  return `Vexdesk: ${message.type}`;
}

export function slackMessage(message: NotificationMessage): Record<string, unknown> {
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(headline(message), SLACK_LIMITS.header) } },
  ];
  const rows = message.type === 'digest' ? [] : facts(message.data);
  if (rows.length > 0)
    blocks.push({
      type: 'section',
      fields: rows
        .slice(0, SLACK_LIMITS.fields)
        .map(([label, value]) => ({ type: 'mrkdwn', text: clip(`*${label}*\n${value}`, SLACK_LIMITS.fieldText) })),
    });
  if (message.type === 'digest') {
    const lines = digestLines(message).join('\n');
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: clip(lines || 'Nothing happened.', SLACK_LIMITS.sectionText) },
    });
  }
  blocks.push({
    type: 'actions',
    elements: [
      { type: 'button', text: { type: 'plain_text', text: 'Open in Vexdesk' }, url: consoleLink(message.data) },
    ],
  });
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: clip(`${message.timestamp} · event ${message.id}`, SLACK_LIMITS.fieldText) }],
  });
  return { text: clip(headline(message), SLACK_LIMITS.sectionText), blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}

function digestLines(message: NotificationMessage): string[] {
  const events = (message.data.events as TeamEventView[] | undefined) ?? [];
  return events.map((event) => {
    const own = event.data;
    const detail = [own.cve_id, own.severity, own.is_kev === true ? 'KEV' : undefined].filter(Boolean).join(' ');
    return `${event.occurred_at} ${event.type}${detail ? ` ${detail}` : ''} (release ${event.release_id})`;
  });
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

export function emailMessage(message: NotificationMessage): { subject: string; text: string; html: string } {
  const subject = headline(message);
  const link = consoleLink(message.data);
  const lines =
    message.type === 'digest'
      ? digestLines(message)
      : facts(message.data).map(([label, value]) => `${label}: ${value}`);
  const text = [
    subject,
    '',
    ...lines,
    '',
    `Open in Vexdesk: ${link}`,
    `Event ${message.id} at ${message.timestamp}`,
  ].join('\n');
  const html = [
    `<h1>${escapeHtml(subject)}</h1>`,
    `<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`,
    `<p><a href="${escapeHtml(link)}">Open in Vexdesk</a></p>`,
    `<p><small>Event ${escapeHtml(message.id)} at ${escapeHtml(message.timestamp)}</small></p>`,
  ].join('\n');
  return { subject, text, html };
}
