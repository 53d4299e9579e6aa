/**
 * The principals the authorization tests act as, each in a fresh team: members (made by the operator),
 * their API keys, their browser sessions (signed in through the embedded provider) and CI tokens
 * exchanged under a trust policy. Every credential is driven through one small HTTP interface, so a
 * test can run the same request as a key, a session or a CI token.
 */
import { randomUUID } from 'node:crypto';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { PERMISSIONS, type Permission } from '../../shared/service/identity/permission-names';
import { managerOf, TrustPolicies } from '../../shared/service/identity/trust-policies';
import { Members } from '../../shared/service/identity/teams';
import { SCOPES, type Scope } from '../../shared/service/identity/scopes';
import { WORKLOAD_SCOPES } from '../../shared/service/schemas/trust-policies';
import { browserFetch, browserSignIn, devAccount } from '../support/browser-session';
import { createTeamWithKey } from '../support/factories';
import { baseUrl, client, request, type HttpResponse } from '../support/http-client';
import { OWNER_ID, REPOSITORY_ID, type TestIssuer } from '../support/oidc-issuer';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One credential's view of the API. */
export interface Api {
  send(method: Method, path: string, body?: unknown): Promise<HttpResponse<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
}

export type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

/** A fresh team with a manager holding every permission and that manager's all-scopes key. */
export async function newTeam(): Promise<Team> {
  return createTeamWithKey();
}

export function keyApi(key: string): Api {
  return { send: (method, path, body) => request(method, path, { key, body }) };
}

export const everyPermissionBut = (permission: Permission | undefined): Permission[] =>
  PERMISSIONS.filter((candidate) => candidate !== permission);

/** A member of the team, added by the operator. */
export async function addMember(teamId: string, permissions: readonly Permission[], email = uniqueEmail('member')) {
  return Members.add(
    teamId,
    { email, name: email.slice(0, email.indexOf('@')), permissions: [...permissions] },
    OPERATOR_ACTOR,
  );
}

export function uniqueEmail(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}@example.test`;
}

/** An API key the member makes with the admin CLI's `--by` (the member must hold what it grants). */
export async function keyOf(teamId: string, memberId: string, scopes: readonly Scope[] = SCOPES) {
  const created = await ApiKeys.create(
    teamId,
    { name: `key-${randomUUID().slice(0, 8)}`, scopes: [...scopes] },
    { byMemberId: memberId, operator: OPERATOR_ACTOR },
  );
  return { id: created.id, key: created.key, api: keyApi(created.key), http: client(created.key) };
}

/** A member who signed in through the embedded provider: the session's cookie requests carry the CSRF token and the console's Origin. */
export async function signedInMember(teamId: string, permissions: readonly Permission[]) {
  const account = await devAccount('member');
  const member = await addMember(teamId, permissions, account.email);
  const signIn = await browserSignIn(account);
  if (!signIn.session) throw new Error(`sign-in failed: ${signIn.last.status} ${signIn.last.text.slice(0, 200)}`);
  const me = await browserFetch(signIn.jar, `${baseUrl()}/api/me`);
  const csrfToken = (JSON.parse(me.text) as { data: { session: { csrfToken: string } } }).data.session.csrfToken;
  const api: Api = {
    async send(method, path, body) {
      const headers: Record<string, string> = {};
      if (method !== 'GET') Object.assign(headers, { Origin: new URL(baseUrl()).origin, 'X-CSRF-Token': csrfToken });
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      const answer = await browserFetch(signIn.jar, `${baseUrl()}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const json = (answer.headers.get('content-type') ?? '').includes('json') && answer.text !== '';
      return {
        status: answer.status,
        headers: answer.headers,
        text: answer.text,
        body: json ? JSON.parse(answer.text) : answer.text,
      };
    },
  };
  return { member, account, api };
}

/** A trust policy body for the test issuer's default token (GitHub's claims for octo-org/octo-repo). */
export function policyBody(issuer: TestIssuer, scopes: readonly string[] = WORKLOAD_SCOPES) {
  return {
    name: `ci-${randomUUID().slice(0, 8)}`,
    issuer: issuer.issuer,
    audience: 'vexdesk',
    claims: { repository_owner_id: OWNER_ID, repository_id: REPOSITORY_ID },
    scopes: [...scopes],
    ttlMinutes: 10,
  };
}

/** Exchanges a fresh CI token of the test issuer under the named policy. */
export async function exchangeToken(issuer: TestIssuer, teamId: string, policyId: string) {
  const response = await request('POST', '/api/auth/oidc/token', {
    body: { token: await issuer.mint(), teamId, policyId },
  });
  if (response.status !== 200) throw new Error(`exchange failed: ${response.status} ${response.text}`);
  return response.body.data.token as string;
}

/** A trust policy the member creates with the admin CLI's `--by`, and a CI token exchanged under it. */
export async function workloadOf(
  issuer: TestIssuer,
  teamId: string,
  memberId: string,
  scopes: readonly string[] = WORKLOAD_SCOPES,
) {
  const policy = await TrustPolicies.create(
    teamId,
    policyBody(issuer, scopes),
    await managerOf(teamId, memberId, OPERATOR_ACTOR),
  );
  const token = await exchangeToken(issuer, teamId, policy.id);
  return { policy, token, api: keyApi(token) };
}

/** Sets a member's permissions as the operator (the admin's own change, not a grant by the caller under test). */
export async function setPermissions(teamId: string, memberId: string, permissions: readonly Permission[]) {
  await Members.update(teamId, memberId, { permissions: [...permissions] }, OPERATOR_ACTOR);
}
