/**
 * Every place a grant is made × a grant above the caller: nobody grants (a member's permissions, a
 * key's scopes, a trust policy's scopes) what they do not hold themselves, whatever the credential.
 * The grant sites are found in the route table (request bodies naming `permissions` or `scopes`), so a
 * new one fails the coverage check until it is in the table below.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as z from 'zod';
import { ForbiddenError } from '../../shared/service/errors';
import { SCOPES } from '../../shared/service/identity/scopes';
import { routes, type RouteDefinition } from '../../shared/service/http/routes';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { MEMBER_BASE_SCOPES } from '../../shared/service/identity/member-scopes';
import { managerOf, TrustPolicies } from '../../shared/service/identity/trust-policies';
import { Members } from '../../shared/service/identity/teams';
import { startTestIssuer, type TestIssuer } from '../support/oidc-issuer';
import {
  addMember,
  keyOf,
  newTeam,
  policyBody,
  setPermissions,
  signedInMember,
  uniqueEmail,
  type Api,
} from './principals';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(async () => {
  await issuer.close();
});

interface GrantSite {
  /** Grants something the callers below do not hold (the day-to-day content permission or a content scope). */
  above(api: Api, teamId: string): Promise<{ status: number; message?: string; unchanged: () => Promise<void> }>;
  /** Grants only what they hold, so a refusal above is the grant rule and not the caller's lack of rights. */
  within(api: Api, teamId: string): Promise<number>;
}

const grantSites: Record<string, GrantSite> = {
  inviteMember: {
    async above(api, teamId) {
      const email = uniqueEmail('escalate');
      const response = await api.send('POST', '/api/members', {
        email,
        permissions: ['content.write', 'settings.manage'],
      });
      return {
        status: response.status,
        message: response.body?.error?.message,
        unchanged: async () => expect(await Members.loginOf(email, teamId)).toBeUndefined(),
      };
    },
    async within(api) {
      return (await api.send('POST', '/api/members', { email: uniqueEmail('fine'), permissions: ['settings.manage'] }))
        .status;
    },
  },
  updateMember: {
    async above(api, teamId) {
      const target = await addMember(teamId, []);
      const response = await api.send('PUT', `/api/members/${target.id}`, { permissions: ['content.write'] });
      return {
        status: response.status,
        message: response.body?.error?.message,
        unchanged: async () => expect((await Members.get(teamId, target.id)).permissions).toEqual([]),
      };
    },
    async within(api, teamId) {
      const target = await addMember(teamId, []);
      return (await api.send('PUT', `/api/members/${target.id}`, { permissions: ['settings.manage'] })).status;
    },
  },
  createApiKey: {
    async above(api, teamId) {
      const name = `wider-${Date.now()}`;
      const response = await api.send('POST', '/api/keys', { name, scopes: ['products:read', 'products:write'] });
      return {
        status: response.status,
        message: response.body?.error?.message,
        unchanged: async () => expect((await ApiKeys.list(teamId)).map((key) => key.name)).not.toContain(name),
      };
    },
    async within(api) {
      return (await api.send('POST', '/api/keys', { name: `narrow-${Date.now()}`, scopes: ['products:read'] })).status;
    },
  },
  createTrustPolicy: {
    async above(api, teamId) {
      const body = policyBody(issuer, ['products:read', 'products:write']);
      const response = await api.send('POST', '/api/trust-policies', body);
      return {
        status: response.status,
        message: response.body?.error?.message,
        unchanged: async () =>
          expect((await TrustPolicies.list(teamId)).map((policy) => policy.name)).not.toContain(body.name),
      };
    },
    async within(api) {
      return (await api.send('POST', '/api/trust-policies', policyBody(issuer, ['products:read']))).status;
    },
  },
};

/** Callers that hold settings.manage (or settings:write) and every read, but none of the content permission. */
const callers: Record<string, (teamId: string, managerId: string) => Promise<Api>> = {
  'a key holding the settings and read scopes only, made by a manager holding everything': async (teamId, managerId) =>
    (await keyOf(teamId, managerId, [...MEMBER_BASE_SCOPES, 'settings:write'])).api,
  'a browser session of a member holding settings.manage only': async (teamId) =>
    (await signedInMember(teamId, ['settings.manage'])).api,
  'an all-scopes key whose owner now holds settings.manage only': async (teamId) => {
    const owner = await addMember(teamId, ['settings.manage', 'content.write']);
    const key = await keyOf(teamId, owner.id, SCOPES);
    await setPermissions(teamId, owner.id, ['settings.manage']);
    return key.api;
  },
};

function bodyFields(route: RouteDefinition): string[] {
  const body = route.request?.body;
  return body instanceof z.ZodObject ? Object.keys(body.shape) : [];
}

describe('grant sites', () => {
  it('are every route whose request grants permissions or scopes', () => {
    const granting = (routes as readonly RouteDefinition[])
      .filter((route) => bodyFields(route).some((field) => field === 'permissions' || field === 'scopes'))
      .map((route) => route.operationId)
      .sort();
    expect(granting).toEqual(Object.keys(grantSites).sort());
  });
});

describe.each(Object.entries(callers))('%s', (_caller, makeCaller) => {
  it.each(Object.keys(grantSites))('is refused a grant above itself at %s (403, nothing granted)', async (site) => {
    const team = await newTeam();
    const api = await makeCaller(team.teamId, team.memberId);
    const attempt = await grantSites[site]!.above(api, team.teamId);
    expect({ status: attempt.status, message: attempt.message }).toEqual({
      status: 403,
      message: expect.stringContaining('products:write'),
    });
    await attempt.unchanged();
    expect(await grantSites[site]!.within(api, team.teamId)).toBeLessThan(300);
  });
});

describe('the escalation the security review reproduced', () => {
  it('refuses a key holding only settings:read and settings:write a member with every permission', async () => {
    const team = await newTeam();
    const key = await keyOf(team.teamId, team.memberId, ['settings:read', 'settings:write']);
    const email = uniqueEmail('admin');
    const response = await key.api.send('POST', '/api/members', {
      email,
      permissions: ['content.write', 'settings.manage'],
    });
    expect(response.status).toBe(403);
    expect(await Members.loginOf(email, team.teamId)).toBeUndefined();
  });

  it('refuses a member holding settings.manage only to give themselves the content permission', async () => {
    const team = await newTeam();
    const { api, member } = await signedInMember(team.teamId, ['settings.manage']);
    const response = await api.send('PUT', `/api/members/${member.id}`, {
      permissions: ['settings.manage', 'content.write'],
    });
    expect(response.status).toBe(403);
    expect((await Members.get(team.teamId, member.id)).permissions).toEqual(['settings.manage']);
  });
});

describe('the admin CLI acting for a member (--by)', () => {
  it('grants a key or a trust policy only what that member holds', async () => {
    const team = await newTeam();
    const manager = await addMember(team.teamId, ['settings.manage']);
    await expect(
      ApiKeys.create(
        team.teamId,
        { name: 'wider', scopes: ['products:write'] },
        { byMemberId: manager.id, operator: OPERATOR_ACTOR },
      ),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      TrustPolicies.create(
        team.teamId,
        policyBody(issuer, ['products:write']),
        await managerOf(team.teamId, manager.id, OPERATOR_ACTOR),
      ),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      ApiKeys.create(
        team.teamId,
        { name: 'narrow', scopes: ['settings:write'] },
        { byMemberId: manager.id, operator: OPERATOR_ACTOR },
      ),
    ).resolves.toMatchObject({ scopes: ['settings:write'] });
  });
});
