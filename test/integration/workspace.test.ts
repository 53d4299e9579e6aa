/**
 * The team workspace's self-service API over HTTP (issue 12 item 3): members and API keys,
 * only for holders of settings.manage (spec "Authentication" rule 7), each change audited (rule 11).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { toAuditEntry } from '../../shared/service/audit/audit-log';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { getItem } from '../../shared/service/data/table-client';
import { keys } from '../../shared/service/data/keys';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { Members } from '../../shared/service/identity/teams';
import { SCOPES } from '../../shared/service/identity/scopes';
import { addKey, createTeamWithKey } from '../support/factories';
import { client, request } from '../support/http-client';

const email = (label: string) => `${label}-${randomUUID().slice(0, 8)}@example.test`;

describe('self-service API keys', () => {
  it('creates a key whose value is answered once and works at once, lists it without the value, and revokes it', async () => {
    const team = await createTeamWithKey();
    const created = await team.api.post('/api/keys', {
      name: 'ci-upload',
      scopes: ['products:read'],
      expiresInDays: 90,
    });
    expect(created.status).toBe(201);
    const { key, id } = created.body.data;
    expect(key).toMatch(/^vxd_[0-9a-f]{64}$/);
    expect(created.body.data.serviceAccount).toBe('api_ci-upload');
    expect(Date.parse(created.body.data.expiresAt) - Date.now()).toBeGreaterThan(89 * 86_400_000);
    expect((await client(key).get('/api/products?perPage=10')).status).toBe(200);

    const listed = await team.api.get('/api/keys');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((entry: { id: string }) => entry.id)).toContain(id);
    expect(listed.text).not.toContain(key);
    expect(listed.text).not.toMatch(/keyHash|vxd_/);

    expect((await team.api.delete(`/api/keys/${id}`)).status).toBe(204);
    expect((await client(key).get('/api/products?perPage=10')).status).toBe(401);
    // Spec rule 9: the service account is gone with the key.
    const record = await ApiKeys.find(team.teamId, id);
    expect(record?.revokedAt).not.toBeNull();
    expect(await getItem(keys.serviceAccount(team.teamId, record!.serviceAccountId))).toBeUndefined();
    expect((await team.api.delete(`/api/keys/${id}`)).status).toBe(409);

    const entries = (await readAuditLog(team.teamId)).map(toAuditEntry).filter((entry) => entry.entityId === id);
    expect(entries.map((entry) => entry.action).sort()).toEqual(['create', 'revoke']);
    expect(entries.every((entry) => entry.actorName === `api_${team.keyName}`)).toBe(true);
  });

  it('refuses a key without settings:write (403) and a key whose creator no longer holds settings.manage', async () => {
    const team = await createTeamWithKey();
    const reader = await addKey(team.teamId, team.memberId, ['settings:read', 'products:read']);
    expect((await reader.api.post('/api/keys', { name: 'nope', scopes: ['products:read'] })).status).toBe(403);
    expect((await reader.api.get('/api/keys')).status).toBe(200);

    const other = await Members.add(
      team.teamId,
      { email: email('other'), name: 'Other', permissions: ['settings.manage', 'content.write'] },
      OPERATOR_ACTOR,
    );
    const delegated = await addKey(team.teamId, other.id, SCOPES);
    expect((await delegated.api.get('/api/keys')).status).toBe(200);
    await Members.update(team.teamId, other.id, { permissions: [] }, OPERATOR_ACTOR);
    const refused = await delegated.api.post('/api/keys', { name: 'after-demotion', scopes: ['products:read'] });
    expect(refused.status).toBe(403);
    // The key keeps settings:write on paper; it acts with at most its owner's permissions.
    expect(refused.body.error.message).toMatch(/settings:write.*member it acts for/);
    expect((await delegated.api.get('/api/keys')).body.error.message).toMatch(/settings\.manage/);
  });

  it('never grants a new key a scope the calling key lacks', async () => {
    const team = await createTeamWithKey();
    const narrow = await addKey(team.teamId, team.memberId, ['settings:read', 'settings:write', 'products:read']);
    const response = await narrow.api.post('/api/keys', { name: 'wider', scopes: ['products:write'] });
    expect(response.status).toBe(403);
    expect(response.body.error.message).toMatch(/products:write/);
  });

  it.each([
    ['an expiry outside the choices', { name: 'k', scopes: ['products:read'], expiresInDays: 7 }],
    ['no scopes', { name: 'k', scopes: [] }],
    ['an unknown scope', { name: 'k', scopes: ['root'] }],
    ['a name with spaces', { name: 'my key', scopes: ['products:read'] }],
  ])('answers 422 for %s', async (_label, body) => {
    const team = await createTeamWithKey();
    expect((await team.api.post('/api/keys', body)).status).toBe(422);
  });

  it('answers 404 for a key of another team', async () => {
    const mine = await createTeamWithKey();
    const theirs = await createTeamWithKey();
    expect((await mine.api.delete(`/api/keys/${theirs.keyId}`)).status).toBe(404);
    expect((await request('GET', '/api/products?perPage=1', { key: theirs.key })).status).toBe(200);
  });
});

describe('self-service members', () => {
  it('invites by email, changes permissions and removes, each audited', async () => {
    const team = await createTeamWithKey();
    const address = email('Invitee');
    const invited = await team.api.post('/api/members', { email: address, permissions: ['content.write'] });
    expect(invited.status).toBe(201);
    const member = invited.body.data;
    expect(member).toMatchObject({
      email: address.toLowerCase(),
      name: address.slice(0, address.indexOf('@')).toLowerCase(),
      permissions: ['content.write'],
    });
    expect((await team.api.post('/api/members', { email: address.toUpperCase() })).status).toBe(409);
    expect(await Members.loginOf(address, team.teamId)).toMatchObject({
      memberId: member.id,
      permissions: ['content.write'],
    });

    const updated = await team.api.put(`/api/members/${member.id}`, {
      permissions: ['content.write', 'settings.manage'],
    });
    expect(updated.status).toBe(200);
    expect((await Members.loginOf(address, team.teamId))?.permissions).toEqual(['content.write', 'settings.manage']);

    const listed = await team.api.get('/api/members');
    expect(listed.body.data.map((entry: { id: string }) => entry.id)).toEqual([team.memberId, member.id]);

    expect((await team.api.delete(`/api/members/${member.id}`)).status).toBe(204);
    expect(await Members.loginOf(address, team.teamId)).toBeUndefined();
    expect((await team.api.delete(`/api/members/${member.id}`)).status).toBe(404);

    const actions = (await readAuditLog(team.teamId))
      .map(toAuditEntry)
      .filter((entry) => entry.entityId === member.id)
      .map((entry) => entry.action);
    expect(actions.sort()).toEqual(['create', 'delete', 'update']);
  });

  it('keeps the last holder of settings.manage (409)', async () => {
    const team = await createTeamWithKey();
    const demoted = await team.api.put(`/api/members/${team.memberId}`, { permissions: [] });
    expect(demoted.status).toBe(409);
    expect(demoted.body.error.code).toBe('last_manager');
    expect((await team.api.delete(`/api/members/${team.memberId}`)).status).toBe(409);
  });

  it('keeps a manager when the last two are removed at the same time: exactly one removal succeeds, the other is 409', async () => {
    for (let round = 0; round < 3; round += 1) {
      const team = await createTeamWithKey();
      const second = await Members.add(
        team.teamId,
        { email: email('manager'), name: 'Second', permissions: ['settings.manage'] },
        OPERATOR_ACTOR,
      );
      // The operator's key: its authority does not hang on either manager, so both removals pass authorization.
      const operatorKey = await ApiKeys.create(
        team.teamId,
        { name: `operator-${round}`, scopes: [...SCOPES] },
        { operator: OPERATOR_ACTOR },
      );
      const api = client(operatorKey.key);
      const answers = await Promise.all([
        api.delete(`/api/members/${team.memberId}`),
        api.delete(`/api/members/${second.id}`),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([204, 409]);
      expect(answers.find((answer) => answer.status === 409)?.body.error.code).toBe('last_manager');
      const managers = (await Members.list(team.teamId)).filter((member) =>
        member.permissions.includes('settings.manage'),
      );
      expect(managers).toHaveLength(1);
    }
  });

  it('keeps a manager when one is removed while the other is demoted at the same time', async () => {
    const team = await createTeamWithKey();
    const second = await Members.add(
      team.teamId,
      { email: email('manager'), name: 'Second', permissions: ['settings.manage'] },
      OPERATOR_ACTOR,
    );
    const api = client(
      (await ApiKeys.create(team.teamId, { name: 'operator', scopes: [...SCOPES] }, { operator: OPERATOR_ACTOR })).key,
    );
    const answers = await Promise.all([
      api.put(`/api/members/${team.memberId}`, { permissions: ['content.write'] }),
      api.delete(`/api/members/${second.id}`),
    ]);
    // Whichever commits first wins (the demotion answers 200, the removal 204); the other is refused.
    expect(answers.filter((answer) => answer.status === 409).map((answer): unknown => answer.body.error.code)).toEqual([
      'last_manager',
    ]);
    expect(answers.filter((answer) => answer.status === 200 || answer.status === 204)).toHaveLength(1);
    expect(
      (await Members.list(team.teamId)).filter((member) => member.permissions.includes('settings.manage')),
    ).toHaveLength(1);
  });

  it('refuses member management without settings:write and answers 422 for a bad email', async () => {
    const team = await createTeamWithKey();
    const reader = await addKey(team.teamId, team.memberId, ['settings:read']);
    expect((await reader.api.post('/api/members', { email: email('x') })).status).toBe(403);
    expect((await team.api.post('/api/members', { email: 'not-an-email' })).status).toBe(422);
    expect((await team.api.post('/api/members', { email: email('x'), permissions: ['root'] })).status).toBe(422);
  });
});
