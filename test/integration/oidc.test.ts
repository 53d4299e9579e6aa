/**
 * OIDC workload identity federation (docs/oidc.md): the token exchange, and its refusals, through HTTP against
 * the local server, with a stand-in GitHub issuer served on loopback by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { generateSecret, SignJWT } from 'jose';
import { dynamo, tableName } from '../../shared/service/aws-clients';
import { keys } from '../../shared/service/data/keys';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { toAuditEntry } from '../../shared/service/audit/audit-log';
import { hashWorkloadToken } from '../../shared/service/identity/workload-tokens';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { client, request } from '../support/http-client';
import { startTestIssuer, type TestIssuer } from '../support/oidc-issuer';
import { base64url, createTrustPolicy, exchange, trustPolicyBody, type Team } from '../support/trust-policies';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(async () => {
  await issuer.close();
});

const policyBody = (overrides: Record<string, unknown> = {}) => trustPolicyBody(issuer, overrides);
const createPolicy = (team: Team, overrides: Record<string, unknown> = {}) =>
  createTrustPolicy(team, issuer, overrides);

describe('OIDC token exchange', () => {
  it("issues a token that works on real routes with exactly the policy's scopes, audited as the policy and the job", async () => {
    const team = await createTeamWithKey();
    const policy = await createPolicy(team);

    const response = await exchange(await issuer.mint(), team.teamId);

    expect(response.status).toBe(200);
    const issued = response.body.data;
    expect(issued).toMatchObject({
      tokenType: 'Bearer',
      teamId: team.teamId,
      policyId: policy.id,
      scopes: ['products:read', 'products:write'],
      expiresIn: 600,
    });
    expect(issued.token).toMatch(/^vxo_[0-9a-f]{64}$/);
    const ci = client(issued.token);
    expect((await ci.get('/api/products')).status).toBe(200);
    const created = await ci.post('/api/products', { name: 'From CI', slug: uniqueSlug('ci') });
    expect(created.status).toBe(201);
    expect((await ci.get(`/api/releases/${created.body.data.id}`)).status).toBe(403);
    expect((await ci.get('/api/settings')).status).toBe(403);
    expect((await ci.post('/api/trust-policies', policyBody())).status).toBe(403);
    // GET /api/me tells a CI job who it is and when its token runs out (there is no key item to read it from).
    const me = await ci.get('/api/me');
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      team: { id: team.teamId },
      caller: { id: policy.id, type: 'workload' },
      scopes: ['products:read', 'products:write'],
      key: { id: expect.any(String), expiresAt: issued.expiresAt },
    });

    const entries = (await readAuditLog(team.teamId)).map(toAuditEntry);
    const productCreate = entries.find(
      (entry) => entry.entityType === 'product' && entry.entityId === created.body.data.id,
    );
    expect(productCreate).toMatchObject({
      actorId: policy.id,
      actorName: expect.stringContaining('octo-org/octo-repo refs/heads/main run 9876543210'),
    });
    expect(entries.find((entry) => entry.action === 'exchange' && entry.entityType === 'workload_token')).toMatchObject(
      { actorId: policy.id },
    );
  });

  it('stores only the SHA-256 of an issued token', async () => {
    const team = await createTeamWithKey();
    await createPolicy(team);
    const { token } = (await exchange(await issuer.mint(), team.teamId)).body.data;
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const stored = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.workloadTokenHash(hashWorkloadToken(token)) }),
    );
    expect(stored.Item).toBeDefined();
    expect(JSON.stringify(stored.Item)).not.toContain(token);
    expect(typeof stored.Item?.expiresAtEpoch).toBe('number');
  });

  it('uses the named policy only, and a policy of another team never matches', async () => {
    const teamA = await createTeamWithKey();
    const teamB = await createTeamWithKey();
    await createPolicy(teamA, { claims: { repository_owner_id: '999999' } });
    const policyOfB = await createPolicy(teamB);

    expect((await exchange(await issuer.mint(), teamA.teamId, policyOfB.id)).body.error?.code).toBe(
      'no_matching_policy',
    );
    const unnamed = await exchange(await issuer.mint(), teamA.teamId);
    expect(unnamed.status).toBe(401);
    expect(unnamed.body.error.code).toBe('no_matching_policy');
    // The control: the same kind of token works for the team that owns the policy.
    expect((await exchange(await issuer.mint(), teamB.teamId, policyOfB.id)).status).toBe(200);
  });

  describe('refusals (401 with a code, never a 500)', () => {
    let team: Team;
    beforeAll(async () => {
      team = await createTeamWithKey();
      await createPolicy(team);
    });

    it.each([
      ['a wrong audience', { aud: 'someone-else' }, 'invalid_audience'],
      [
        'an expired token',
        {
          iat: Math.floor(Date.now() / 1000) - 600,
          nbf: Math.floor(Date.now() / 1000) - 900,
          exp: Math.floor(Date.now() / 1000) - 300,
        },
        'token_expired',
      ],
      ['a token not valid yet', { nbf: Math.floor(Date.now() / 1000) + 600 }, 'token_expired'],
      ['a sub outside the pattern', { sub: 'repo:octo-org/octo-repo:pull_request' }, 'no_matching_policy'],
      [
        'another repository of the owner',
        { repository_id: '75', sub: 'repo:octo-org/other:ref:refs/heads/main' },
        'no_matching_policy',
      ],
      ['another owner', { repository_owner_id: '66' }, 'no_matching_policy'],
      ['no jti', { jti: undefined }, 'invalid_token'],
    ])('refuses %s', async (_label, claims, code) => {
      const response = await exchange(await issuer.mint(claims), team.teamId);
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe(code);
    });

    it('refuses a token of an issuer the team does not trust', async () => {
      const other = await startTestIssuer();
      try {
        const response = await exchange(await other.mint(), team.teamId);
        expect(response.status).toBe(401);
        expect(response.body.error.code).toBe('untrusted_issuer');
        // Claiming the trusted issuer while signed by another one's key fails the signature.
        const impostor = await exchange(await other.mint({ iss: issuer.issuer }), team.teamId);
        expect(impostor.body.error.code).toBe('invalid_token');
      } finally {
        await other.close();
      }
    });

    it('refuses a replayed jti', async () => {
      const token = await issuer.mint();
      expect((await exchange(token, team.teamId)).status).toBe(200);
      const replay = await exchange(token, team.teamId);
      expect(replay.status).toBe(401);
      expect(replay.body.error.code).toBe('token_replayed');
    });

    it('refuses a forged signature (a key the JWKS does not publish, under a published kid)', async () => {
      const response = await exchange(await issuer.mint({}, { key: await issuer.foreignKey() }), team.teamId);
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('invalid_token');
    });

    it('refuses an unknown kid, after looking for it in a fresh key set', async () => {
      const response = await exchange(
        await issuer.mint({}, { key: await issuer.foreignKey(), kid: 'not-published' }),
        team.teamId,
      );
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('invalid_token');
    });

    it('refuses alg none and HS256', async () => {
      const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(issuer.claims())}.`;
      const hmac = await new SignJWT(issuer.claims())
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .sign(await generateSecret('HS256'));
      for (const token of [unsigned, hmac]) {
        const response = await exchange(token, team.teamId);
        expect(response.status).toBe(401);
        expect(response.body.error.code).toBe('invalid_token');
      }
    });

    it('refuses garbage as invalid_token', async () => {
      for (const token of ['abc', 'a.b.c', `${base64url({ alg: 'RS256' })}.not-json.sig`]) {
        const response = await exchange(token, team.teamId);
        expect(response.status).toBe(401);
        expect(response.body.error.code).toBe('invalid_token');
      }
    });

    it('answers 503 issuer_unavailable when the issuer cannot be reached', async () => {
      const down = await startTestIssuer();
      const downTeam = await createTeamWithKey();
      await createPolicy(downTeam, { issuer: down.issuer });
      const token = await down.mint();
      await down.close();
      const response = await exchange(token, downTeam.teamId);
      expect(response.status).toBe(503);
      expect(response.body.error.code).toBe('issuer_unavailable');
    });
  });

  it('refuses an issued token once its policy is deleted', async () => {
    const team = await createTeamWithKey();
    const policy = await createPolicy(team);
    const { token } = (await exchange(await issuer.mint(), team.teamId)).body.data;
    expect((await request('GET', '/api/products', { key: token })).status).toBe(200);

    expect((await team.api.delete(`/api/trust-policies/${policy.id}`)).status).toBe(204);

    expect((await request('GET', '/api/products', { key: token })).status).toBe(401);
  });

  it('refuses an issued token once it has expired', async () => {
    const team = await createTeamWithKey();
    await createPolicy(team);
    const { token } = (await exchange(await issuer.mint(), team.teamId)).body.data;
    expect((await request('GET', '/api/products', { key: token })).status).toBe(200);
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.workloadTokenHash(hashWorkloadToken(token)),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    expect((await request('GET', '/api/products', { key: token })).status).toBe(401);
  });
});
