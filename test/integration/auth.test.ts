import { describe, expect, it } from '@jest/globals';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../shared/service/aws-clients';
import { keys } from '../../shared/service/data/keys';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { hashApiKey, ApiKeys } from '../../shared/service/identity/api-keys';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { Members } from '../../shared/service/identity/teams';
import { queryAll } from '../../shared/service/data/table-client';
import { routes, type RouteDefinition } from '../../shared/service/http/routes';
import { SCOPES } from '../../shared/service/identity/scopes';
import { ForbiddenError } from '../../shared/service/errors';
import { addKey, createTeamWithKey, uniqueSlug } from '../support/factories';
import { request } from '../support/http-client';

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
function concretePath(route: RouteDefinition): string {
  return route.path.replace(/\{(\w+)\}/g, (_match, name: string) => (name === 'vexId' ? 'vex-doc' : SAMPLE_ID));
}

describe('authentication and authorization', () => {
  it('answers 401 with a body that says a key is required when no key is sent', async () => {
    const response = await request('GET', '/api/products');
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('unauthorized');
    expect(response.body.error.message).toMatch(/API key is required/);
  });

  it.each([
    ['a malformed key', 'Bearer not-a-key'],
    ['a key of the wrong prefix', `Bearer abc_${'a'.repeat(64)}`],
    ['upper-case hex', `Bearer vxd_${'A'.repeat(64)}`],
    ['an unknown key', `Bearer vxd_${'0'.repeat(64)}`],
    ['a non-bearer scheme', `Basic dXNlcjpwYXNz`],
  ])('answers 401 for %s', async (_label, authorization) => {
    const response = await request('GET', '/api/products', { headers: { Authorization: authorization } });
    expect(response.status).toBe(401);
  });

  it('answers 401 for an expired key', async () => {
    const { key } = await createTeamWithKey(SCOPES, { expiresInDays: 30 });
    expect((await request('GET', '/api/products', { key })).status).toBe(200);
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiKeyHash(hashApiKey(key)),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    expect((await request('GET', '/api/products', { key })).status).toBe(401);
  });

  it('rejects a revoked key on the very next request, permanently', async () => {
    const { key, keyId, teamId, memberId } = await createTeamWithKey();
    expect((await request('GET', '/api/products', { key })).status).toBe(200);
    await ApiKeys.revoke(teamId, keyId, { byMemberId: memberId, operator: OPERATOR_ACTOR });
    expect((await request('GET', '/api/products', { key })).status).toBe(401);
    await expect(ApiKeys.revoke(teamId, keyId, { byMemberId: memberId, operator: OPERATOR_ACTOR })).rejects.toThrow(
      /already revoked/,
    );
  });

  it('stores only the SHA-256 of a key, never the key itself', async () => {
    const { key, teamId, keyId } = await createTeamWithKey();
    expect(key).toMatch(/^vxd_[0-9a-f]{64}$/);
    const items = await queryAll({ pk: keys.team(teamId).pk });
    expect(JSON.stringify(items)).not.toContain(key);
    const stored = items.find((item) => item.sk === `APIKEY#${keyId}`);
    expect(stored?.keyHash).toBe(hashApiKey(key));
  });

  it('lets only members holding settings.manage create or revoke keys', async () => {
    const { teamId, keyId } = await createTeamWithKey();
    const plain = await Members.add(
      teamId,
      { email: `plain-${Date.now()}@example.test`, name: 'Plain', permissions: [] },
      OPERATOR_ACTOR,
    );
    await expect(
      ApiKeys.create(
        teamId,
        { name: 'nope', scopes: ['products:read'] },
        { byMemberId: plain.id, operator: OPERATOR_ACTOR },
      ),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      ApiKeys.revoke(teamId, keyId, { byMemberId: plain.id, operator: OPERATOR_ACTOR }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('keeps service accounts out of the member list', async () => {
    const { teamId } = await createTeamWithKey();
    const members = await Members.list(teamId);
    expect(members).toHaveLength(1);
    expect(members.every((member) => !member.name.startsWith('api_'))).toBe(true);
  });

  it('audits key creation and revocation, and attributes key actions to api_<key name>', async () => {
    const { teamId, memberId, api, keyName } = await createTeamWithKey();
    const extra = await addKey(teamId, memberId, ['products:read']);
    await ApiKeys.revoke(teamId, extra.keyId, { byMemberId: memberId, operator: OPERATOR_ACTOR });
    const product = (await api.post('/api/products', { name: 'Audited', slug: uniqueSlug() })).body.data;
    const entries = await readAuditLog(teamId);
    expect(
      entries
        .filter((entry) => entry.entityType === 'api_key')
        .map((entry) => entry.action)
        .sort(),
    ).toEqual(['create', 'create', 'revoke']);
    const productEntry = entries.find((entry) => entry.entityId === product.id);
    expect(productEntry).toMatchObject({ action: 'create', entityType: 'product', actorName: `api_${keyName}` });
  });

  // `authenticated` routes (GET /api/me) need no scope: release-navigation.test.ts checks a one-scope key gets 200.
  const privateRoutes = (routes as readonly RouteDefinition[]).filter(
    (route) => route.scope !== null && route.scope !== 'authenticated',
  );

  it.each(privateRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s answers 403 to a key lacking its scope',
    async (_label, route) => {
      const { teamId, memberId } = await createTeamWithKey();
      const { key } = await addKey(
        teamId,
        memberId,
        SCOPES.filter((scope) => scope !== route.scope),
      );
      const response = await request(route.method, concretePath(route), {
        key,
        body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
      });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
    },
  );

  it('serves the public OpenAPI document without a key', async () => {
    const response = await request('GET', '/api/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
  });
});
