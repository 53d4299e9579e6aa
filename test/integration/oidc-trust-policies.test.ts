/**
 * OIDC trust policies (docs/oidc.md), managed through the API and the admin CLI, with a stand-in GitHub issuer
 * served on loopback by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { toAuditEntry } from '../../shared/service/audit/audit-log';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { Members } from '../../shared/service/identity/teams';
import { managerOf, TrustPolicies } from '../../shared/service/identity/trust-policies';
import { ForbiddenError } from '../../shared/service/errors';
import { adminBundle } from '../support/server-bundle';
import { createTeamWithKey, addKey, uniqueSlug } from '../support/factories';
import { request } from '../support/http-client';
import { OWNER_ID, startTestIssuer, type TestIssuer } from '../support/oidc-issuer';
import { createTrustPolicy, exchange, trustPolicyBody, type Team } from '../support/trust-policies';

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
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [await adminBundle(), ...args], {
        cwd: root,
        env,
      });
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
