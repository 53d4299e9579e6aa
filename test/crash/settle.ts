/**
 * After a restart: the invariants of invariants.ts checked against the stored data, and the
 * client's view of every acknowledged upload and VEX step through the API, until all hold
 * or the settle time is over.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { api } from './api';
import { checkInvariants, type CheckResult } from './invariants';
import type { Snapshot, StoreReader } from './store-snapshot';
import { VEX_STEPS, type Journal, type UploadOp, type VexOp, type WorkloadState } from './workload';

/** After a restart, recovery (batch roll-forward, resumed scans, sweeps) gets this long before a violation counts. */
export const SETTLE_MS = 8_000;

/**
 * What each fixture yields with the sample corpus, taken from its first completed
 * scan whose findings are all stored; every later scan of that fixture must agree.
 */
export function learnExpectedFindings(
  journal: Journal,
  snapshot: Snapshot,
  expectedFindings: Map<string, number>,
): void {
  for (const op of journal.ops) {
    if (op.kind !== 'upload' || !op.sbomId || expectedFindings.has(op.fixture)) continue;
    const sbom = snapshot.sboms.get(op.sbomId);
    if (sbom?.scanStatus === 'completed' && snapshot.findingsBySbom.get(sbom.id) === sbom.findingCount)
      expectedFindings.set(op.fixture, sbom.findingCount);
  }
}

/** Checks until every invariant holds or the settle time is over; returns the last result. */
export async function settle(
  journal: Journal,
  reader: StoreReader,
  teamId: string,
  expectedFindings: Map<string, number>,
  state: WorkloadState,
): Promise<{ result: CheckResult; settledMs: number | undefined }> {
  const begin = Date.now();
  for (;;) {
    const snapshot = await reader.snapshot(teamId);
    learnExpectedFindings(journal, snapshot, expectedFindings);
    const result = checkInvariants({ teamId, ops: journal.ops, snapshot, expectedFindings });
    // The client's view of each acknowledged upload, through the API: scanned.
    const uploads = journal.ops.filter(
      (op): op is UploadOp =>
        op.kind === 'upload' &&
        op.sbomId !== undefined &&
        !result.violations.some(
          (violation) => violation.key === `scan:${op.sbomId}` || violation.key === `sbom:${op.sbomId}`,
        ),
    );
    await Promise.all(
      uploads.map(async (op) => {
        const sbom = await api(state.baseUrl, state.apiKey, `/api/sboms/${op.sbomId!}`);
        if (sbom.status !== 200 || sbom.data?.scan?.status !== 'completed') {
          result.violations.push({
            invariant: 5,
            key: `api-scan:${op.sbomId!}`,
            message: `GET /api/sboms/${op.sbomId!.slice(0, 8)} → ${sbom.status}, scan ${String(sbom.data?.scan?.status)}`,
          });
        }
      }),
    );
    // Each acknowledged VEX step is still in effect: the document exists at that step or later; a publication verifies.
    const vexSteps = journal.ops.filter(
      (op): op is VexOp => op.kind === 'vex' && op.outcome === 'acked' && op.vexId !== undefined,
    );
    const latest = new Map<string, VexOp>();
    for (const op of vexSteps)
      if (VEX_STEPS.indexOf(op.step) >= VEX_STEPS.indexOf(latest.get(op.vexId!)?.step ?? 'create'))
        latest.set(op.vexId!, op);
    await Promise.all(
      [...latest.values()].map(async (op) => {
        const document = await api(state.baseUrl, state.apiKey, `/api/vex/${op.vexId!}`);
        const status = String(document.data?.workflow_status);
        const reached = ['draft', 'submitted', 'approved', 'published'].indexOf(status);
        if (document.status !== 200 || reached < VEX_STEPS.indexOf(op.step)) {
          result.violations.push({
            invariant: 1,
            key: `vex:${op.vexId!}:${op.step}:${status}`,
            message: `VEX ${op.vexId!.slice(0, 8)}: ${op.step} answered ${String(op.status)}, GET /api/vex/{id} → ${document.status}, status ${status}`,
          });
        }
        if (op.step === 'publish' && op.slug) {
          const verify = await fetch(`${state.baseUrl}/api/disclosures/${op.slug}/verify`, {
            signal: AbortSignal.timeout(30_000),
          });
          const body = (await verify.json()) as { content_hash_valid?: unknown; signature_valid?: unknown };
          if (verify.status !== 200 || body.content_hash_valid !== true || body.signature_valid !== true) {
            result.violations.push({
              invariant: 1,
              key: `disclosure:${op.slug}`,
              message: `disclosure ${op.slug} (publish answered 200): verify → ${verify.status} ${JSON.stringify(body).slice(0, 120)}`,
            });
          }
        }
      }),
    );
    result.checked.vex = latest.size;
    if (result.violations.length === 0) return { result, settledMs: Date.now() - begin };
    if (Date.now() - begin > SETTLE_MS) return { result, settledMs: undefined };
    await sleep(500);
  }
}
