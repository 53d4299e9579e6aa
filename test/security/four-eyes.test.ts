/**
 * The distinct-approver rule (team setting `requireDistinctApprover`) compares people, not
 * credentials: the person behind a session is its member, behind an API key the member it acts for
 * (its owner), behind a CI token the owner of its trust policy. One person may not submit with one
 * credential and approve with another.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SCOPES } from '../../shared/service/identity/scopes';
import { seedReleaseWithFindings } from '../support/seed';
import { startTestIssuer, type TestIssuer } from '../support/oidc-issuer';
import { keyApi, keyOf, newTeam, signedInMember, workloadOf, type Api, type Team } from './principals';

let issuer: TestIssuer;
let team: Team;
let manager: Api;

beforeAll(async () => {
  issuer = await startTestIssuer();
  team = await newTeam();
  manager = keyApi(team.key);
  expect((await manager.send('PUT', '/api/settings', { requireDistinctApprover: true })).status).toBe(200);
});
afterAll(async () => {
  await issuer.close();
});

/** A VEX document of a fresh release (the manager generates it), submitted by `submitter`. */
async function submittedBy(submitter: Api): Promise<string> {
  const { release } = await seedReleaseWithFindings(team.api, team.teamId, 1);
  const generated = await manager.send('POST', `/api/releases/${release.id}/vex`, { format: 'openvex' });
  expect(generated.status).toBe(201);
  const vexId = generated.body.data.id as string;
  expect((await submitter.send('POST', `/api/vex/${vexId}/submit`, { comment: 'ready' })).status).toBe(200);
  return vexId;
}

async function approve(api: Api, vexId: string) {
  const response = await api.send('POST', `/api/vex/${vexId}/approve`, {});
  return { status: response.status, message: response.body?.error?.message as string | undefined };
}

const refused = { status: 403, message: expect.stringMatching(/differ/) };

describe('a person who submitted a VEX document cannot approve it with another credential', () => {
  it('submitted in the console, approved with their own API key: refused; another person approves', async () => {
    // settings.manage too: only managers make keys.
    const { api: session, member } = await signedInMember(team.teamId, ['content.write', 'settings.manage']);
    const ownKey = await keyOf(team.teamId, member.id, ['vex:read', 'vex:write']);
    const vexId = await submittedBy(session);
    expect(await approve(ownKey.api, vexId)).toEqual(refused);
    expect(await approve(session, vexId)).toEqual(refused);
    expect((await approve(manager, vexId)).status).toBe(200);
  });

  it('submitted with one of their keys, approved with another: refused', async () => {
    const { member } = await signedInMember(team.teamId, ['content.write', 'settings.manage']);
    const first = await keyOf(team.teamId, member.id, ['vex:read', 'vex:write']);
    const second = await keyOf(team.teamId, member.id, ['vex:read', 'vex:write']);
    const vexId = await submittedBy(first.api);
    expect(await approve(second.api, vexId)).toEqual(refused);
    expect((await approve(manager, vexId)).status).toBe(200);
  });

  it('submitted by a CI job under their trust policy, approved by them in the console or with a key: refused', async () => {
    const { api: session, member } = await signedInMember(team.teamId, ['content.write', 'settings.manage']);
    const ownKey = await keyOf(team.teamId, member.id, SCOPES);
    const ci = await workloadOf(issuer, team.teamId, member.id, ['vex:read', 'vex:write']);
    const vexId = await submittedBy(ci.api);
    expect(await approve(session, vexId)).toEqual(refused);
    expect(await approve(ownKey.api, vexId)).toEqual(refused);
    expect((await approve(manager, vexId)).status).toBe(200);
  });

  it('a CI job cannot approve what its trust policy owner submitted', async () => {
    const { api: session, member } = await signedInMember(team.teamId, ['content.write', 'settings.manage']);
    const ci = await workloadOf(issuer, team.teamId, member.id, ['vex:read', 'vex:write']);
    const vexId = await submittedBy(session);
    expect(await approve(ci.api, vexId)).toEqual(refused);
  });
});

describe('without the team setting', () => {
  it('lets the submitter approve, as before (the rule is opt-in)', async () => {
    const own = await newTeam();
    const api = keyApi(own.key);
    const { release } = await seedReleaseWithFindings(own.api, own.teamId, 1);
    const vexId = (await api.send('POST', `/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data.id;
    expect((await api.send('POST', `/api/vex/${vexId}/submit`, {})).status).toBe(200);
    expect((await api.send('POST', `/api/vex/${vexId}/approve`, {})).status).toBe(200);
  });
});
