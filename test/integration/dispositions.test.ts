import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Members } from '../../shared/service/identity/teams';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { keys } from '../../shared/service/data/keys';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { queryAll } from '../../shared/service/data/table-client';
import { addKey, createTeamWithKey } from '../support/factories';
import { seedReleaseWithFindings } from '../support/seed';
import { dispositionInvariantViolations } from '../support/disposition-invariants';

async function releaseDispositionState(teamId: string, productId: string, releaseId: string) {
  const children = await queryAll(keys.releaseChildrenPrefix(teamId, productId, releaseId));
  return {
    dispositions: children.filter((item) => item.entity === 'Disposition'),
    history: children.filter((item) => item.entity === 'DispositionChange'),
    audit: await readAuditLog(teamId),
  };
}

describe('dispositions', () => {
  it('creates with the default status under_investigation, then upserts the same disposition', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { findings } = await seedReleaseWithFindings(api, teamId, 2);
    const vulnerabilityId = findings[0]!.id;
    const created = await api.post('/api/dispositions', { vulnerabilityId });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ status: 'under_investigation', response: null, vulnerabilityId });
    const again = await api.post('/api/dispositions', {
      vulnerabilityId,
      status: 'not_affected',
      justification: 'vulnerable_code_not_present',
    });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(created.body.data.id);
    expect(again.body.data.status).toBe('not_affected');
  });

  it.each([
    ['justification', { status: 'not_affected' }],
    ['response', { status: 'affected' }],
    ['status', { status: 'exploitable' }],
    ['justification', { status: 'not_affected', justification: 'because' }],
    ['response', { status: 'affected', response: 'patch_it' }],
    ['detail', { detail: 'x'.repeat(5001) }],
    ['actionStatement', { actionStatement: 'x'.repeat(5001) }],
    ['impactStatement', { impactStatement: 'x'.repeat(5001) }],
    ['assignedTo', { assignedTo: 'not-a-uuid' }],
    ['assignedTo', { assignedTo: randomUUID() }],
  ])('rejects a disposition with a bad %s (422 naming the field)', async (path, fields) => {
    const { api, teamId } = await createTeamWithKey();
    const { findings } = await seedReleaseWithFindings(api, teamId, 1);
    const response = await api.post('/api/dispositions', { vulnerabilityId: findings[0]!.id, ...fields });
    expect(response.status).toBe(422);
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
  });

  it('accepts a team member as assignee and 5000-char texts', async () => {
    const { api, teamId } = await createTeamWithKey();
    const member = await Members.add(
      teamId,
      { email: `triager-${randomUUID()}@example.test`, name: 'Triager', permissions: [] },
      OPERATOR_ACTOR,
    );
    const { findings } = await seedReleaseWithFindings(api, teamId, 1);
    const response = await api.post('/api/dispositions', {
      vulnerabilityId: findings[0]!.id,
      status: 'affected',
      response: 'update',
      assignedTo: member.id,
      detail: 'd'.repeat(5000),
      actionStatement: 'a'.repeat(5000),
    });
    expect(response.status).toBe(201);
    expect(response.body.data.assignedTo).toBe(member.id);
  });

  it('rejects a member of another team as assignee', async () => {
    const { api, teamId } = await createTeamWithKey();
    const other = await createTeamWithKey();
    const { findings } = await seedReleaseWithFindings(api, teamId, 1);
    const response = await api.post('/api/dispositions', {
      vulnerabilityId: findings[0]!.id,
      assignedTo: other.memberId,
    });
    expect(response.status).toBe(422);
  });

  it('PUT changes only supplied fields, validates the merged state, and keeps a history', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { findings } = await seedReleaseWithFindings(api, teamId, 1);
    const created = (
      await api.post('/api/dispositions', {
        vulnerabilityId: findings[0]!.id,
        status: 'affected',
        response: 'update',
        detail: 'keep me',
      })
    ).body.data;
    expect((await api.put(`/api/dispositions/${created.id}`, { status: 'not_affected' })).status).toBe(422);
    const updated = await api.put(`/api/dispositions/${created.id}`, {
      status: 'not_affected',
      justification: 'component_not_present',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      status: 'not_affected',
      justification: 'component_not_present',
      detail: 'keep me',
      response: 'update',
    });
    const read = await api.get(`/api/dispositions/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.history).toHaveLength(2);
    expect(read.body.data.history[1].changes.status).toEqual({ from: 'affected', to: 'not_affected' });
    expect(read.body.data.history[1].actor.name).toMatch(/^api_/);
  });

  it('serves a disposition with dispositions:read and refuses it without', async () => {
    const { api, teamId, memberId } = await createTeamWithKey();
    const { findings } = await seedReleaseWithFindings(api, teamId, 1);
    const created = (await api.post('/api/dispositions', { vulnerabilityId: findings[0]!.id })).body.data;
    const reader = await addKey(teamId, memberId, ['dispositions:read']);
    expect((await reader.api.get(`/api/dispositions/${created.id}`)).status).toBe(200);
    const writerOnly = await addKey(teamId, memberId, ['dispositions:write']);
    expect((await writerOnly.api.get(`/api/dispositions/${created.id}`)).status).toBe(403);
  });

  it("returns 404 for another team's vulnerability and disposition", async () => {
    const owner = await createTeamWithKey();
    const intruder = await createTeamWithKey();
    const { findings } = await seedReleaseWithFindings(owner.api, owner.teamId, 1);
    const created = (await owner.api.post('/api/dispositions', { vulnerabilityId: findings[0]!.id })).body.data;
    expect((await intruder.api.post('/api/dispositions', { vulnerabilityId: findings[0]!.id })).status).toBe(404);
    expect((await intruder.api.put(`/api/dispositions/${created.id}`, { status: 'fixed' })).status).toBe(404);
    expect((await intruder.api.get(`/api/dispositions/${created.id}`)).status).toBe(404);
  });

  it('accepts concurrent upserts of one vulnerability, last writer wins, each with its own revision, history and audit entry', async () => {
    // Arrange
    const { api, teamId } = await createTeamWithKey();
    const { findings, release } = await seedReleaseWithFindings(api, teamId, 1);
    const vulnerabilityId = findings[0]!.id;
    const CLIENTS = 8;
    const ROUNDS = 3;

    // Act: eight clients upsert the same vulnerability at once, three times each.
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let round = 0; round < ROUNDS; round += 1) {
          statuses.push(
            (
              await api.post('/api/dispositions', {
                vulnerabilityId,
                status: 'fixed',
                detail: `client ${client} round ${round}`,
              })
            ).status,
          );
        }
      }),
    );

    // Assert: every call accepted (one creation), and revision = history = audit = number of calls.
    expect(statuses.filter((status) => status !== 200 && status !== 201)).toEqual([]);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    const state = await releaseDispositionState(teamId, release.productId, release.id);
    expect(state.dispositions).toHaveLength(1);
    const disposition = state.dispositions[0]!;
    expect(disposition.revision).toBe(CLIENTS * ROUNDS);
    expect((await api.get(`/api/dispositions/${String(disposition.id)}`)).body.data.history).toHaveLength(
      CLIENTS * ROUNDS,
    );
    expect(dispositionInvariantViolations(state)).toEqual([]);
  });

  it('applies concurrent partial PUTs of different disposition fields without a conflict', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { findings, release } = await seedReleaseWithFindings(api, teamId, 1);
    const created = (await api.post('/api/dispositions', { vulnerabilityId: findings[0]!.id, status: 'fixed' })).body
      .data;
    const fields = ['detail', 'actionStatement', 'impactStatement'] as const;
    const statuses: number[] = [];
    await Promise.all(
      fields.map(async (field) => {
        for (let round = 0; round < 3; round += 1)
          statuses.push((await api.put(`/api/dispositions/${created.id}`, { [field]: `${field} ${round}` })).status);
      }),
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const stored = (await api.get(`/api/dispositions/${created.id}`)).body.data;
    for (const field of fields) expect(stored[field]).toBe(`${field} 2`);
    expect(
      dispositionInvariantViolations(await releaseDispositionState(teamId, release.productId, release.id)),
    ).toEqual([]);
  });

  it('applies a batch to every listed vulnerability and audits each change', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { findings } = await seedReleaseWithFindings(api, teamId, 30);
    await api.post('/api/dispositions', { vulnerabilityId: findings[0]!.id, status: 'affected', response: 'update' });
    const response = await api.post('/api/dispositions/batch', {
      vulnerabilityIds: findings.map((finding) => finding.id),
      status: 'not_affected',
      justification: 'vulnerable_code_not_in_execute_path',
      detail: 'batch',
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ updated: 30 });
    const audits = (await readAuditLog(teamId)).filter((entry) => entry.entityType === 'disposition');
    expect(audits).toHaveLength(31);
  });

  it('writes nothing when any id of a batch is unknown (all or nothing)', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { findings, release } = await seedReleaseWithFindings(api, teamId, 3);
    const ids = [findings[0]!.id, randomUUID(), findings[1]!.id];
    const response = await api.post('/api/dispositions/batch', { vulnerabilityIds: ids, status: 'fixed' });
    expect(response.status).toBe(422);
    expect(response.body.error.details[0].path).toBe('vulnerabilityIds.1');
    const dispositions = await queryAll(keys.dispositionPrefix(teamId, release.productId, release.id));
    expect(dispositions).toHaveLength(0);
  });

  it('limits a batch to 500 ids and checks its rules', async () => {
    const { api } = await createTeamWithKey();
    const tooMany = Array.from({ length: 501 }, () => randomUUID());
    expect((await api.post('/api/dispositions/batch', { vulnerabilityIds: tooMany, status: 'fixed' })).status).toBe(
      422,
    );
    expect(
      (await api.post('/api/dispositions/batch', { vulnerabilityIds: [randomUUID()], status: 'affected' })).body.error
        .details[0].path,
    ).toBe('response');
    expect((await api.post('/api/dispositions/batch', { vulnerabilityIds: [], status: 'fixed' })).status).toBe(422);
  });
});

describe('disposition decision time', () => {
  it('records when a disposition first becomes final and keeps it through later edits', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { findings } = await seedReleaseWithFindings(api, teamId, 1);
    const created = (await api.post('/api/dispositions', { vulnerabilityId: findings[0]!.id })).body.data;
    expect(created.decided_at).toBeNull();
    const decided = (
      await api.put(`/api/dispositions/${created.id}`, {
        status: 'not_affected',
        justification: 'component_not_present',
      })
    ).body.data;
    expect(decided.decided_at).toEqual(expect.any(String));
    const edited = (await api.put(`/api/dispositions/${created.id}`, { detail: 'clarified' })).body.data;
    expect(edited.decided_at).toBe(decided.decided_at);
    const reopened = (await api.put(`/api/dispositions/${created.id}`, { status: 'under_investigation' })).body.data;
    expect(reopened.decided_at).toBeNull();
  });
});
