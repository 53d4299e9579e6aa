/**
 * The crash test's clients and their journal. Every request is recorded with what
 * it asked for and how it ended: acknowledged (2xx), rejected (4xx, must leave no
 * trace), indeterminate (5xx) or cut (no answer: the server was killed under it).
 * Every disposition write carries a unique `detail` token, so the store shows
 * exactly which writes landed where (history, audit, current state).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Rng } from './rng';

export type Outcome = 'pending' | 'acked' | 'rejected' | 'indeterminate' | 'cut';

interface OpBase {
  seq: number;
  cycle: number;
  client: string;
  startedAt: number;
  endedAt?: number;
  outcome: Outcome;
  status?: number;
  answer?: string;
}
export interface ProductOp extends OpBase {
  kind: 'product';
  productId?: string;
}
export interface ReleaseOp extends OpBase {
  kind: 'release';
  productId: string;
  releaseId?: string;
}
export interface UploadOp extends OpBase {
  kind: 'upload';
  releaseId: string;
  fixture: string;
  sbomId?: string;
}
/** POST /api/dispositions (upsert) or PUT /api/dispositions/{id} (update). */
export interface SingleOp extends OpBase {
  kind: 'upsert' | 'update';
  vulnerabilityId: string;
  token: string;
  dispositionId?: string;
  updatedAt?: string;
}
export interface BatchOp extends OpBase {
  kind: 'batch';
  vulnerabilityIds: string[];
  token: string;
}
/** One step of the VEX workflow on a release of its own (submit locks the release, so it stays out of the disposition writers' way). */
export interface VexOp extends OpBase {
  kind: 'vex';
  step: VexStep;
  releaseId: string;
  vexId?: string;
  slug?: string;
}
export const VEX_STEPS = ['create', 'submit', 'approve', 'publish'] as const;
export type VexStep = (typeof VEX_STEPS)[number];
export type Op = ProductOp | ReleaseOp | UploadOp | SingleOp | BatchOp | VexOp;

/** Fixtures the uploaders pick from: real SBOMs that match the bundled sample corpus. */
export const FIXTURES = [
  'cyclonedx-1.4_go-cargo-pypi_syft_sbomgr.json',
  'handmade_spdx-2.3_describes-relationship.json',
  'cyclonedx-1.5_gem-deb_syft-1.2.0_rails-5.0.0-image.json',
  'cyclonedx-1.5_maven_cdxgen_vuln-spring.json',
  'handmade_cyclonedx-1.2_nested-assemblies.json',
] as const;
const FIXTURE_DIR = resolve(import.meta.dirname, '../fixtures/sboms');
const fixtureText = new Map<string, string>(
  FIXTURES.map((name) => [name, readFileSync(join(FIXTURE_DIR, name), 'utf8')]),
);
export const fixtureContent = (name: string): string => fixtureText.get(name)!;

const STATUSES = ['affected', 'not_affected', 'fixed', 'under_investigation'] as const;
const JUSTIFICATIONS = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
] as const;
const RESPONSES = ['can_not_fix', 'will_not_fix', 'update', 'workaround_available'] as const;

/** A disposition body that satisfies the rules (justification for not_affected, response for affected). */
function dispositionValues(rng: Rng, token: string): Record<string, string> {
  const status = rng.pick(STATUSES);
  return {
    status,
    detail: token,
    ...(status === 'not_affected' ? { justification: rng.pick(JUSTIFICATIONS) } : {}),
    ...(status === 'affected' ? { response: rng.pick(RESPONSES) } : {}),
  };
}

export class Journal {
  readonly ops: Op[] = [];
  private seq = 0;
  cycle = 0;

  async send<T extends Op>(
    op: Omit<T, 'seq' | 'cycle' | 'startedAt' | 'outcome'>,
    baseUrl: string,
    apiKey: string,
    method: string,
    path: string,
    body: unknown,
  ): Promise<{ op: T; data?: Record<string, unknown> }> {
    const recorded = { ...op, seq: ++this.seq, cycle: this.cycle, startedAt: Date.now(), outcome: 'pending' } as T;
    this.ops.push(recorded);
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      recorded.endedAt = Date.now();
      recorded.status = response.status;
      recorded.outcome = response.status < 300 ? 'acked' : response.status < 500 ? 'rejected' : 'indeterminate';
      if (recorded.outcome !== 'acked') recorded.answer = text.slice(0, 300);
      const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      return { op: recorded, data: (parsed.data ?? parsed) as Record<string, unknown> };
    } catch (error) {
      recorded.endedAt = Date.now();
      recorded.outcome = 'cut';
      recorded.answer = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      return { op: recorded };
    }
  }

  pending(): Op[] {
    return this.ops.filter((op) => op.outcome === 'pending');
  }
}

export function tokenFor(cycle: number, client: string, n: number): string {
  return `crash-c${cycle}-${client}-${n}`;
}

export interface WorkloadState {
  baseUrl: string;
  apiKey: string;
  /** Releases the uploaders may add SBOMs to. */
  releases: string[];
  /** Vulnerability (finding) ids the disposition writers pick from. */
  pool: string[];
  /** Disposition ids seen in acknowledged answers, by vulnerability id (for PUT updates). */
  dispositionIds: Map<string, string>;
}

/**
 * Runs the clients until `stopped()` turns true; each client sends one request at a time.
 * `disjoint`: single writers and each batch writer use separate thirds of the pool (the control run, where no write contends).
 */
export async function runClients(
  journal: Journal,
  state: WorkloadState,
  rng: Rng,
  stopped: () => boolean,
  disjoint = false,
): Promise<void> {
  const { baseUrl, apiKey } = state;
  const third = Math.floor(state.pool.length / 3);
  const singlePool = disjoint ? state.pool.slice(0, third) : state.pool;
  const batchPools = disjoint
    ? [state.pool.slice(third, 2 * third), state.pool.slice(2 * third)]
    : [state.pool, state.pool];
  const slug = () => `crash-${Array.from({ length: 12 }, () => String.fromCharCode(97 + rng.int(26))).join('')}`;

  const uploader = async (client: string) => {
    while (!stopped()) {
      if (rng.chance(0.25) || state.releases.length === 0) {
        const { op, data } = await journal.send<ProductOp>(
          { kind: 'product', client },
          baseUrl,
          apiKey,
          'POST',
          '/api/products',
          { name: `Crash ${client}`, slug: slug() },
        );
        if (op.outcome !== 'acked' || !data) continue;
        op.productId = String(data.id);
        if (stopped()) return;
        const release = await journal.send<ReleaseOp>(
          { kind: 'release', client, productId: op.productId },
          baseUrl,
          apiKey,
          'POST',
          `/api/products/${op.productId}/releases`,
          { version: '1.0.0' },
        );
        if (release.op.outcome !== 'acked' || !release.data) continue;
        release.op.releaseId = String(release.data.id);
        state.releases.push(release.op.releaseId);
        continue;
      }
      const fixture = rng.pick(FIXTURES);
      const releaseId = rng.pick(state.releases);
      const { op, data } = await journal.send<UploadOp>(
        { kind: 'upload', client, releaseId, fixture },
        baseUrl,
        apiKey,
        'POST',
        '/api/sboms/upload',
        { releaseId, content: fixtureText.get(fixture), fileName: fixture },
      );
      if (op.outcome === 'acked' && data) op.sbomId = String(data.id);
    }
  };

  const singleWriter = async (client: string) => {
    let n = 0;
    while (!stopped()) {
      // Now and then contend with a batch in flight, at its first ids (written early: a failing batch
      // must not undo this write) or its last ones (written late: this write may make it fail).
      const running = disjoint ? [] : journal.pending().filter((op): op is BatchOp => op.kind === 'batch');
      const contended = running.length && rng.chance(0.3) ? rng.pick(running).vulnerabilityIds : undefined;
      const vulnerabilityId = contended
        ? rng.pick(rng.chance(0.5) ? contended.slice(0, 20) : contended.slice(-20))
        : rng.pick(singlePool);
      const token = tokenFor(journal.cycle, client, ++n);
      const values = dispositionValues(rng, token);
      const known = state.dispositionIds.get(vulnerabilityId);
      const { op, data } =
        known && rng.chance(0.4)
          ? await journal.send<SingleOp>(
              { kind: 'update', client, vulnerabilityId, token, dispositionId: known },
              baseUrl,
              apiKey,
              'PUT',
              `/api/dispositions/${known}`,
              values,
            )
          : await journal.send<SingleOp>(
              { kind: 'upsert', client, vulnerabilityId, token },
              baseUrl,
              apiKey,
              'POST',
              '/api/dispositions',
              { vulnerabilityId, ...values },
            );
      if (op.outcome === 'acked' && data) {
        op.dispositionId = String(data.id);
        op.updatedAt = String(data.updated_at);
        state.dispositionIds.set(vulnerabilityId, op.dispositionId);
      }
    }
  };

  const batchWriter = async (client: string, batchPool: string[]) => {
    let n = 0;
    while (!stopped()) {
      // Mostly 20..150 ids (several chunks, often finished between kills), sometimes 300..500.
      const size = Math.min(batchPool.length, rng.chance(0.2) ? 300 + rng.int(201) : 20 + rng.int(131));
      const vulnerabilityIds = rng.sample(batchPool, size);
      const token = tokenFor(journal.cycle, client, ++n);
      await journal.send<BatchOp>(
        { kind: 'batch', client, vulnerabilityIds, token },
        baseUrl,
        apiKey,
        'POST',
        '/api/dispositions/batch',
        { vulnerabilityIds, ...dispositionValues(rng, token) },
      );
    }
  };

  const vexWriter = async (client: string) => {
    while (!stopped()) {
      const product = await journal.send<ProductOp>(
        { kind: 'product', client },
        baseUrl,
        apiKey,
        'POST',
        '/api/products',
        { name: `Crash ${client}`, slug: slug() },
      );
      if (product.op.outcome !== 'acked' || !product.data || stopped()) continue;
      product.op.productId = String(product.data.id);
      const release = await journal.send<ReleaseOp>(
        { kind: 'release', client, productId: product.op.productId },
        baseUrl,
        apiKey,
        'POST',
        `/api/products/${product.op.productId}/releases`,
        { version: '1.0.0' },
      );
      if (release.op.outcome !== 'acked' || !release.data || stopped()) continue;
      const releaseId = String(release.data.id);
      release.op.releaseId = releaseId;
      // No SBOM: a release without findings can still be published as CycloneDX VEX ("nothing known").
      const created = await journal.send<VexOp>(
        { kind: 'vex', step: 'create', client, releaseId },
        baseUrl,
        apiKey,
        'POST',
        `/api/releases/${releaseId}/vex`,
        { format: 'cyclonedx_vex' },
      );
      if (created.op.outcome !== 'acked' || !created.data) continue;
      const vexId = String(created.data.id);
      created.op.vexId = vexId;
      for (const step of VEX_STEPS.slice(1)) {
        if (stopped()) return;
        const { op, data } = await journal.send<VexOp>(
          { kind: 'vex', step, client, releaseId, vexId },
          baseUrl,
          apiKey,
          'POST',
          `/api/vex/${vexId}/${step}`,
          {},
        );
        if (op.outcome !== 'acked') break;
        if (step === 'publish')
          op.slug = String((data?.disclosure as { public_slug?: string } | undefined)?.public_slug);
      }
    }
  };

  await Promise.all([
    vexWriter('vex1'),
    uploader('up1'),
    uploader('up2'),
    singleWriter('one1'),
    singleWriter('one2'),
    batchWriter('batch1', batchPools[0]!),
    batchWriter('batch2', batchPools[1]!),
  ]);
}
