/**
 * Removing a member in the web console, in Debian's chromium against the real local server: the API keys and CI
 * trust policies a member owns are listed with their owner, and the removal either hands them over to another
 * manager (they keep working, owned by the heir) or revokes the keys and deletes the policies. The leavers, their
 * keys and policies are made through the services, as the admin CLI makes them (`--by`); the admin signs in
 * through the embedded provider's form.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { CI_SCOPES } from '../../shared/service/identity/scopes';
import { Members } from '../../shared/service/identity/teams';
import { managerOf, TrustPolicies } from '../../shared/service/identity/trust-policies';
import { demoLogin } from '../support/browser-session';
import { baseUrl } from '../support/http-client';
import { launchBrowser, recordCspViolations, tabTo } from './browser';
import { apiData, apiGet, expectAccessible, signInThroughProvider } from './console-support';

jest.setTimeout(90_000);

let browser: Browser;
let page: Page;
const cspViolations: string[] = [];

interface Leaver {
  id: string;
  email: string;
  key: string;
  keyId: string;
  keyName: string;
  policyId: string;
  policyName: string;
}

/** A manager of the demo team; with credentials, a key and a trust policy they made (both with the CI scopes). */
async function manager(label: string): Promise<Leaver> {
  const { teamId } = await demoLogin();
  const email = `${label}-${randomUUID().slice(0, 8)}@example.test`;
  const member = await Members.add(
    teamId,
    { email, name: label, permissions: ['settings.manage', 'content.write'] },
    OPERATOR_ACTOR,
  );
  const key = await ApiKeys.create(
    teamId,
    { name: `${label}-key-${randomUUID().slice(0, 6)}`, scopes: [...CI_SCOPES] },
    { byMemberId: member.id, operator: OPERATOR_ACTOR },
  );
  const policy = await TrustPolicies.create(
    teamId,
    {
      name: `${label}-ci-${randomUUID().slice(0, 6)}`,
      audience: 'vexdesk',
      claims: { repository_owner_id: '65', repository_id: '74' },
      scopes: [...CI_SCOPES],
    },
    await managerOf(teamId, member.id, OPERATOR_ACTOR),
  );
  return {
    id: member.id,
    email,
    key: key.key,
    keyId: key.id,
    keyName: key.name,
    policyId: policy.id,
    policyName: policy.name,
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads JSON
const listed = async (path: string, id: string): Promise<any> =>
  ((await apiData(path)).data as Array<{ id: string }>).find((entry) => entry.id === id);

/** The settings page lists the leaver's key and trust policy as owned by `ownerEmail`. */
async function expectOwner(leaver: Leaver, ownerEmail: string) {
  await page
    .getByRole('region', { name: 'API keys' })
    .getByRole('row', { name: new RegExp(leaver.keyName) })
    .getByRole('cell', { name: ownerEmail, exact: true })
    .waitFor();
  await page
    .getByRole('region', { name: 'CI trust policies' })
    .getByRole('row', { name: new RegExp(leaver.policyName) })
    .getByRole('cell', { name: ownerEmail, exact: true })
    .waitFor();
}

/** Opens the removal of `leaver` on the settings page; the removal form. */
async function startRemoval(leaver: Leaver) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await tabTo(page, page.getByRole('button', { name: `Remove ${leaver.email}` }));
  const form = page.getByRole('form', { name: `Remove ${leaver.email}` });
  await form.waitFor();
  return form;
}

let heir: Leaver;
let handedOver: Leaver;
let revoked: Leaver;

beforeAll(async () => {
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  cspViolations.push(...recordCspViolations(page));
  [heir, handedOver, revoked] = [await manager('heir'), await manager('leaver'), await manager('leaver')];
  await page.goto(`${baseUrl()}/settings`);
  await signInThroughProvider(page, await demoLogin());
});

afterAll(async () => {
  await browser?.close();
});

describe('the web console: removing a member and the credentials they own', () => {
  it("lists each API key's and trust policy's owner", async () => {
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    for (const leaver of [handedOver, revoked]) await expectOwner(leaver, leaver.email);
    await expectAccessible(page, '30-settings-credential-owners');
  });

  it("hands a removed member's keys and trust policies over to another manager", async () => {
    const form = await startRemoval(handedOver);
    // A radio group takes one Tab stop (the checked radio); the arrow keys choose within it.
    await tabTo(page, form.getByRole('radio', { name: /^Revoke the keys/ }), 'ArrowDown');
    await expect(form.getByRole('radio', { name: /^Hand them over/ }).isChecked()).resolves.toBe(true);
    await form.getByLabel('New owner').selectOption(heir.id);
    await expectAccessible(page, '31-member-removal-hand-over');
    await tabTo(page, form.getByRole('button', { name: 'Remove member' }));
    await page
      .getByText(`${handedOver.email} removed. Their API keys and CI trust policies now belong to ${heir.email}.`)
      .waitFor();

    // The lists read again: the heir owns both, and the key still works.
    await expectOwner(handedOver, heir.email);
    expect((await apiGet('/api/products', handedOver.key)).status).toBe(200);
    const key = await listed('/api/keys', handedOver.keyId);
    expect({ revokedAt: key.revokedAt, owner: key.owner.id }).toEqual({ revokedAt: null, owner: heir.id });
    expect((await listed('/api/trust-policies', handedOver.policyId)).owner.id).toBe(heir.id);
    expect(await listed('/api/members', handedOver.id)).toBeUndefined();
  });

  it("revokes a removed member's keys and deletes their trust policies by default", async () => {
    const form = await startRemoval(revoked);
    await expect(form.getByRole('radio', { name: /^Revoke the keys/ }).isChecked()).resolves.toBe(true);
    await tabTo(page, form.getByRole('button', { name: 'Remove member' }));
    await page
      .getByText(`${revoked.email} removed. Their API keys are revoked and their CI trust policies deleted.`)
      .waitFor();

    await page
      .getByRole('row', { name: new RegExp(revoked.keyName) })
      .getByText(/^Revoked/)
      .waitFor();
    await page
      .getByRole('region', { name: 'CI trust policies' })
      .getByRole('row', { name: new RegExp(revoked.policyName) })
      .waitFor({ state: 'detached' });
    expect((await listed('/api/keys', revoked.keyId)).revokedAt).not.toBeNull();
    expect((await apiGet('/api/products', revoked.key)).status).toBe(401);
    expect(await listed('/api/trust-policies', revoked.policyId)).toBeUndefined();
    expect(await listed('/api/members', revoked.id)).toBeUndefined();
    expect(cspViolations).toEqual([]);
  });
});
