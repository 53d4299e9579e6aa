/** Audit-coverage scenarios of the settings, OIDC token exchange and sign-in route groups. */
import { randomUUID } from 'node:crypto';
import { baseUrl, request } from '../http-client';
import { browserFetch, browserSignIn, devAccount } from '../browser-session';
import { OWNER_ID, startTestIssuer } from '../oidc-issuer';
import { dataField, ok, type Scenario, type WithId } from './scenario';

function trustPolicyBody(issuer: string) {
  return {
    name: `ci-${randomUUID().slice(0, 8)}`,
    issuer,
    audience: 'vexdesk',
    claims: { repository_owner_id: OWNER_ID },
    scopes: ['products:read'],
  };
}

export const accessScenarios: Record<string, Scenario> = {
  createTrustPolicy: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post(
          '/api/trust-policies',
          trustPolicyBody('https://token.actions.githubusercontent.com'),
        );
        return { response, entityId: dataField(response, 'id') };
      },
    }),
  deleteTrustPolicy: async (team) => {
    const policy = ok(
      await team.api.post<WithId>(
        '/api/trust-policies',
        trustPolicyBody('https://token.actions.githubusercontent.com'),
      ),
      'create trust policy',
    ).data;
    return {
      act: async () => ({ response: await team.api.delete(`/api/trust-policies/${policy.id}`), entityId: policy.id }),
    };
  },
  inviteMember: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post('/api/members', {
          email: `invited-${randomUUID().slice(0, 8)}@example.test`,
        });
        return { response, entityId: dataField(response, 'id') };
      },
    }),
  updateMember: async (team) => {
    const member = ok(
      await team.api.post<WithId>('/api/members', { email: `updated-${randomUUID().slice(0, 8)}@example.test` }),
      'invite member',
    ).data;
    return {
      act: async () => ({
        response: await team.api.put(`/api/members/${member.id}`, { permissions: ['content.write'] }),
        entityId: member.id,
      }),
    };
  },
  removeMember: async (team) => {
    const member = ok(
      await team.api.post<WithId>('/api/members', { email: `removed-${randomUUID().slice(0, 8)}@example.test` }),
      'invite member',
    ).data;
    return { act: async () => ({ response: await team.api.delete(`/api/members/${member.id}`), entityId: member.id }) };
  },
  createApiKey: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post('/api/keys', {
          name: `self-${randomUUID().slice(0, 8)}`,
          scopes: ['products:read'],
        });
        return { response, entityId: dataField(response, 'id') };
      },
    }),
  revokeApiKey: async (team) => {
    const key = ok(
      await team.api.post<WithId>('/api/keys', { name: `self-${randomUUID().slice(0, 8)}`, scopes: ['products:read'] }),
      'create key',
    ).data;
    return { act: async () => ({ response: await team.api.delete(`/api/keys/${key.id}`), entityId: key.id }) };
  },
  finishSignIn: async (team) => {
    // The member's name is the invitation's (here the email's local part), not the provider's.
    const account = await devAccount('audited');
    ok(await team.api.post('/api/members', { email: account.email }), 'invite member');
    const { hops, jar } = await browserSignIn(account, { stopBeforeCallback: true });
    const callbackUrl = new URL(hops[hops.length - 1]!.headers.get('location')!).href;
    return {
      act: async () => {
        const answer = await browserFetch(jar, callbackUrl);
        return {
          response: { status: answer.status, headers: answer.headers, body: undefined, text: answer.text },
          actorName: account.email.slice(0, account.email.indexOf('@')),
        };
      },
    };
  },
  signOut: async (team) => {
    const account = await devAccount('audited');
    ok(await team.api.post('/api/members', { email: account.email }), 'invite member');
    const { jar } = await browserSignIn(account);
    const me = await browserFetch(jar, `${baseUrl()}/api/me`);
    const csrfToken = (JSON.parse(me.text) as { data: { session: { csrfToken: string } } }).data.session.csrfToken;
    return {
      act: async () => {
        const answer = await browserFetch(jar, `${baseUrl()}/api/auth/logout`, {
          method: 'POST',
          headers: { Origin: new URL(baseUrl()).origin, 'X-CSRF-Token': csrfToken },
        });
        return {
          response: { status: answer.status, headers: answer.headers, body: undefined, text: answer.text },
          actorName: account.email.slice(0, account.email.indexOf('@')),
        };
      },
    };
  },
  exchangeOidcToken: async (team) => {
    const issuer = await startTestIssuer();
    const policy = ok(
      await team.api.post<WithId & { data: { name: string } }>('/api/trust-policies', trustPolicyBody(issuer.issuer)),
      'create trust policy',
    ).data;
    const token = await issuer.mint();
    return {
      act: async () => {
        try {
          const response = await request('POST', '/api/auth/oidc/token', { body: { token, teamId: team.teamId } });
          return { response, actorName: `oidc_${policy.name} (octo-org/octo-repo refs/heads/main run 9876543210)` };
        } finally {
          await issuer.close();
        }
      },
    };
  },
  rotatePublisherKey: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post('/api/settings/publisher-keys/rotate');
        return { response, entityId: dataField(response, 'fingerprint') };
      },
    }),
  updateTeamSettings: (team) =>
    Promise.resolve({
      act: async () => ({
        response: await team.api.put('/api/settings', { slaPolicy: { critical: 5 }, requireDistinctApprover: true }),
        entityId: team.teamId,
      }),
    }),
};
