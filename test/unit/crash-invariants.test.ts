/**
 * The crash test's checker (test/crash/invariants.ts) on hand-built stores: silent on a
 * consistent one, and each invariant reports the damage a crash or a bad rollback leaves.
 */
import { describe, expect, it } from '@jest/globals';
import { checkInvariants, type InvariantId } from '../crash/invariants';
import type { Snapshot } from '../crash/store-snapshot';
import type { BatchOp, Op, SingleOp, UploadOp } from '../crash/workload';

const TEAM = '00000000-0000-4000-8000-00000000000a';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const V1 = id(1);
const V2 = id(2);
const D1 = id(11);
const D2 = id(12);
const SBOM = id(21);
const sbomKey = `teams/${TEAM}/products/${id(31)}/releases/${id(32)}/sboms/${SBOM}`;

const base = { cycle: 1, client: 'c', startedAt: 0, endedAt: 1 };
const upsert: SingleOp = {
  ...base,
  seq: 1,
  kind: 'upsert',
  vulnerabilityId: V1,
  token: 'tok-1',
  outcome: 'acked',
  status: 201,
  dispositionId: D1,
};
const batch: BatchOp = {
  ...base,
  seq: 2,
  kind: 'batch',
  vulnerabilityIds: [V1, V2],
  token: 'tok-2',
  outcome: 'acked',
  status: 200,
};
const upload: UploadOp = {
  ...base,
  seq: 3,
  kind: 'upload',
  releaseId: id(32),
  fixture: 'f.json',
  sbomId: SBOM,
  outcome: 'acked',
  status: 201,
};

/** V1: upsert then batch (revision 2); V2: created by the batch (revision 1); one scanned SBOM with 2 findings. */
function consistent(): Snapshot {
  return {
    products: new Set([id(31)]),
    releases: new Set([id(32)]),
    sboms: new Map([
      [
        SBOM,
        {
          id: SBOM,
          productId: id(31),
          releaseId: id(32),
          objectKey: sbomKey,
          inventoryKey: `${sbomKey}.components.json.gz`,
          fileSize: 10,
          scanStatus: 'completed',
          findingCount: 2,
        },
      ],
    ]),
    findingsBySbom: new Map([[SBOM, 2]]),
    dispositions: new Map([
      [V1, { id: D1, vulnerabilityId: V1, revision: 2, detail: 'tok-2', updatedAt: '2026-01-01T00:00:02.000Z' }],
      [V2, { id: D2, vulnerabilityId: V2, revision: 1, detail: 'tok-2', updatedAt: '2026-01-01T00:00:02.000Z' }],
    ]),
    history: new Map([
      [
        V1,
        [
          { at: '2026-01-01T00:00:01.000Z', changeId: 'h1', detailTo: 'tok-1' },
          { at: '2026-01-01T00:00:02.000Z', changeId: 'h2', detailTo: 'tok-2' },
        ],
      ],
      [V2, [{ at: '2026-01-01T00:00:02.000Z', changeId: 'h3', detailTo: 'tok-2' }]],
    ]),
    audit: new Map([
      [
        D1,
        [
          { action: 'create', vulnerabilityId: V1, timestamp: '2026-01-01T00:00:01.000Z', detailTo: 'tok-1' },
          { action: 'update', vulnerabilityId: V1, timestamp: '2026-01-01T00:00:02.000Z', detailTo: 'tok-2' },
        ],
      ],
      [D2, [{ action: 'create', vulnerabilityId: V2, timestamp: '2026-01-01T00:00:02.000Z', detailTo: 'tok-2' }]],
    ]),
    pointers: new Set([D1, D2, SBOM]),
    objects: new Map([
      [sbomKey, 10],
      [`${sbomKey}.components.json.gz`, 5],
    ]),
  };
}

function failing(snapshot: Snapshot, ops: Op[] = [upsert, batch, upload]): InvariantId[] {
  const { violations } = checkInvariants({ teamId: TEAM, ops, snapshot, expectedFindings: new Map([['f.json', 2]]) });
  return [...new Set(violations.map((violation) => violation.invariant))].sort();
}

describe('crash test invariants', () => {
  it('hold on a consistent store', () => {
    expect(failing(consistent())).toEqual([]);
  });

  it('1: an acknowledged write undone by an older state (an unconditional rollback)', () => {
    const snapshot = consistent();
    snapshot.dispositions.set(V1, {
      ...snapshot.dispositions.get(V1)!,
      detail: 'tok-0',
      updatedAt: '2026-01-01T00:00:00.500Z',
    });
    expect(failing(snapshot)).toContain(1);
  });

  it('1: an acknowledged SBOM that is not stored', () => {
    const snapshot = consistent();
    snapshot.sboms.clear();
    expect(failing(snapshot)).toContain(1);
  });

  it('2: a write whose audit entry was lost (a transaction torn by the kill)', () => {
    const snapshot = consistent();
    snapshot.audit.set(D1, snapshot.audit.get(D1)!.slice(0, 1));
    expect(failing(snapshot)).toEqual([2]);
  });

  it('3: a batch applied to some of its ids', () => {
    const snapshot = consistent();
    snapshot.dispositions.delete(V2);
    snapshot.history.delete(V2);
    snapshot.audit.delete(D2);
    expect(failing(snapshot, [upsert, { ...batch, outcome: 'cut', status: undefined }, upload])).toEqual([3]);
  });

  it('3: a batch applied to some of its ids that failed, one still holding its value', () => {
    const snapshot = consistent();
    snapshot.dispositions.delete(V2);
    snapshot.history.delete(V2);
    snapshot.audit.delete(D2);
    const refused: BatchOp = { ...batch, outcome: 'rejected', status: 409 };
    expect(failing(snapshot, [upsert, refused, upload])).toEqual([3]);
    expect(failing(snapshot, [upsert, { ...refused, status: 422 }, upload])).toEqual([3]);
  });

  /** V1: upsert, the batch's first chunk, then `last` (a rollback or someone else's write); V2: the batch's next chunk never applied. */
  function failedAfterFirstChunk(last: { action: 'rollback' | 'update'; detail: string }): Snapshot {
    const snapshot = consistent();
    snapshot.dispositions.set(V1, {
      id: D1,
      vulnerabilityId: V1,
      revision: 3,
      detail: last.detail,
      updatedAt: '2026-01-01T00:00:03.000Z',
    });
    snapshot.history.set(V1, [
      ...snapshot.history.get(V1)!,
      { at: '2026-01-01T00:00:03.000Z', changeId: 'h4', detailTo: last.detail },
    ]);
    snapshot.audit.set(D1, [
      ...snapshot.audit.get(D1)!,
      { action: last.action, vulnerabilityId: V1, timestamp: '2026-01-01T00:00:03.000Z', detailTo: last.detail },
    ]);
    snapshot.dispositions.delete(V2);
    snapshot.history.delete(V2);
    snapshot.audit.delete(D2);
    snapshot.pointers.delete(D2);
    return snapshot;
  }

  it('3: a batch that failed after its first chunk, that write since undone, is not partial', () => {
    // The rollback is a new revision: the batch's own history entry stays.
    const undone = failedAfterFirstChunk({ action: 'rollback', detail: 'tok-1' });
    expect(failing(undone, [upsert, { ...batch, outcome: 'rejected', status: 409 }, upload])).toEqual([]);
    expect(failing(undone, [upsert, { ...batch, outcome: 'cut', status: undefined }, upload])).toEqual([]);
  });

  it('3: a batch that failed after its first chunk, that write since written over by another, is not partial', () => {
    // The crash test's seed 1930309017: a concurrent batch kept changing the second chunk's dispositions (409
    // concurrent_modification after 8 attempts) and had written over every one of the first chunk's (kept by the rollback).
    const over: SingleOp = { ...upsert, seq: 4, token: 'tok-3', status: 200 };
    const overwritten = failedAfterFirstChunk({ action: 'update', detail: 'tok-3' });
    expect(failing(overwritten, [upsert, { ...batch, outcome: 'cut', status: undefined }, over, upload])).toEqual([]);
  });

  it('4: an SBOM file without its item', () => {
    const snapshot = consistent();
    snapshot.objects.set(`teams/${TEAM}/products/${id(31)}/releases/${id(32)}/sboms/${id(22)}`, 10);
    expect(failing(snapshot)).toEqual([4]);
  });

  it('5: an SBOM whose scan never ran, or whose findings are partly stored', () => {
    const queued = consistent();
    queued.sboms.set(SBOM, { ...queued.sboms.get(SBOM)!, scanStatus: 'queued', findingCount: 0 });
    expect(failing(queued)).toEqual([5]);
    const partial = consistent();
    partial.findingsBySbom.set(SBOM, 1);
    expect(failing(partial)).toEqual([5]);
  });
});
