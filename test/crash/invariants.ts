/**
 * The invariants the crash test checks after every restart: the first five as a pure function of the client
 * journal and a snapshot of the store; the sixth (notifications.ts) through the API and a webhook receiver.
 * Each violation names its ids.
 */
import type { Snapshot, StoredChange } from './store-snapshot';
import type { BatchOp, Op, SingleOp } from './workload';

export const INVARIANTS = {
  1: 'every acknowledged write present',
  2: 'no torn transaction (disposition revision = history = audit)',
  3: 'no partial batch',
  4: 'no orphan',
  5: 'scans resumed',
  6: 'notifications delayed, never dropped or doubled',
} as const;
export type InvariantId = keyof typeof INVARIANTS;

export interface Violation {
  invariant: InvariantId;
  /** Stable across cycles, so a violation already reported is not repeated. */
  key: string;
  message: string;
}

export interface CheckInput {
  teamId: string;
  ops: readonly Op[];
  snapshot: Snapshot;
  /** Findings each fixture gives with the sample corpus (from the scans before the first kill). */
  expectedFindings: ReadonlyMap<string, number>;
}

export interface CheckResult {
  violations: Violation[];
  checked: { dispositions: number; writes: number; batches: number; sboms: number; objects: number; vex?: number };
}

const short = (id: string) => id.slice(0, 8);

/** Where each detail token landed: token → the history entries (with their vulnerability) holding it. */
function tokenIndex(history: Snapshot['history']): Map<string, { vulnerabilityId: string; change: StoredChange }[]> {
  const index = new Map<string, { vulnerabilityId: string; change: StoredChange }[]>();
  for (const [vulnerabilityId, changes] of history) {
    for (const change of changes) {
      if (typeof change.detailTo !== 'string') continue;
      const list = index.get(change.detailTo) ?? [];
      list.push({ vulnerabilityId, change });
      index.set(change.detailTo, list);
    }
  }
  return index;
}

export function checkInvariants({ teamId, ops, snapshot, expectedFindings }: CheckInput): CheckResult {
  const violations: Violation[] = [];
  const add = (invariant: InvariantId, key: string, message: string) => violations.push({ invariant, key, message });
  const tokens = tokenIndex(snapshot.history);
  const landed = (token: string, vulnerabilityId: string) =>
    tokens.get(token)?.find((entry) => entry.vulnerabilityId === vulnerabilityId)?.change;

  /** An acknowledged write to one vulnerability: in history, and not undone by an older state written over it. */
  const acknowledgedWrite = (vulnerabilityId: string, token: string): string | undefined => {
    const disposition = snapshot.dispositions.get(vulnerabilityId);
    const change = landed(token, vulnerabilityId);
    if (!disposition) return `vuln ${short(vulnerabilityId)}: no disposition stored`;
    if (!change) return `vuln ${short(vulnerabilityId)}: write missing from the history`;
    if (disposition.updatedAt < change.at)
      return `vuln ${short(vulnerabilityId)}: rolled back (acked write at ${change.at}, stored state from ${disposition.updatedAt}, detail ${String(disposition.detail)})`;
    return undefined;
  };

  // 1. Every acknowledged write is present; a rejected (4xx) write left nothing.
  let writes = 0;
  for (const op of ops) {
    if (op.kind === 'product' && op.outcome === 'acked' && op.productId && !snapshot.products.has(op.productId))
      add(1, `product:${op.productId}`, `product ${short(op.productId)} answered 201, not stored`);
    if (op.kind === 'release' && op.outcome === 'acked' && op.releaseId && !snapshot.releases.has(op.releaseId))
      add(1, `release:${op.releaseId}`, `release ${short(op.releaseId)} answered 201, not stored`);
    if (op.kind === 'upload' && op.outcome === 'acked' && op.sbomId) {
      const sbom = snapshot.sboms.get(op.sbomId);
      if (!sbom) add(1, `sbom:${op.sbomId}`, `SBOM ${short(op.sbomId)} (${op.fixture}) answered 201, not stored`);
      else if (!snapshot.objects.has(sbom.objectKey))
        add(1, `sbom-file:${op.sbomId}`, `SBOM ${short(op.sbomId)} answered 201, its file is missing from the bucket`);
    }
    if (op.kind === 'upsert' || op.kind === 'update') {
      writes += 1;
      const single: SingleOp = op;
      if (single.outcome === 'acked') {
        const problem = acknowledgedWrite(single.vulnerabilityId, single.token);
        if (problem)
          add(
            1,
            `write:${single.token}`,
            `${single.kind} ${single.token} answered ${String(single.status)}; ${problem}`,
          );
        const stored = snapshot.dispositions.get(single.vulnerabilityId);
        if (stored && single.dispositionId && stored.id !== single.dispositionId)
          add(
            1,
            `replaced:${single.token}`,
            `${single.kind} ${single.token} answered disposition ${short(single.dispositionId)}; the vulnerability now holds disposition ${short(stored.id)}`,
          );
      } else if (single.outcome === 'rejected' && landed(single.token, single.vulnerabilityId)) {
        add(
          1,
          `rejected:${single.token}`,
          `${single.kind} ${single.token} answered ${String(single.status)} but was applied to vuln ${short(single.vulnerabilityId)}`,
        );
      }
    }
  }

  // 3. A batch is applied to all of its ids or to none (and all of them when it was acknowledged). A batch that
  // failed after some of its chunks applied (409, or cut off and rolled back at restart) keeps its history entries:
  // its undo is a new revision, and a write by someone else since then is not undone. So for a batch that did not
  // commit, "none" means that no id still holds its value (each was undone or written over).
  const batches = ops.filter((op): op is BatchOp => op.kind === 'batch');
  for (const batch of batches) {
    const applied = batch.vulnerabilityIds.filter((id) => landed(batch.token, id)).length;
    const holding = batch.vulnerabilityIds.filter((id) => snapshot.dispositions.get(id)?.detail === batch.token).length;
    const total = batch.vulnerabilityIds.length;
    const answer = batch.outcome === 'cut' ? 'cut off by the kill' : `answered ${String(batch.status)}`;
    const where = `its write is in the history of ${applied} of ${total} ids, ${holding} still hold its value`;
    // Whether the batch may have failed after its intent: no answer, a 5xx or a 409 (a 422 or 404 precedes any write).
    const failedLate = batch.outcome !== 'acked' && (batch.outcome !== 'rejected' || batch.status === 409);
    const undone = failedLate && holding === 0;
    const partial =
      batch.outcome === 'acked'
        ? applied < total
        : batch.outcome === 'rejected'
          ? applied > 0 && !undone
          : applied > 0 && applied < total && !undone;
    if (partial) add(3, `batch:${batch.token}`, `batch ${batch.token} (${answer}): ${where}`);
    if (batch.outcome === 'acked') {
      const problems = batch.vulnerabilityIds
        .map((id) => acknowledgedWrite(id, batch.token))
        .filter((problem): problem is string => problem !== undefined);
      if (problems.length)
        add(
          1,
          `batch-ack:${batch.token}`,
          `batch ${batch.token} answered 200 for ${total} ids; ${problems.length} not present: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; …' : ''}`,
        );
    }
  }

  // 2. No torn transaction: a disposition write is the item, its history entry, its audit entry and (on create) its id pointer, together.
  const dispositionIds = new Set<string>();
  for (const disposition of snapshot.dispositions.values()) {
    dispositionIds.add(disposition.id);
    const history = snapshot.history.get(disposition.vulnerabilityId) ?? [];
    const audit = snapshot.audit.get(disposition.id) ?? [];
    const label = `disposition ${short(disposition.id)} (vuln ${short(disposition.vulnerabilityId)})`;
    if (disposition.revision !== history.length || history.length !== audit.length) {
      const byAction = new Map<string, number>();
      for (const entry of audit) byAction.set(entry.action, (byAction.get(entry.action) ?? 0) + 1);
      const actions = [...byAction].map(([action, count]) => `${action} ${count}`).join(', ');
      add(
        2,
        `counts:${disposition.id}:${disposition.revision}:${history.length}:${audit.length}`,
        `${label}: revision ${disposition.revision}, history ${history.length}, audit ${audit.length}${actions ? ` (${actions})` : ''}`,
      );
    }
    if (!snapshot.pointers.has(disposition.id))
      add(2, `pointer:${disposition.id}`, `${label}: no id pointer (GET /api/dispositions/{id} answers 404)`);
    const latest = history.reduce<string>((max, change) => (change.at > max ? change.at : max), '');
    const lastDetails = history.filter((change) => change.at === latest).map((change) => change.detailTo);
    if (history.length > 0 && !lastDetails.includes(disposition.detail))
      add(
        2,
        `state:${disposition.id}:${String(disposition.detail)}`,
        `${label}: stored detail ${String(disposition.detail)} is not what its last history entry wrote (${lastDetails.map(String).join(' | ')})`,
      );
  }
  for (const [vulnerabilityId, history] of snapshot.history) {
    if (!snapshot.dispositions.has(vulnerabilityId))
      add(
        2,
        `history-only:${vulnerabilityId}:${history.length}`,
        `vuln ${short(vulnerabilityId)}: ${history.length} history entries, no disposition`,
      );
  }
  for (const [dispositionId, audit] of snapshot.audit) {
    if (!dispositionIds.has(dispositionId))
      add(
        2,
        `audit-only:${dispositionId}:${audit.length}`,
        `disposition ${short(dispositionId)}: ${audit.length} audit entries (${audit.map((entry) => entry.action).join(', ')}), no disposition`,
      );
  }
  // Write by write (each write's detail token is unique): its history entry and its audit entry exist together or not at all.
  const audited = new Set<string>();
  for (const entries of snapshot.audit.values())
    for (const entry of entries)
      if (typeof entry.detailTo === 'string' && entry.action !== 'rollback')
        audited.add(`${entry.vulnerabilityId} ${entry.detailTo}`);
  const historied = new Set<string>();
  for (const [vulnerabilityId, history] of snapshot.history)
    for (const change of history)
      if (typeof change.detailTo === 'string') historied.add(`${vulnerabilityId} ${change.detailTo}`);
  for (const pair of historied)
    if (!audited.has(pair))
      add(
        2,
        `unaudited:${pair}`,
        `write ${pair.split(' ')[1]!} on vuln ${short(pair)}: in the history, no audit entry`,
      );
  for (const pair of audited)
    if (!historied.has(pair))
      add(2, `unhistoried:${pair}`, `write ${pair.split(' ')[1]!} on vuln ${short(pair)}: audited, not in the history`);

  // 4. No orphan: every SBOM file belongs to an SBOM item, every SBOM item has its files.
  const pattern = new RegExp(
    `^teams/${teamId}/products/[^/]+/releases/[^/]+/sboms/([0-9a-f-]{36})(\\.components\\.json\\.gz)?$`,
  );
  for (const [key] of snapshot.objects) {
    const sbomId = pattern.exec(key)?.[1];
    if (sbomId && !snapshot.sboms.has(sbomId))
      add(4, `orphan:${key}`, `object ${key.replace(`teams/${teamId}/`, '…/')} has no SBOM item`);
  }
  for (const sbom of snapshot.sboms.values()) {
    for (const key of [sbom.objectKey, sbom.inventoryKey])
      if (!snapshot.objects.has(key))
        add(4, `dangling:${key}`, `SBOM ${short(sbom.id)}: item without its object ${key.split('/').pop()}`);
  }

  // 5. Every stored SBOM is scanned (no client asked for it), and the scan's findings are all stored.
  const uploads = new Map(ops.flatMap((op) => (op.kind === 'upload' && op.sbomId ? [[op.sbomId, op] as const] : [])));
  for (const sbom of snapshot.sboms.values()) {
    const upload = uploads.get(sbom.id);
    const label = `SBOM ${short(sbom.id)}${upload ? ` (${upload.fixture}, acked)` : ' (upload cut off)'}`;
    if (sbom.scanStatus !== 'completed') {
      add(5, `scan:${sbom.id}`, `${label}: scan ${sbom.scanStatus}`);
      continue;
    }
    const stored = snapshot.findingsBySbom.get(sbom.id) ?? 0;
    if (stored !== sbom.findingCount)
      add(5, `findings:${sbom.id}`, `${label}: scan reports ${sbom.findingCount} findings, ${stored} stored`);
    const expected = upload ? expectedFindings.get(upload.fixture) : undefined;
    if (expected !== undefined && sbom.findingCount !== expected)
      add(5, `expected:${sbom.id}`, `${label}: scan found ${sbom.findingCount}, the fixture gives ${expected}`);
  }

  return {
    violations,
    checked: {
      dispositions: snapshot.dispositions.size,
      writes,
      batches: batches.length,
      sboms: snapshot.sboms.size,
      objects: snapshot.objects.size,
    },
  };
}
