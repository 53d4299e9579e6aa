/**
 * Browser sign-in and sessions (issue 12 items 1 and 2, docs/sign-in.md), through HTTP against the real
 * local server and its embedded OpenID provider, driven like a browser (redirects, a cookie jar, the
 * provider's login form).
 */
import { describe, expect, it } from '@jest/globals';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../shared/service/aws-clients';
import { keys } from '../../shared/service/data/keys';
import { toAuditEntry } from '../../shared/service/audit/audit-log';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { hashSessionId } from '../../shared/service/identity/sessions';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { baseUrl, request } from '../support/http-client';
import {
  browserFetch,
  browserSignIn,
  CookieJar,
  demoLogin,
  devAccount,
  follow,
  SESSION_COOKIE,
} from '../support/browser-session';

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

/** An invited member of a fresh team, signed in through the provider. */
async function signedInMember(team: Team, permissions: string[]) {
  const account = await devAccount('member');
  const invited = await team.api.post('/api/members', { email: account.email, permissions });
  expect(invited.status).toBe(201);
  const signIn = await browserSignIn(account);
  expect(signIn.session).toBeDefined();
  const me = await browserFetch(signIn.jar, `${baseUrl()}/api/me`);
  const csrfToken = (JSON.parse(me.text) as { data: { session: { csrfToken: string } } }).data.session.csrfToken;
  return { ...signIn, account, memberId: invited.body.data.id as string, csrfToken };
}

const json = (body: unknown, extra: Record<string, string> = {}) => ({
  body: JSON.stringify(body),
  headers: { 'Content-Type': 'application/json', ...extra },
});

describe('sign-in through the embedded provider', () => {
  it('signs the demo admin in: a session cookie (HttpOnly, SameSite=Lax, Path=/), a landing on /, and a member caller', async () => {
    const { last, session, jar } = await browserSignIn(await demoLogin());
    expect(last.status).toBe(303);
    expect(last.headers.get('location')).toBe('/');
    const cookie = last.headers.getSetCookie().find((line) => line.startsWith(`${SESSION_COOKIE}=`));
    expect(cookie).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    // Plain-HTTP loopback: no Secure (a browser would drop it), so not the __Host- name (docs/sign-in.md).
    expect(cookie).not.toMatch(/Secure/);
    expect(session).toMatch(/^[\w-]{43}$/);

    const me = await browserFetch(jar, `${baseUrl()}/api/me`);
    expect(me.status).toBe(200);
    const body = JSON.parse(me.text) as {
      data: { caller: { type: string }; scopes: string[]; session: { csrfToken: string; email: string } };
    };
    expect(body.data.caller.type).toBe('member');
    expect(body.data.scopes).toContain('settings:write');
    expect(body.data.session.email).toBe('demo@vexdesk.local');
    expect(body.data.session.csrfToken).toMatch(/^[\w-]{43}$/);
  });

  it('stores only the hash of the session id, and audits the sign-in as the member', async () => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, []);
    const entries = (await readAuditLog(team.teamId)).map(toAuditEntry).filter((entry) => entry.action === 'sign_in');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actorId: member.memberId,
      actorEmail: member.account.email,
      entityType: 'session',
    });
    const stored = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.session(hashSessionId(member.session!)) }),
    );
    expect(stored.Item).toBeDefined();
    expect(JSON.stringify(stored.Item)).not.toContain(member.session);
  });

  it('answers the provider form again for a wrong password, and no session', async () => {
    const { email } = await demoLogin();
    const { last, session } = await browserSignIn({ email, password: 'not-the-password' });
    expect(last.status).toBe(401);
    expect(last.text).toContain('Wrong email or password');
    expect(session).toBeUndefined();
  });

  it('gives an uninvited identity a clear 403 page, escaped, and no session', async () => {
    const account = await devAccount('stranger');
    const { last, session } = await browserSignIn(account);
    expect(last.status).toBe(403);
    expect(last.headers.get('content-type')).toMatch(/^text\/html/);
    expect(last.text).toContain('You have not been invited yet');
    expect(last.text).toContain(account.email);
    expect(last.text).not.toMatch(/<script/i);
    expect(session).toBeUndefined();
  });

  it('issues a new session id at sign-in, whatever cookie the browser had (no fixation)', async () => {
    const jar = new CookieJar();
    const planted = 'A'.repeat(43);
    jar.set(baseUrl(), SESSION_COOKIE, planted);
    const { session } = await browserSignIn(await demoLogin(), { jar });
    expect(session).toBeDefined();
    expect(session).not.toBe(planted);
  });

  it('refuses a replayed callback and a callback from another browser', async () => {
    const { hops, jar } = await browserSignIn(await demoLogin());
    const callback = hops.find((hop) => hop.url.startsWith(`${baseUrl()}/api/auth/callback`))!;
    const replay = await browserFetch(jar, callback.url);
    expect(replay.status).toBe(403);
    expect(replay.text).toContain('This sign-in has expired');
    const elsewhere = await browserFetch(new CookieJar(), callback.url);
    expect(elsewhere.status).toBe(403);
  });

  it('lands on the return path asked for, but never on another origin', async () => {
    expect(
      (await browserSignIn(await demoLogin(), { returnTo: '/products?page=2' })).last.headers.get('location'),
    ).toBe('/products?page=2');
    expect(
      (await browserSignIn(await demoLogin(), { returnTo: '//evil.example/x' })).last.headers.get('location'),
    ).toBe('/');
    expect(
      (await browserSignIn(await demoLogin(), { returnTo: 'https://evil.example/' })).last.headers.get('location'),
    ).toBe('/');
  });
});

describe('session requests', () => {
  it('lets a cookie request change state only with the CSRF token and the console Origin (403 otherwise)', async () => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, ['content.write']);
    const url = `${baseUrl()}/api/products`;
    const product = () => ({ name: 'From the browser', slug: uniqueSlug('session') });
    const origin = new URL(baseUrl()).origin;

    expect((await browserFetch(member.jar, url, { method: 'POST', ...json(product()) })).status).toBe(403);
    expect(
      (await browserFetch(member.jar, url, { method: 'POST', ...json(product(), { Origin: 'https://evil.example' }) }))
        .status,
    ).toBe(403);
    expect(
      (
        await browserFetch(member.jar, url, {
          method: 'POST',
          ...json(product(), { Origin: 'https://evil.example', 'X-CSRF-Token': member.csrfToken }),
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await browserFetch(member.jar, url, {
          method: 'POST',
          ...json(product(), { Origin: origin, 'X-CSRF-Token': 'x'.repeat(43) }),
        })
      ).status,
    ).toBe(403);
    expect(
      (await browserFetch(member.jar, url, { method: 'POST', ...json(product(), { Origin: origin }) })).status,
    ).toBe(403);
    const created = await browserFetch(member.jar, url, {
      method: 'POST',
      ...json(product(), { Origin: origin, 'X-CSRF-Token': member.csrfToken }),
    });
    expect(created.status).toBe(201);
    // Reads need neither; Bearer requests are unaffected.
    expect((await browserFetch(member.jar, `${url}?perPage=10`)).status).toBe(200);
    expect((await team.api.post('/api/products', product())).status).toBe(201);
  });

  it('takes a Bearer credential first: an invalid one with a valid cookie is 401', async () => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, []);
    const response = await browserFetch(member.jar, `${baseUrl()}/api/me`, {
      headers: { Authorization: `Bearer vxd_${'0'.repeat(64)}` },
    });
    expect(response.status).toBe(401);
    // A valid key with the cookie acts as the key, not the member.
    const asKey = await browserFetch(member.jar, `${baseUrl()}/api/me`, {
      headers: { Authorization: `Bearer ${team.key}` },
    });
    expect((JSON.parse(asKey.text) as { data: { caller: { type: string } } }).data.caller.type).toBe('service_account');
  });

  it("gives a session the scopes of the member's permissions, changed on the next request", async () => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, []);
    const origin = new URL(baseUrl()).origin;
    const create = () =>
      browserFetch(member.jar, `${baseUrl()}/api/products`, {
        method: 'POST',
        ...json({ name: 'P', slug: uniqueSlug('scoped') }, { Origin: origin, 'X-CSRF-Token': member.csrfToken }),
      });
    expect((await browserFetch(member.jar, `${baseUrl()}/api/products?perPage=10`)).status).toBe(200);
    expect((await create()).status).toBe(403);
    expect((await browserFetch(member.jar, `${baseUrl()}/api/keys`)).status).toBe(403);
    expect((await team.api.put(`/api/members/${member.memberId}`, { permissions: ['content.write'] })).status).toBe(
      200,
    );
    expect((await create()).status).toBe(201);
    expect((await team.api.put(`/api/members/${member.memberId}`, { permissions: [] })).status).toBe(200);
    expect((await create()).status).toBe(403);
  });

  it('lets a member holding settings.manage manage keys with the session', async () => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, ['settings.manage', 'content.write']);
    const origin = new URL(baseUrl()).origin;
    const created = await browserFetch(member.jar, `${baseUrl()}/api/keys`, {
      method: 'POST',
      ...json(
        { name: 'from-console', scopes: ['products:read'] },
        { Origin: origin, 'X-CSRF-Token': member.csrfToken },
      ),
    });
    expect(created.status).toBe(201);
    const { key, id } = (JSON.parse(created.text) as { data: { key: string; id: string } }).data;
    expect((await request('GET', '/api/products?perPage=1', { key })).status).toBe(200);
    const entry = (await readAuditLog(team.teamId)).map(toAuditEntry).find((candidate) => candidate.entityId === id);
    expect(entry).toMatchObject({ action: 'create', actorId: member.memberId, actorEmail: member.account.email });
    expect(
      (
        await browserFetch(member.jar, `${baseUrl()}/api/keys/${id}`, {
          method: 'DELETE',
          headers: { Origin: origin, 'X-CSRF-Token': member.csrfToken },
        })
      ).status,
    ).toBe(204);
    expect((await request('GET', '/api/products?perPage=1', { key })).status).toBe(401);
  });

  it("ends a removed member's session on their next request", async () => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, ['content.write']);
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(200);
    expect((await team.api.delete(`/api/members/${member.memberId}`)).status).toBe(204);
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(401);
    // Invited again, the person is a new member: the old session stays ended.
    expect((await team.api.post('/api/members', { email: member.account.email })).status).toBe(201);
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(401);
  });

  it('keeps an active session alive: a request moves its last-seen time (the idle timeout slides)', async () => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, []);
    const key = keys.session(hashSessionId(member.session!));
    const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString();
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET lastSeenAt = :at',
        ExpressionAttributeValues: { ':at': twoMinutesAgo },
      }),
    );
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(200);
    const stored = await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    expect(Date.parse(String(stored.Item?.lastSeenAt))).toBeGreaterThan(Date.parse(twoMinutesAgo) + 60_000);
  });

  it.each([
    ['idle for longer than the idle timeout', { lastSeenAt: new Date(Date.now() - 8 * 3600_000 - 1000).toISOString() }],
    ['past its absolute timeout', { absoluteExpiresAt: new Date(Date.now() - 1000).toISOString() }],
  ])('refuses a session %s (401)', async (_label, change) => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, []);
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(200);
    const [[name, value]] = Object.entries(change) as [[string, string]];
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.session(hashSessionId(member.session!)),
        UpdateExpression: 'SET #field = :value',
        ExpressionAttributeNames: { '#field': name },
        ExpressionAttributeValues: { ':value': value },
      }),
    );
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(401);
  });

  it("ends a session idle for longer than the team's shorter idle timeout, set in the team settings", async () => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, []);
    const key = keys.session(hashSessionId(member.session!));
    const idleFor = async (minutes: number) => {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET lastSeenAt = :at',
          ExpressionAttributeValues: { ':at': new Date(Date.now() - minutes * 60_000).toISOString() },
        }),
      );
    };
    // 31 minutes idle is nothing under the default 8 hours.
    await idleFor(31);
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(200);
    const changed = await team.api.put('/api/settings', { sessionTimeouts: { idleMinutes: 30 } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.sessionTimeouts).toEqual({ idleMinutes: 30, absoluteMinutes: 7 * 24 * 60 });
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(200);
    await idleFor(31);
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(401);
    const entry = (await readAuditLog(team.teamId))
      .map(toAuditEntry)
      .find((candidate) => candidate.entityType === 'team_settings');
    expect(entry?.changes).toMatchObject({ sessionIdleMinutes: { from: 480, to: 30 } });
  });

  it("ends a running session once the team's absolute timeout since its sign-in has passed", async () => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, []);
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.session(hashSessionId(member.session!)),
        UpdateExpression: 'SET createdAt = :at',
        ExpressionAttributeValues: { ':at': new Date(Date.now() - 2 * 3600_000).toISOString() },
      }),
    );
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(200);
    expect(
      (await team.api.put('/api/settings', { sessionTimeouts: { absoluteMinutes: 60, idleMinutes: 30 } })).status,
    ).toBe(200);
    expect((await browserFetch(member.jar, `${baseUrl()}/api/me`)).status).toBe(401);
  });

  it("starts a session with the team's absolute timeout, in the cookie and the audit entry", async () => {
    const team = await createTeamWithKey();
    expect(
      (await team.api.put('/api/settings', { sessionTimeouts: { absoluteMinutes: 120, idleMinutes: 15 } })).status,
    ).toBe(200);
    const member = await signedInMember(team, []);
    const cookie = member.last.headers.getSetCookie().find((line) => line.startsWith(`${SESSION_COOKIE}=`));
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(119 * 60);
    expect(maxAge).toBeLessThanOrEqual(120 * 60);
    const signIn = (await readAuditLog(team.teamId)).map(toAuditEntry).find((entry) => entry.action === 'sign_in');
    expect(signIn?.changes).toMatchObject({ idleTimeoutMinutes: 15 });
  });

  it.each([
    [{ idleMinutes: 4 }, 'sessionTimeouts.idleMinutes'],
    [{ idleMinutes: 24 * 60 + 1 }, 'sessionTimeouts.idleMinutes'],
    [{ absoluteMinutes: 59 }, 'sessionTimeouts.absoluteMinutes'],
    [{ absoluteMinutes: 30 * 24 * 60 + 1 }, 'sessionTimeouts.absoluteMinutes'],
    [{ idleMinutes: 1.5 }, 'sessionTimeouts.idleMinutes'],
    [{ idleMinutes: 600, absoluteMinutes: 300 }, 'sessionTimeouts.idleMinutes'],
    [{ idle: 30 }, 'sessionTimeouts'],
  ])('refuses session timeouts %j (422 at %s) and changes nothing', async (sessionTimeouts, path) => {
    const team = await createTeamWithKey();
    const refused = await team.api.put('/api/settings', { sessionTimeouts });
    expect(refused.status).toBe(422);
    expect(refused.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect((await team.api.get('/api/settings')).body.data.sessionTimeouts).toEqual({
      idleMinutes: 480,
      absoluteMinutes: 10_080,
    });
  });

  it('signs out server-side: the old cookie no longer works, and sign-out needs the CSRF token', async () => {
    const team = await createTeamWithKey();
    const member = await signedInMember(team, []);
    const stolen = member.session!;
    const logout = `${baseUrl()}/api/auth/logout`;
    expect(
      (await browserFetch(member.jar, logout, { method: 'POST', headers: { Origin: 'https://evil.example' } })).status,
    ).toBe(403);
    const out = await browserFetch(member.jar, logout, {
      method: 'POST',
      headers: { Origin: new URL(baseUrl()).origin, 'X-CSRF-Token': member.csrfToken },
    });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().join()).toMatch(new RegExp(`^${SESSION_COOKIE}=; .*Max-Age=0`));
    const replayed = new CookieJar();
    replayed.set(baseUrl(), SESSION_COOKIE, stolen);
    expect((await browserFetch(replayed, `${baseUrl()}/api/me`)).status).toBe(401);
    const actions = (await readAuditLog(team.teamId))
      .map(toAuditEntry)
      .filter((entry) => entry.entityType === 'session')
      .map((entry) => entry.action);
    expect(actions.sort()).toEqual(['sign_in', 'sign_out']);
  });

  it('answers 401 without any credential, as before', async () => {
    expect((await follow(new CookieJar(), `${baseUrl()}/api/me`))[0]!.status).toBe(401);
  });
});
