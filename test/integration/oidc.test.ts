/**
 * OIDC workload identity federation (issue 10 item 3, docs/oidc.md), through
 * HTTP against the local server, with a stand-in GitHub issuer served on
 * loopback by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { generateSecret, SignJWT } from 'jose';
import { dynamo, tableName } from '../../shared/service/aws-clients';
import { keys } from '../../shared/service/data/keys';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { toAuditEntry } from '../../shared/service/audit/audit-log';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { Members } from '../../shared/service/identity/teams';
import { managerOf, TrustPolicies } from '../../shared/service/identity/trust-policies';
import { hashWorkloadToken } from '../../shared/service/identity/workload-tokens';
import { ForbiddenError } from '../../shared/service/errors';
import { createTeamWithKey, addKey, uniqueSlug } from '../support/factories';
import { client, request } from '../support/http-client';
import { OWNER_ID, REPOSITORY_ID, startTestIssuer, type TestIssuer } from '../support/oidc-issuer';

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(async () => {
  await issuer.close();
});

function policyBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `ci-${uniqueSlug('p')}`,
    issuer: issuer.issuer,
    audience: 'vexdesk',
    claims: {
      repository_owner_id: OWNER_ID,
      repository_id: REPOSITORY_ID,
      sub: 'repo:octo-org/octo-repo:ref:refs/heads/*',
    },
    scopes: ['products:read', 'products:write'],
    ttlMinutes: 10,
    ...overrides,
  };
}

async function createPolicy(
  team: Team,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; scopes: string[] }> {
  const response = await team.api.post<{ data: { id: string; scopes: string[] } }>(
    '/api/trust-policies',
    policyBody(overrides),
  );
  if (response.status !== 201) throw new Error(`policy create failed: ${response.status} ${response.text}`);
  return response.body.data;
}

function exchange(token: string, teamId: string, policyId?: string) {
  return request('POST', '/api/auth/oidc/token', { body: { token, teamId, ...(policyId ? { policyId } : {}) } });
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

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

describe('trust policy management', () => {
  it('lists, creates and deletes policies through the API, each change audited', async () => {
    const team = await createTeamWithKey();
    const policy = await createPolicy(team, { issuer: undefined });
    const listed = await team.api.get('/api/trust-policies');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: policy.id, issuer: 'https://token.actions.githubusercontent.com', ttlMinutes: 10 }),
    ]);

    expect((await team.api.delete(`/api/trust-policies/${policy.id}`)).status).toBe(204);
    expect((await team.api.get('/api/trust-policies')).body.data).toEqual([]);
    expect((await team.api.delete(`/api/trust-policies/${policy.id}`)).status).toBe(404);
    const actions = (await readAuditLog(team.teamId))
      .map(toAuditEntry)
      .filter((entry) => entry.entityType === 'trust_policy')
      .map((entry) => entry.action)
      .sort();
    expect(actions).toEqual(['create', 'delete']);
  });

  it("keeps another team's policy out of reach (404 on delete)", async () => {
    const teamA = await createTeamWithKey();
    const teamB = await createTeamWithKey();
    const policyOfB = await createPolicy(teamB);
    expect((await teamA.api.delete(`/api/trust-policies/${policyOfB.id}`)).status).toBe(404);
    expect((await teamB.api.get('/api/trust-policies')).body.data).toHaveLength(1);
  });

  it('needs settings:write, and grants only scopes the caller holds', async () => {
    const team = await createTeamWithKey();
    const reader = await addKey(team.teamId, team.memberId, ['settings:read', 'products:read']);
    expect((await reader.api.post('/api/trust-policies', policyBody())).status).toBe(403);
    const narrow = await addKey(team.teamId, team.memberId, ['settings:write', 'products:read']);
    const response = await narrow.api.post(
      '/api/trust-policies',
      policyBody({ scopes: ['products:read', 'products:write'] }),
    );
    expect(response.status).toBe(403);
    expect(response.body.error.message).toContain('products:write');
  });

  it('lets only members holding settings.manage create or delete policies (admin CLI --by)', async () => {
    const team = await createTeamWithKey();
    const plain = await Members.add(
      team.teamId,
      { email: `plain-${uniqueSlug('m')}@example.test`, name: 'Plain', permissions: [] },
      OPERATOR_ACTOR,
    );
    await expect(
      TrustPolicies.create(team.teamId, policyBody(), await managerOf(team.teamId, plain.id, OPERATOR_ACTOR)),
    ).rejects.toBeInstanceOf(ForbiddenError);
    const created = await TrustPolicies.create(
      team.teamId,
      policyBody(),
      await managerOf(team.teamId, team.memberId, OPERATOR_ACTOR),
    );
    await expect(
      TrustPolicies.delete(team.teamId, created.id, await managerOf(team.teamId, plain.id, OPERATOR_ACTOR)),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it.each([
    ['settings scopes', { scopes: ['settings:write'] }, 'scopes.0'],
    ['a lifetime over one hour', { ttlMinutes: 61 }, 'ttlMinutes'],
    ['no exact owner or repository id', { claims: { sub: 'repo:octo-org/*' } }, 'claims'],
    ['a plain-HTTP issuer off loopback', { issuer: 'http://issuer.example.com' }, 'issuer'],
    ['a name id as owner', { claims: { repository_owner_id: 'octo-org' } }, 'claims.repository_owner_id'],
  ])('refuses %s with 422', async (_label, overrides, path) => {
    const team = await createTeamWithKey();
    const response = await team.api.post('/api/trust-policies', policyBody(overrides));
    expect(response.status).toBe(422);
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
  });
});

describe('admin CLI trust-policy commands', () => {
  const root = resolve(import.meta.dirname, '../..');
  const env = { ...process.env, DATA_DIR: process.env.VEXDESK_TEST_DATA_DIR };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- CLI JSON
  async function admin(...args: string[]): Promise<{ code: number; json: Record<string, any>; stderr: string }> {
    try {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'bin/admin.ts'), ...args],
        { cwd: root, env },
      );
      return { code: 0, json: JSON.parse(stdout) as Record<string, unknown>, stderr };
    } catch (error) {
      const failed = error as { code: number; stderr: string };
      return { code: failed.code, json: {}, stderr: failed.stderr };
    }
  }

  it('creates, lists and deletes a policy, printing JSON; the policy works and its deletion ends its tokens', async () => {
    const team = await createTeamWithKey();
    const claims = JSON.stringify({ repository_owner_id: OWNER_ID, sub: 'repo:octo-org/octo-repo:*' });
    const created = await admin(
      'trust-policy',
      'create',
      '--team',
      team.teamId,
      '--name',
      'cli-ci',
      '--issuer',
      issuer.issuer,
      '--audience',
      'vexdesk',
      '--claims',
      claims,
      '--scopes',
      'products:read,sboms:write',
      '--ttl-minutes',
      '5',
      '--by',
      team.memberId,
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      id: expect.any(String),
      name: 'cli-ci',
      scopes: ['products:read', 'sboms:write'],
      ttlMinutes: 5,
      createdBy: team.memberId,
    });

    const listed = await admin('trust-policy', 'list', '--team', team.teamId);
    expect(listed.json.data).toEqual([expect.objectContaining({ id: created.json.id, issuer: issuer.issuer })]);
    const issued = await exchange(await issuer.mint(), team.teamId);
    expect(issued.body.data).toMatchObject({
      policyId: created.json.id,
      expiresIn: 300,
      scopes: ['products:read', 'sboms:write'],
    });

    const deleted = await admin('trust-policy', 'delete', '--team', team.teamId, '--id', created.json.id as string);
    expect(deleted.json).toEqual({ id: created.json.id, deleted: true });
    expect((await request('GET', '/api/products', { key: issued.body.data.token })).status).toBe(401);
    expect((await admin('trust-policy', 'list', '--team', team.teamId)).json.data).toEqual([]);
  }, 120_000);

  it('exits 2 on claims that are not JSON and 1 with the validation error on a bad policy', async () => {
    const team = await createTeamWithKey();
    const notJson = await admin(
      'trust-policy',
      'create',
      '--team',
      team.teamId,
      '--name',
      'x',
      '--audience',
      'a',
      '--claims',
      '{nope',
      '--scopes',
      'products:read',
    );
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--claims must be a JSON object');
    const bad = await admin(
      'trust-policy',
      'create',
      '--team',
      team.teamId,
      '--name',
      'x',
      '--audience',
      'a',
      '--claims',
      '{"sub":"*"}',
      '--scopes',
      'settings:write',
    );
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr)).toMatchObject({ error: { code: 'validation_failed' } });
  }, 120_000);
});
