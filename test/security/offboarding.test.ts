/**
 * Offboarding ends access: removing a member revokes the API keys they own (keys their keys made
 * included) and deletes the trust policies they own, whose CI tokens then stop at once; or, when the
 * removal names `handOverTo`, a manager takes them over and they act with that manager's
 * permissions. Short of removal, every credential acts with at most its owner's current permissions:
 * a demoted owner's key loses what the owner lost, on the next request, and gets it back with it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { toAuditEntry } from '../../shared/service/audit/audit-log';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { SCOPES } from '../../shared/service/identity/scopes';
import { Members } from '../../shared/service/identity/teams';
import { uniqueSlug } from '../support/factories';
import { startTestIssuer, type TestIssuer } from '../support/oidc-issuer';
import {
  addMember,
  exchangeToken,
  keyApi,
  keyOf,
  newTeam,
  policyBody,
  setPermissions,
  signedInMember,
  workloadOf,
  type Api,
  type Team,
} from './principals';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(async () => {
  await issuer.close();
});

const product = () => ({ name: 'Widget', slug: uniqueSlug('offboard'), vendor: 'ACME' });

/** What the security review's leaver did with their key after removal: each a write of its own kind. */
async function writesOf(api: Api) {
  return {
    createTrustPolicy: (await api.send('POST', '/api/trust-policies', policyBody(issuer, ['products:read']))).status,
    updateTeamSettings: (await api.send('PUT', '/api/settings', { requireDistinctApprover: true })).status,
    rotatePublisherKey: (await api.send('POST', '/api/settings/publisher-keys/rotate')).status,
    createProduct: (await api.send('POST', '/api/products', product())).status,
  };
}

/** A leaver holding every permission, with a key, a key that key made, a trust policy that key made and a CI token under it. */
async function leaverWithCredentials(team: Team) {
  const leaver = await addMember(team.teamId, ['settings.manage', 'content.write']);
  const key = await keyOf(team.teamId, leaver.id, SCOPES);
  const made = await key.api.send('POST', '/api/keys', { name: `made-${randomUUID().slice(0, 8)}`, scopes: SCOPES });
  expect(made.status).toBe(201);
  const policy = await key.api.send(
    'POST',
    '/api/trust-policies',
    policyBody(issuer, ['products:read', 'products:write']),
  );
  expect(policy.status).toBe(201);
  const token = await exchangeToken(issuer, team.teamId, policy.body.data.id);
  return {
    leaver,
    key,
    madeKey: { id: made.body.data.id as string, key: made.body.data.key as string },
    policyId: policy.body.data.id as string,
    token,
  };
}

const bearer = keyApi;

describe('removing a member', () => {
  it("revokes their keys (and those their keys made) and deletes their trust policies, ending the policies' CI tokens", async () => {
    const team = await newTeam();
    const admin = bearer(team.key);
    const { leaver, key, madeKey, policyId, token } = await leaverWithCredentials(team);
    expect(await writesOf(key.api)).toEqual({
      createTrustPolicy: 201,
      updateTeamSettings: 200,
      rotatePublisherKey: 201,
      createProduct: 201,
    });

    expect((await admin.send('DELETE', `/api/members/${leaver.id}`)).status).toBe(204);

    for (const credential of [key.key, madeKey.key, token]) {
      expect((await bearer(credential).send('GET', '/api/me')).status).toBe(401);
      expect(await writesOf(bearer(credential))).toEqual({
        createTrustPolicy: 401,
        updateTeamSettings: 401,
        rotatePublisherKey: 401,
        createProduct: 401,
      });
    }
    const listed = (await admin.send('GET', '/api/keys')).body.data as { id: string; revokedAt: string | null }[];
    for (const id of [key.id, madeKey.id])
      expect(listed.find((entry) => entry.id === id)?.revokedAt).toEqual(expect.any(String));
    const policies = (await admin.send('GET', '/api/trust-policies')).body.data as { id: string }[];
    expect(policies.map((policy) => policy.id)).not.toContain(policyId);
    // The removing manager's own key keeps working.
    expect((await admin.send('POST', '/api/products', product())).status).toBe(201);

    const revocations = (await readAuditLog(team.teamId))
      .map(toAuditEntry)
      .filter((entry) => entry.entityType === 'api_key' && entry.action === 'revoke')
      .map((entry) => entry.entityId);
    expect(revocations.sort()).toEqual([key.id, madeKey.id].sort());
  });

  it('ends the access of a removed member who signed in and made a key in the console', async () => {
    const team = await newTeam();
    const { api: session, member } = await signedInMember(team.teamId, ['settings.manage', 'content.write']);
    const made = await session.send('POST', '/api/keys', { name: 'console-made', scopes: ['products:write'] });
    expect(made.status).toBe(201);
    expect((await bearer(team.key).send('DELETE', `/api/members/${member.id}`)).status).toBe(204);
    expect((await session.send('GET', '/api/me')).status).toBe(401);
    expect((await bearer(made.body.data.key).send('POST', '/api/products', product())).status).toBe(401);
  });

  it('hands their keys and trust policies to the manager named in handOverTo, who owns them from then on', async () => {
    const team = await newTeam();
    const { leaver, key, madeKey, policyId, token } = await leaverWithCredentials(team);
    // The heir manages the team but does not do the day-to-day work.
    const heir = await addMember(team.teamId, ['settings.manage']);
    const admin = bearer(team.key);

    expect((await admin.send('DELETE', `/api/members/${leaver.id}?handOverTo=${heir.id}`)).status).toBe(204);

    expect(await Members.find(team.teamId, leaver.id)).toBeUndefined();
    const listed = (await admin.send('GET', '/api/keys')).body.data as {
      id: string;
      revokedAt: string | null;
      owner: { id: string };
    }[];
    for (const id of [key.id, madeKey.id])
      expect(listed.find((entry) => entry.id === id)).toMatchObject({ revokedAt: null, owner: { id: heir.id } });
    const policies = (await admin.send('GET', '/api/trust-policies')).body.data as {
      id: string;
      owner: { id: string };
    }[];
    expect(policies.find((policy) => policy.id === policyId)).toMatchObject({
      owner: { id: heir.id, email: heir.email },
    });

    // They keep working, with at most the heir's permissions: settings yes, content no.
    expect((await key.api.send('PUT', '/api/settings', { requireDistinctApprover: false })).status).toBe(200);
    expect((await key.api.send('POST', '/api/products', product())).status).toBe(403);
    expect((await bearer(token).send('GET', '/api/products')).status).toBe(200);
    expect((await bearer(token).send('POST', '/api/products', product())).status).toBe(403);
    await setPermissions(team.teamId, heir.id, ['settings.manage', 'content.write']);
    expect((await key.api.send('POST', '/api/products', product())).status).toBe(201);
    expect((await bearer(token).send('POST', '/api/products', product())).status).toBe(201);

    const handOvers = (await readAuditLog(team.teamId))
      .map(toAuditEntry)
      .filter((entry) => entry.action === 'hand_over')
      .map((entry) => entry.entityId);
    expect(handOvers.sort()).toEqual([key.id, madeKey.id, policyId].sort());
  });

  it.each<[string, (team: Team, leaverId: string) => Promise<string> | string]>([
    ['a member without settings.manage', async (team) => (await addMember(team.teamId, ['content.write'])).id],
    ['the member being removed', (_team, leaverId) => leaverId],
    ['an id that is no member of the team', () => randomUUID()],
    ['a manager of another team', async () => (await newTeam()).memberId],
    ['something that is not a member id', () => 'nobody'],
  ])('refuses handOverTo naming %s (422) and removes nothing', async (_label, heirOf) => {
    const team = await newTeam();
    const { leaver, key } = await leaverWithCredentials(team);
    const heir = await heirOf(team, leaver.id);
    const response = await bearer(team.key).send('DELETE', `/api/members/${leaver.id}?handOverTo=${heir}`);
    expect(response.status).toBe(422);
    expect(response.body.error.details?.[0]?.path).toBe('handOverTo');
    expect(await Members.find(team.teamId, leaver.id)).toBeDefined();
    expect((await key.api.send('GET', '/api/me')).status).toBe(200);
  });
});

describe("a credential acts with at most its owner's current permissions", () => {
  it("follows the owner's permissions on every request: settings:write routes check the owner, not only the key", async () => {
    const team = await newTeam();
    const owner = await addMember(team.teamId, ['settings.manage', 'content.write']);
    const key = await keyOf(team.teamId, owner.id, SCOPES);

    await setPermissions(team.teamId, owner.id, ['content.write']);
    expect(await writesOf(key.api)).toEqual({
      createTrustPolicy: 403,
      updateTeamSettings: 403,
      rotatePublisherKey: 403,
      createProduct: 201,
    });
    await setPermissions(team.teamId, owner.id, ['settings.manage']);
    expect(await writesOf(key.api)).toEqual({
      createTrustPolicy: 201,
      updateTeamSettings: 200,
      rotatePublisherKey: 201,
      createProduct: 403,
    });
  });

  it("caps a CI token by its trust policy owner's current permissions", async () => {
    const team = await newTeam();
    const owner = await addMember(team.teamId, ['settings.manage', 'content.write']);
    const ci = await workloadOf(issuer, team.teamId, owner.id, ['products:read', 'products:write']);
    expect((await ci.api.send('POST', '/api/products', product())).status).toBe(201);
    await setPermissions(team.teamId, owner.id, ['settings.manage']);
    expect((await ci.api.send('POST', '/api/products', product())).status).toBe(403);
    expect((await ci.api.send('GET', '/api/products')).status).toBe(200);
  });
});

describe('trust policies record the person they act for', () => {
  it('lists each policy with its owner: the member behind the session or key that made it, or the operator', async () => {
    const team = await newTeam();
    const { api: session, member } = await signedInMember(team.teamId, ['settings.manage', 'content.write']);
    const bySession = await session.send('POST', '/api/trust-policies', policyBody(issuer, ['products:read']));
    expect(bySession.status).toBe(201);
    expect(bySession.body.data).toMatchObject({
      createdBy: member.id,
      owner: { kind: 'member', id: member.id, email: member.email },
    });
    const byKey = await bearer(team.key).send('POST', '/api/trust-policies', policyBody(issuer, ['products:read']));
    const manager = await Members.get(team.teamId, team.memberId);
    expect(byKey.body.data.owner).toEqual({ kind: 'member', id: manager.id, email: manager.email });
    const listed = (await session.send('GET', '/api/trust-policies')).body.data as { id: string; owner: unknown }[];
    expect(listed.map((policy) => [policy.id, policy.owner])).toEqual([
      [bySession.body.data.id, bySession.body.data.owner],
      [byKey.body.data.id, byKey.body.data.owner],
    ]);
  });
});
