/**
 * Settings → Notifications in the web console, in Debian's chromium against the real local server (started with
 * VEXDESK_ALLOW_LOOPBACK_WEBHOOKS=1 by the e2e setup): a webhook channel to a receiver on loopback shows its
 * signing secret once (the receiver verifies a test delivery with it), a test delivery shows its result and is in
 * the delivery log, a redelivery reaches the receiver again, a private URL is refused with the service's message,
 * an e-mail channel to the approvers is added, a rule is created and edited, a disabled channel is enabled again, and a member without "Manage settings" sees the settings without their write
 * actions. axe-core runs on the pages it visits.
 *
 * The steps share one browser and run in order: each builds on the one before.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { demoLogin, devAccount } from '../support/browser-session';
import { baseUrl, client } from '../support/http-client';
import { eventually as until, startReceiver } from '../support/webhook-receiver';
import { launchBrowser, recordCspViolations, tabTo } from './browser';
import { apiData, bootstrapKey, eventually, expectAccessible, signInThroughProvider } from './console-support';

jest.setTimeout(90_000);

const suffix = randomUUID().slice(0, 8);
// Markup in a name must reach the page as text.
const channelName = `on-call <b>hook</b> ${suffix}`;
const ruleName = `page on-call ${suffix}`;

let browser: Browser;
let page: Page;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const cspViolations: string[] = [];
const state: { channelId?: string; secret?: string; ruleId?: string } = {};

const channels = () => page.getByRole('region', { name: 'Channels' });
const rules = () => page.getByRole('region', { name: 'Rules' });
const log = () => page.getByRole('region', { name: 'Delivery log' });

/** The secret panel's value, after it says it is shown only now. */
async function shownSecret(): Promise<string> {
  await channels().getByText('you will not see it again').waitFor();
  const secret = await channels().getByTestId('channel-secret').inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
  await channels().getByRole('button', { name: 'Copy' }).waitFor();
  return secret;
}

beforeAll(async () => {
  receiver = await startReceiver();
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  cspViolations.push(...recordCspViolations(page));
  // Rotate and delete ask first.
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${baseUrl()}/settings`);
  await signInThroughProvider(page, await demoLogin());
});

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

describe('the web console: notification settings', () => {
  it('links the notifications from the settings page', async () => {
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await tabTo(page, page.getByRole('link', { name: /^Notifications/ }));
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings/notifications');
    await expectAccessible(page, 'notifications-empty');
  });

  it('creates a webhook channel and shows its signing secret once', async () => {
    const form = page.getByRole('form', { name: 'Add a channel' });
    await form.getByLabel('Type').selectOption('webhook');
    await form.getByLabel('Name', { exact: true }).fill(channelName);
    await form.getByLabel(/^URL/).fill(receiver.url);
    await tabTo(page, form.getByRole('button', { name: 'Add channel' }));
    state.secret = await shownSecret();
    const row = channels().getByRole('row', { name: new RegExp(`on-call <b>hook</b> ${suffix}`) });
    await row.getByRole('cell', { name: 'Active', exact: true }).waitFor();
    await expectAccessible(page, 'notifications-channel-secret');

    const listed = (await apiData('/api/notification-channels')).data as Array<Record<string, unknown>>;
    const channel = listed.find((entry) => entry.name === channelName);
    expect(channel).toMatchObject({ type: 'webhook', enabled: true });
    expect(channel).not.toHaveProperty('secret');
    state.channelId = channel!.id as string;

    // Once dismissed, or on the next visit, the secret is nowhere on the page.
    await channels().getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await channels()
      .getByRole('row', { name: new RegExp(suffix) })
      .waitFor();
    expect(await page.content()).not.toContain(state.secret);
  });

  it('refuses a private URL with the service message beside the form', async () => {
    const form = page.getByRole('form', { name: 'Add a channel' });
    await form.getByLabel('Name', { exact: true }).fill(`private ${suffix}`);
    await form.getByLabel(/^URL/).fill('https://10.0.0.1/hook');
    await form.getByRole('button', { name: 'Add channel' }).click();
    await form
      .getByRole('alert')
      .getByText(/must be on a public address, not 10\.0\.0\.1/)
      .waitFor();
    const listed = (await apiData('/api/notification-channels')).data as Array<{ name: string }>;
    expect(listed.map((entry) => entry.name)).not.toContain(`private ${suffix}`);
  });

  it('adds an e-mail channel that writes to the members who may approve', async () => {
    const form = page.getByRole('form', { name: 'Add a channel' });
    await form.getByRole('combobox', { name: 'Type' }).selectOption({ label: 'E-mail' });
    await form.getByLabel('Name', { exact: true }).fill(`approvers ${suffix}`);
    await form.getByRole('checkbox', { name: /members who may approve/ }).check();
    expect(await form.getByLabel(/^Recipients/).count()).toBe(0);
    await form.getByRole('button', { name: 'Add channel' }).click();
    const row = channels().getByRole('row', { name: new RegExp(`approvers ${suffix}`) });
    await row.getByRole('cell', { name: 'the members who may approve' }).waitFor();
    const listed = (await apiData('/api/notification-channels')).data as Array<{ name: string; approvers?: boolean }>;
    expect(listed.find((entry) => entry.name === `approvers ${suffix}`)?.approvers).toBe(true);
  });

  it('sends a test delivery that the receiver verifies with the shown secret', async () => {
    await tabTo(page, channels().getByRole('button', { name: `Send test to ${channelName}` }));
    const result = channels().getByTestId('test-result');
    await result.getByText(/delivered · HTTP 200 · \d+ ms/).waitFor();
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    const payload = new Webhook(state.secret!).verify(request!.body, request!.headers as Record<string, string>);
    expect(payload).toMatchObject({ type: 'test', data: { channel_id: state.channelId } });
  });

  it('shows the test in the delivery log and redelivers it', async () => {
    const filter = page.getByRole('form', { name: 'Filter the delivery log' });
    await filter.getByRole('combobox', { name: /^Channel/ }).selectOption({ label: channelName });
    await filter.getByLabel('Status').selectOption('delivered');
    await filter.getByRole('button', { name: 'Show' }).click();
    const row = log().getByRole('row', { name: /test/ });
    await row.getByRole('cell', { name: 'delivered', exact: true }).waitFor();
    await row.getByRole('cell', { name: '200', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'answer 0' }).waitFor();
    await row.getByRole('cell', { name: /^\d+ ms$/ }).waitFor();
    await expectAccessible(page, 'notifications-delivery-log');

    await tabTo(page, row.getByRole('button', { name: /^Redeliver/ }));
    await log()
      .getByText(/is due again/)
      .waitFor();
    // The background loop sends it again, with the same idempotency key.
    await until(() => (receiver.received.length >= 2 ? true : undefined));
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    // Its second answer is in the log once the attempt is recorded (the list reads again on Refresh).
    const refreshed = await eventually(async () => {
      await filter.getByRole('button', { name: 'Refresh' }).click();
      return row.getByRole('cell', { name: 'answer 1' }).count();
    }, 1);
    expect(refreshed).toBe(1);
  });

  it('rotates the secret: a new one is shown once and signs from now on', async () => {
    await tabTo(page, channels().getByRole('button', { name: `Rotate secret of ${channelName}` }));
    const rotated = await shownSecret();
    expect(rotated).not.toBe(state.secret);
    await channels().getByRole('button', { name: 'Done' }).click();
    await channels()
      .getByRole('button', { name: `Send test to ${channelName}` })
      .click();
    await channels()
      .getByTestId('test-result')
      .getByText(/delivered · HTTP 200/)
      .waitFor();
    expect(receiver.received).toHaveLength(3);
    const latest = receiver.received.at(-1)!;
    expect(() => new Webhook(rotated).verify(latest.body, latest.headers as Record<string, string>)).not.toThrow();
  });

  it('creates and edits a rule', async () => {
    await tabTo(page, rules().getByRole('button', { name: 'New rule' }));
    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('Name', { exact: true }).fill(ruleName);
    await form.getByRole('combobox', { name: /^Channel/ }).selectOption({ label: `${channelName} (webhook)` });
    await form.getByRole('checkbox', { name: /^finding\.detected / }).uncheck();
    await form.getByRole('checkbox', { name: /^finding\.kev_added / }).check();
    await form.getByRole('checkbox', { name: /^scan\.failed / }).check();
    await form.getByLabel('Minimum severity').selectOption('critical');
    await form.getByLabel(/^KEV only/).check();
    await form.getByRole('checkbox', { name: 'active', exact: true }).check();
    await form.getByLabel('Send').selectOption('daily_digest');
    // Choosing the mode keeps what was ticked before it.
    expect(await form.getByLabel(/^KEV only/).isChecked()).toBe(true);
    await form.getByLabel('Digest hour').selectOption('9');
    await form.getByLabel('Time zone (IANA)').fill('Europe/Berlin');
    await tabTo(page, form.getByRole('button', { name: 'Create rule' }));
    await rules().getByText(`Rule ${ruleName} created.`).waitFor();
    const row = rules().getByRole('row', { name: new RegExp(ruleName) });
    await row.getByRole('cell', { name: 'daily digest at 09:00 Europe/Berlin' }).waitFor();
    await row.getByRole('cell', { name: 'critical only · KEV only · releases active' }).waitFor();
    await expectAccessible(page, 'notifications-rule');

    const stored = ((await apiData('/api/notification-rules')).data as Array<Record<string, unknown>>).find(
      (rule) => rule.name === ruleName,
    );
    expect(stored).toMatchObject({
      channelId: state.channelId,
      eventTypes: ['finding.kev_added', 'scan.failed'],
      filters: { minSeverity: 'critical', kevOnly: true, releaseStatus: ['active'] },
      mode: 'daily_digest',
      digestHour: 9,
      digestTimeZone: 'Europe/Berlin',
      enabled: true,
    });
    state.ruleId = stored!.id as string;

    await row.getByRole('button', { name: `Edit rule ${ruleName}` }).click();
    const edit = page.getByRole('form', { name: `Edit rule ${ruleName}` });
    await edit.getByLabel('Send').selectOption('immediate');
    await edit.getByLabel(/^KEV only/).uncheck();
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await rules().getByText(`Rule ${ruleName} saved.`).waitFor();
    const edited = await eventually(
      async () => {
        const { data } = await apiData(`/api/notification-rules/${state.ruleId}`);
        return { mode: data.mode, filters: data.filters };
      },
      { mode: 'immediate', filters: { minSeverity: 'critical', releaseStatus: ['active'] } },
    );
    expect(edited).toEqual({ mode: 'immediate', filters: { minSeverity: 'critical', releaseStatus: ['active'] } });
  });

  it('shows a member without "Manage settings" the settings but no write action', async () => {
    const reader = await devAccount('reader');
    const added = await client(bootstrapKey()).post('/api/members', {
      email: reader.email,
      name: 'reader',
      permissions: [],
    });
    expect(added.status).toBe(201);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const readerPage = await context.newPage();
    cspViolations.push(...recordCspViolations(readerPage));
    await readerPage.goto(`${baseUrl()}/settings/notifications`);
    await signInThroughProvider(readerPage, reader);
    await readerPage
      .getByRole('region', { name: 'Channels' })
      .getByRole('row', { name: new RegExp(`on-call <b>hook</b> ${suffix}`) })
      .waitFor();
    await readerPage
      .getByRole('region', { name: 'Rules' })
      .getByRole('row', { name: new RegExp(ruleName) })
      .waitFor();
    // The log is readable too: the test deliveries are in it.
    await readerPage.getByRole('region', { name: 'Delivery log' }).getByRole('row', { name: /test/ }).first().waitFor();
    await readerPage.getByText('changing them needs the “Manage settings” permission').waitFor();
    for (const name of ['Add channel', 'New rule', /^Send test/, /^Rotate secret/, /^Redeliver/, /^Delete/, /^Edit/])
      expect(await readerPage.getByRole('button', { name }).count()).toBe(0);
    await context.close();
  });

  it('shows a disabled channel with its state and enables it again', async () => {
    const off = await client(bootstrapKey()).put(`/api/notification-channels/${state.channelId}`, { enabled: false });
    expect(off.status).toBe(200);
    await page.reload();
    const row = channels().getByRole('row', { name: new RegExp(`on-call <b>hook</b> ${suffix}`) });
    await row.getByRole('cell', { name: /^Disabled/ }).waitFor();
    await tabTo(page, row.getByRole('button', { name: `Enable ${channelName}` }));
    await channels().getByText(`${channelName} enabled again.`).waitFor();
    await row.getByRole('cell', { name: 'Active', exact: true }).waitFor();
    expect((await apiData(`/api/notification-channels/${state.channelId}`)).data.enabled).toBe(true);
  });

  it('deletes the rule, then the channel', async () => {
    await rules()
      .getByRole('button', { name: `Delete rule ${ruleName}` })
      .click();
    await rules().getByText(`Rule ${ruleName} deleted.`).waitFor();
    await channels()
      .getByRole('button', { name: `Delete ${channelName}` })
      .click();
    await channels().getByText(`${channelName} deleted.`).waitFor();
    const left = await apiData('/api/notification-channels');
    expect((left.data as Array<{ id: string }>).map((channel) => channel.id)).not.toContain(state.channelId);
    expect(cspViolations).toEqual([]);
  });
});
