import { describe, expect, it } from '@jest/globals';
import { keys } from '../../shared/service/data/keys';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { getItem, queryAll, type Item } from '../../shared/service/data/table-client';
import { DispositionBatches } from '../../shared/service/dispositions/disposition-batches';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { findingStore } from '../../shared/service/scans/finding-store';
import { decisionKey } from '../../shared/service/dispositions/decision-identity';
import { createTeamWithKey } from '../support/factories';
import { seedReleaseWithFindings } from '../support/seed';
import { dispositionInvariantViolations } from '../support/disposition-invariants';

const FINDINGS = 300;
const PREEXISTING = 40;
const SINGLE_WORKERS = 4;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function releaseState(teamId: string, productId: string, releaseId: string) {
  const children = await queryAll(keys.releaseChildrenPrefix(teamId, productId, releaseId));
  return {
    dispositions: children.filter((item) => item.entity === 'Disposition'),
    history: children.filter((item) => item.entity === 'DispositionChange'),
    audit: await readAuditLog(teamId),
  };
}

describe('disposition batch racing single writes', () => {
  it('keeps every acknowledged single write when a later chunk fails on the release lock, and history = revision = audit', async () => {
    // Arrange: 300 findings (19 chunks), some already triaged, and a draft VEX document ready to lock the release.
    const { api, teamId } = await createTeamWithKey();
    const { findings, release } = await seedReleaseWithFindings(api, teamId, FINDINGS);
    const ids = findings.map((finding) => finding.id);
    for (const id of ids.slice(0, PREEXISTING)) {
      expect(
        (
          await api.post('/api/dispositions', {
            vulnerabilityId: id,
            status: 'affected',
            response: 'update',
            detail: 'before',
          })
        ).status,
      ).toBe(201);
    }
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data;
    // The batch writes in id order; one consistent read of a disposition tells how far it got.
    const decisionKeys = await Promise.all(
      ids.map(async (id) => decisionKey((await findingStore.resolve(teamId, id))!)),
    );
    const batchReached = async (index: number) =>
      (await getItem(keys.disposition(teamId, release.productId, release.id, decisionKeys[index]!)))?.detail ===
      'batch';

    // Act: the batch runs; single upserts follow right behind its front; a submit locks the release mid-batch.
    const batch = api.post('/api/dispositions/batch', {
      vulnerabilityIds: ids,
      status: 'not_affected',
      justification: 'component_not_present',
      detail: 'batch',
    });
    let batchAnswered = false;
    void batch.finally(() => {
      batchAnswered = true;
    });
    while (!(await batchReached(18)) && !batchAnswered) await sleep(20);
    const acknowledged = new Map<string, string>();
    const single = async (worker: number) => {
      for (let index = worker; !batchAnswered && index < ids.length; index += SINGLE_WORKERS) {
        const detail = `single-${index}`;
        const response = await api.post('/api/dispositions', { vulnerabilityId: ids[index], status: 'fixed', detail });
        if (response.status === 200 || response.status === 201) acknowledged.set(ids[index]!, detail);
      }
    };
    const singles = Promise.all(Array.from({ length: SINGLE_WORKERS }, (_, worker) => single(worker)));
    while (!(await batchReached(6 * 19 - 1)) && !batchAnswered) await sleep(20);
    const submitted = await api.post(`/api/vex/${document.id}/submit`, {});
    const answer = await batch;
    await singles;

    // Assert: the batch failed as a whole, and what it undid is exactly its own writes.
    expect(submitted.status).toBe(200);
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('release_locked');
    const state = await releaseState(teamId, release.productId, release.id);
    const stored = new Map(state.dispositions.map((item) => [String(item.vulnerabilityId), item]));
    expect(acknowledged.size).toBeGreaterThan(0);
    const lost = [...acknowledged].filter(
      ([id, detail]) => stored.get(id)?.detail !== detail || stored.get(id)?.status !== 'fixed',
    );
    expect(lost).toEqual([]);
    const untouched = ids.filter((id) => !acknowledged.has(id));
    const wrong = untouched.filter((id) =>
      ids.indexOf(id) < PREEXISTING
        ? stored.get(id)?.detail !== 'before' || stored.get(id)?.status !== 'affected'
        : stored.has(id),
    );
    expect(wrong).toEqual([]);
    expect(dispositionInvariantViolations(state)).toEqual([]);
    expect(await queryAll(keys.dispositionBatchPendingPrefix(teamId))).toEqual([]);
    // The race really happened: some single write landed on a disposition the batch had already written.
    const overtaken = state.dispositions.filter((disposition: Item) => {
      const details = state.history
        .filter((entry) => String(entry.sk).includes(`#DISPOSITION_HISTORY#${String(disposition.decisionKey)}#`))
        .sort((a, b) => Number(a.revision) - Number(b.revision))
        .map((entry) => (entry.changes as { detail?: { to?: unknown } }).detail?.to);
      const batchAt = details.indexOf('batch');
      return batchAt >= 0 && details.slice(batchAt + 1).some((detail) => String(detail).startsWith('single-'));
    });
    expect(overtaken.length).toBeGreaterThan(0);
  }, 240_000);
});

describe('disposition batch left pending', () => {
  it('is finished by the next read of its release (a crash right after the intent was recorded)', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { findings, release, sbom } = await seedReleaseWithFindings(api, teamId, 45);
    const resolved = await Promise.all(findings.map((finding) => findingStore.resolve(teamId, finding.id)));
    const batchId = await DispositionBatches.record(
      teamId,
      OPERATOR_ACTOR,
      resolved.map((finding) => finding!),
      { status: 'fixed', detail: 'pending' },
    );
    expect(await queryAll(keys.dispositionBatchPendingPrefix(teamId))).toHaveLength(1);

    const listed = await api.get(`/api/sboms/${sbom.id}/vulnerabilities`);

    expect(listed.status).toBe(200);
    expect(listed.body.summary).toMatchObject({ total: 45, fixed: 45 });
    expect(await queryAll(keys.dispositionBatchPendingPrefix(teamId))).toEqual([]);
    expect(await getItem(keys.dispositionBatchOutcome(teamId, batchId))).toMatchObject({
      state: 'committed',
      updated: 45,
    });
    const state = await releaseState(teamId, release.productId, release.id);
    expect(state.dispositions).toHaveLength(45);
    expect(dispositionInvariantViolations(state)).toEqual([]);
  }, 120_000);
});
