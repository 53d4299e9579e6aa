/**
 * Every mutating route of the route table × a credential lacking what the route needs: 403, from the
 * scope check, before the route reads its input. Built from the route table, so a new route is
 * covered by itself. A credential lacks a scope in one of four ways:
 * - an API key without the scope;
 * - an API key with every scope whose owner (the member it acts for) no longer holds the permission
 *   that gives the scope: a key acts with at most its own scopes and its owner's current permissions;
 * - a browser session of a member without that permission;
 * - a CI token whose trust policy's owner no longer holds it (settings scopes: never in a CI token).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ANY_CREDENTIAL } from '../../shared/service/http/scopes';
import { SCOPES, type Scope } from '../../shared/service/identity/scopes';
import { routes, type RouteDefinition } from '../../shared/service/http/routes';
import { PERMISSION_SCOPES } from '../../shared/service/identity/member-scopes';
import { PERMISSIONS, type Permission } from '../../shared/service/identity/permission-names';
import { TeamQuotas } from '../../shared/service/identity/team-quota';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { startTestIssuer, type TestIssuer } from '../support/oidc-issuer';
import {
  everyPermissionBut,
  addMember,
  keyOf,
  newTeam,
  setPermissions,
  signedInMember,
  workloadOf,
  type Api,
  type Team,
} from './principals';

type GuardedRoute = RouteDefinition & { scope: Scope };

const guardedMutatingRoutes = (routes as readonly RouteDefinition[]).filter(
  (route): route is GuardedRoute => route.mutates && route.scope !== null && route.scope !== ANY_CREDENTIAL,
);

/** The permission whose holders' sessions get the scope (shared/service/identity/member-scopes.ts). */
function permissionGiving(scope: Scope): Permission {
  const permission = PERMISSIONS.find((candidate) => PERMISSION_SCOPES[candidate].includes(scope));
  if (!permission) throw new Error(`no permission gives ${scope}: a mutating route every member could call`);
  return permission;
}

/** The route's path with fresh ids: the scope check answers before any id is looked up. */
const concretePath = (route: RouteDefinition) => route.path.replace(/\{\w+\}/g, () => randomUUID());

const cases = guardedMutatingRoutes.map((route) => [`${route.method} ${route.path}`, route] as const);

let issuer: TestIssuer;
let team: Team;
/** Per permission: credentials whose principal lacks it. */
const lacking = new Map<Permission, { ownerDemotedKey: Api; session: Api; ciToken: Api }>();
/** Per scope: a key of the all-permissions manager holding every other scope. */
const keysWithout = new Map<Scope, Api>();

beforeAll(async () => {
  issuer = await startTestIssuer();
  team = await newTeam();
  // Four credentials × every mutating route, as fast as the server answers: above the default team quota (50/s,
  // burst 100), whose 429 would hide the 403 under test. Throttling has tests of its own.
  await TeamQuotas.set(team.teamId, { rateLimit: 10_000, burstLimit: 5_000 }, OPERATOR_ACTOR);
  for (const permission of PERMISSIONS) {
    // Owners start with every permission, so the key and the policy may grant everything; then the permission goes.
    const keyOwner = await addMember(team.teamId, PERMISSIONS);
    const key = await keyOf(team.teamId, keyOwner.id, SCOPES);
    const policyOwner = await addMember(team.teamId, PERMISSIONS);
    const ci = await workloadOf(issuer, team.teamId, policyOwner.id);
    await setPermissions(team.teamId, keyOwner.id, everyPermissionBut(permission));
    await setPermissions(team.teamId, policyOwner.id, everyPermissionBut(permission));
    const { api: session } = await signedInMember(team.teamId, everyPermissionBut(permission));
    lacking.set(permission, { ownerDemotedKey: key.api, session, ciToken: ci.api });
  }
  for (const scope of new Set(guardedMutatingRoutes.map((route) => route.scope))) {
    keysWithout.set(
      scope,
      (
        await keyOf(
          team.teamId,
          team.memberId,
          SCOPES.filter((held) => held !== scope),
        )
      ).api,
    );
  }
});

afterAll(async () => {
  await issuer.close();
});

async function expectScopeRefusal(api: Api, route: GuardedRoute) {
  const response = await api.send(route.method, concretePath(route), {});
  expect({ status: response.status, message: response.body?.error?.message }).toEqual({
    status: 403,
    message: expect.stringContaining(`"${route.scope}"`),
  });
}

describe('every mutating route refuses a credential lacking its scope (403)', () => {
  it('covers the route table: every guarded mutating route needs a scope that a permission gives', () => {
    expect(cases.length).toBeGreaterThan(30);
    for (const [, route] of cases) expect(permissionGiving(route.scope)).toBeDefined();
  });

  it.each(cases)('%s: an API key without the scope', async (_name, route) => {
    await expectScopeRefusal(keysWithout.get(route.scope)!, route);
  });

  it.each(cases)('%s: an all-scopes API key whose owner lost the permission', async (_name, route) => {
    await expectScopeRefusal(lacking.get(permissionGiving(route.scope))!.ownerDemotedKey, route);
  });

  it.each(cases)('%s: a browser session of a member without the permission', async (_name, route) => {
    await expectScopeRefusal(lacking.get(permissionGiving(route.scope))!.session, route);
  });

  it.each(cases)('%s: a CI token whose trust policy owner lost the permission', async (_name, route) => {
    await expectScopeRefusal(lacking.get(permissionGiving(route.scope))!.ciToken, route);
  });
});

describe('the credentials of the matrix work for what their principal still holds', () => {
  it('answers them 200 on a read every member may do, so the refusals above are the scope check', async () => {
    for (const credentials of lacking.values())
      for (const api of Object.values(credentials)) expect((await api.send('GET', '/api/me')).status).toBe(200);
    for (const api of keysWithout.values()) expect((await api.send('GET', '/api/me')).status).toBe(200);
  });

  it("reports a key's scopes capped by its owner's current permissions in GET /api/me", async () => {
    const demotedFromContent = lacking.get('content.write')!.ownerDemotedKey;
    const scopes = (await demotedFromContent.send('GET', '/api/me')).body.data.scopes as string[];
    expect(scopes).toContain('settings:write');
    const contentScopes: readonly string[] = PERMISSION_SCOPES['content.write'];
    expect(scopes.filter((scope) => contentScopes.includes(scope))).toEqual([]);
  });
});
