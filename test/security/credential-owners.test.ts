/**
 * API keys and trust policies made before owners were recorded: the authorizer refuses them (nobody vouches for
 * them) until the migration (`npm start`, `table migrate`) finds their owner from `createdBy`, following a key
 * made by a key to its owner; one whose creator is gone is what offboarding would have ended, and ends.
 *
 * @whole-table-scan: its migration scans the whole table, so it runs first (test/support/test-sequencer.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { keys } from '../../shared/service/data/keys';
import { getItem, transactWrite, tx } from '../../shared/service/data/table-client';
import { SCOPES } from '../../shared/service/identity/scopes';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { migrateCredentialOwners } from '../../shared/service/identity/credential-owner-migration';
import { TrustPolicies } from '../../shared/service/identity/trust-policies';
import { Members } from '../../shared/service/identity/teams';
import { startTestIssuer, type TestIssuer } from '../support/oidc-issuer';
import { addMember, exchangeToken, keyApi, keyOf, newTeam, policyBody } from './principals';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(async () => {
  await issuer.close();
});

/** Makes a key look as it did before owners were recorded: no owner on its item or its hash item. */
async function forgetKeyOwner(teamId: string, keyId: string) {
  const item = await getItem(keys.apiKey(teamId, keyId));
  await transactWrite([
    tx.update(keys.apiKey(teamId, keyId), 'REMOVE #owner', { '#owner': 'owner' }, undefined),
    tx.update(keys.apiKeyHash(String(item?.keyHash)), 'REMOVE #owner', { '#owner': 'owner' }, undefined),
  ]);
}

async function forgetPolicyOwner(teamId: string, policyId: string) {
  await transactWrite([
    tx.update(keys.trustPolicy(teamId, policyId), 'REMOVE #owner', { '#owner': 'owner' }, undefined),
  ]);
}

describe('credentials made before owners were recorded', () => {
  it('are refused until the migration gives them their owner, and ended when their creator is gone', async () => {
    const team = await newTeam();
    const member = await addMember(team.teamId, ['settings.manage', 'content.write']);
    const key = await keyOf(team.teamId, member.id, SCOPES);
    const made = await key.api.send('POST', '/api/keys', { name: 'made-by-key', scopes: ['products:read'] });
    const operatorKey = await ApiKeys.create(
      team.teamId,
      { name: 'operator-made', scopes: ['products:read'] },
      { operator: OPERATOR_ACTOR },
    );
    const policy = await key.api.send('POST', '/api/trust-policies', policyBody(issuer, ['products:read']));
    const leaver = await addMember(team.teamId, ['settings.manage', 'content.write']);
    const orphan = await keyOf(team.teamId, leaver.id, ['products:read']);
    for (const id of [key.id, made.body.data.id as string, operatorKey.id, orphan.id])
      await forgetKeyOwner(team.teamId, id);
    await forgetPolicyOwner(team.teamId, policy.body.data.id);
    // Removed with no owner on record, their key survived the removal (as every key did before).
    await Members.remove(team.teamId, leaver.id, OPERATOR_ACTOR);

    expect((await key.api.send('GET', '/api/me')).status).toBe(401);
    // The exchange issues a token (it reads only the policy), but the token acts for nobody yet.
    const tokenBefore = await exchangeToken(issuer, team.teamId, policy.body.data.id);
    expect((await keyApi(tokenBefore).send('GET', '/api/products')).status).toBe(401);

    const result = await migrateCredentialOwners();
    expect(result.keys).toBeGreaterThanOrEqual(3);
    expect(result.revokedKeys).toBeGreaterThanOrEqual(1);

    expect((await key.api.send('GET', '/api/me')).status).toBe(200);
    const owners = new Map((await ApiKeys.list(team.teamId)).map((entry) => [entry.id, entry]));
    expect(owners.get(key.id)?.owner).toEqual({ kind: 'member', id: member.id, email: member.email });
    expect(owners.get(made.body.data.id as string)?.owner).toEqual({
      kind: 'member',
      id: member.id,
      email: member.email,
    });
    expect(owners.get(operatorKey.id)?.owner).toEqual({ kind: 'operator', id: 'operator', email: null });
    expect(owners.get(orphan.id)?.revokedAt).toEqual(expect.any(String));
    expect((await orphan.api.send('GET', '/api/me')).status).toBe(401);
    const migratedPolicy = (await TrustPolicies.list(team.teamId)).find((entry) => entry.id === policy.body.data.id);
    expect(migratedPolicy?.owner).toEqual({ kind: 'member', id: member.id, email: member.email });
    expect((await keyApi(tokenBefore).send('GET', '/api/products')).status).toBe(200);
  });
});
