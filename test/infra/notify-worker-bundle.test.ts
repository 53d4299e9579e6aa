/**
 * A real delivery through the notify worker as deployed: its built, minified, code-split bundle
 * (./support/function-bundles.ts), imported by a fresh Node process with only the environment the stack gives
 * the function, against the embedded engines. What runs only on the delivery path and only bundled (undici,
 * nodemailer and standardwebhooks in lazy chunks, CommonJS packages read through `import()`, the opening of
 * sealed channel secrets) fails here when bundling breaks it, not on AWS.
 *
 * The test process seeds through the service modules from source: a team, a webhook channel to a loopback
 * receiver, an SMTP e-mail channel, a rule for each and one event in the outbox. The sealed channel secrets open
 * in the child with the local seal: on AWS the stack sets PUBLISHER_KEY_KMS_KEY_ID, locally the same
 * configuration switch names the seal file instead (shared/service/disclosures/key-vault.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { BUNDLE_FILE_NAME } from '../../lib/bundling';
import { startEmbeddedEngines, type EmbeddedEngines } from '../../shared/local/engines';
import { applyLocalEnvironment } from '../../shared/local/local-environment';
import { ensureLocalResources } from '../../shared/local/resources';
import { putItem } from '../../shared/service/data/table-client';
import { eventId, toTeamEvent } from '../../shared/service/events/event-store';
import { toEventView } from '../../shared/service/events/events';
import { OPERATOR_ACTOR, type Caller } from '../../shared/service/identity/actor';
import { Teams } from '../../shared/service/identity/teams';
import { NotificationChannels } from '../../shared/service/notifications/channels';
import { DeliveryStore, deliveryIdOf, type StoredDelivery } from '../../shared/service/notifications/delivery-store';
import { eventMessage, webhookBody } from '../../shared/service/notifications/messages';
import { NotificationRules } from '../../shared/service/notifications/rules';
import { createChannelBody, createRuleBody } from '../../shared/service/schemas/notifications';
import { findingDetectedItem } from '../support/notification-events';
import { startSmtpReceiver } from '../support/smtp-receiver';
import { startReceiver } from '../support/webhook-receiver';
import { evaluateBundleAsync } from './support/evaluate-bundle';
import { ALL_BUNDLES_TIMEOUT_MS, functionBundle } from './support/function-bundles';

/** The handler keeps this much of the invocation as its margin (functions/notify-worker/handler.ts). */
const HANDLER_MARGIN_MS = 30_000;

const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-notify-bundle-'));
let engines: EmbeddedEngines | undefined;
let bundleFile: string;
let webhook: Awaited<ReturnType<typeof startReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

beforeAll(async () => {
  const [bundle, started] = await Promise.all([
    functionBundle('notify-worker'),
    // On this thread: the child reaches them over loopback HTTP while this process awaits it. Not the engines
    // process of the integration tests: it runs from the test server's bundle, rebuilt (and checked) on every
    // source change, so a bundling fault would stop this file there, not in the bundle under test.
    startEmbeddedEngines({ dataDir, inMemory: true, thread: 'main' }),
    (async () => {
      [webhook, smtp] = await Promise.all([startReceiver(), startSmtpReceiver()]);
    })(),
  ]);
  bundleFile = join(bundle.dir, BUNDLE_FILE_NAME);
  engines = started;
  // This test file's process.env (jest gives each file its own): the service modules that seed read it.
  process.env.VEXDESK_ALLOW_LOOPBACK_WEBHOOKS = '1';
  process.env.VEXDESK_SMTP_URL = smtp.url;
  process.env.LOG_LEVEL = 'ERROR';
  applyLocalEnvironment(started, 'https://vexdesk.test');
  await ensureLocalResources();
}, ALL_BUNDLES_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all([engines?.stop(), webhook?.close(), smtp?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * What the stack sets on the function (lib/service-functions.ts `environmentFor`, PUBLIC_BASE_URL) and Lambda
 * (AWS_REGION), with the local stand-ins: the engines' endpoints and key pair, the seal file for the KMS key, and
 * the loopback receivers the stack never allows.
 */
function functionEnvironment(): Record<string, string> {
  const names = [
    'TABLE_NAME',
    'SBOM_BUCKET',
    'DISCLOSURE_BUCKET',
    'PUBLIC_BASE_URL',
    'AWS_REGION',
    'AWS_ENDPOINT_URL_DYNAMODB',
    'AWS_ENDPOINT_URL_S3',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'PUBLISHER_KEY_SEAL_FILE',
    'VEXDESK_ALLOW_LOOPBACK_WEBHOOKS',
    'VEXDESK_SMTP_URL',
    'LOG_LEVEL',
  ];
  return Object.fromEntries(names.map((name) => [name, process.env[name] ?? '']));
}

const pick = ({ status, attempt, error, responseStatus }: StoredDelivery) => ({
  status,
  attempt,
  error,
  responseStatus,
});

describe('the notify worker bundle', () => {
  it('delivers an event to a signed webhook and over SMTP, and records both deliveries delivered', async () => {
    const team = await Teams.create('Bundle delivery', OPERATOR_ACTOR);
    const caller: Caller = {
      teamId: team.id,
      keyId: 'bundle-test',
      actor: OPERATOR_ACTOR,
      scopes: ['vulnerabilities:read', 'settings:write'],
    };
    const hook = await NotificationChannels.create(
      caller,
      createChannelBody.parse({ type: 'webhook', name: 'on call', url: webhook.url }),
    );
    const mail = await NotificationChannels.create(
      caller,
      createChannelBody.parse({ type: 'email', name: 'psirt', recipients: ['psirt@example.test'] }),
    );
    for (const channel of [hook, mail])
      await NotificationRules.create(
        caller,
        createRuleBody.parse({ name: channel.name, channelId: channel.id, eventTypes: ['finding.detected'] }),
      );
    const id = eventId(randomUUID(), 'finding.detected');
    const event = findingDetectedItem(team.id, id, new Date().toISOString(), 'CVE-2026-7777');
    await putItem(event);

    // 5 s past the handler's margin: a pass delivers, and the next, finding nothing left, ends the run.
    const totals = await evaluateBundleAsync(
      bundleFile,
      `m.handler({}, { getRemainingTimeInMillis: () => ${HANDLER_MARGIN_MS + 5_000} })`,
      functionEnvironment(),
    );

    // The deliveries as recorded first: a failed one names its error (a constructor undefined in the bundle, …).
    const recorded = await Promise.all(
      [hook, mail].map((channel) => DeliveryStore.get(team.id, deliveryIdOf(team.id, channel.id, id))),
    );
    expect(recorded.map((delivery) => delivery && pick(delivery))).toEqual([
      { status: 'delivered', attempt: 1, error: null, responseStatus: 200 },
      { status: 'delivered', attempt: 1, error: null, responseStatus: null },
    ]);
    expect(totals).toMatchObject({ events: 1, attempted: 2, delivered: 2 });
    expect(webhook.received).toHaveLength(1);
    const [request] = webhook.received;
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request!.headers[name])]),
    );
    expect(headers['webhook-id']).toBe(id);
    // Throws unless the signature is the channel secret's over this id, timestamp and body.
    const verified = new Webhook(hook.secret!).verify(request!.body, headers);
    const expected = JSON.parse(webhookBody(eventMessage(toEventView(toTeamEvent(event))))) as unknown;
    expect(verified).toEqual(expected);
    expect(verified).toMatchObject({ type: 'finding.detected', data: { data: { cve_id: 'CVE-2026-7777' } } });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]).toMatchObject({ to: ['psirt@example.test'] });
    expect(smtp.mails[0]?.data).toContain('CVE-2026-7777');
  });
});
