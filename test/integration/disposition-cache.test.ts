/**
 * The per-process cache of a release's dispositions (shared/service/dispositions/disposition-cache.ts):
 * every disposition write moves the release's dispositions version in its own transaction, so the
 * next read never misses it — through HTTP against the server's cache, and in this process
 * against the store itself. A write path that forgets the move is refused.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { randomUUID } from 'node:crypto';
import { transactWrite } from '../../shared/service/data/table-client';
import {
  dispositionBulk,
  dispositionStore,
  DispositionTransaction,
  type Disposition,
} from '../../shared/service/dispositions/disposition-store';
import { createTeamWithKey } from '../support/factories';
import { seedReleaseWithFindings } from '../support/seed';

type Api = Awaited<ReturnType<typeof createTeamWithKey>>['api'];
interface Row {
  id: string;
  disposition?: { id: string; status: string };
}

const DECISIONS = [
  { status: 'not_affected', justification: 'vulnerable_code_not_present' },
  { status: 'affected', response: 'update' },
  { status: 'fixed' },
  { status: 'under_investigation' },
] as const;

async function releaseRows(api: Api, releaseId: string): Promise<Map<string, Row>> {
  const listed = await api.get<{ data: (Row & { finding_ids: string[] })[] }>(
    `/api/releases/${releaseId}/vulnerabilities?perPage=100`,
  );
  expect(listed.status).toBe(200);
  return new Map(listed.body.data.flatMap((row) => row.finding_ids.map((id) => [id, row] as const)));
}

describe('release dispositions cache', () => {
  it('shows every single, batch and update write on the next read of the release list', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { release, findings } = await seedReleaseWithFindings(api, teamId, 2);
    const [first, second] = findings;
    await releaseRows(api, release.id); // warm: the server now holds the release's (empty) set
    let dispositionId: string | undefined;
    for (const [round, decision] of [...DECISIONS, ...DECISIONS].entries()) {
      const kind = round % 3;
      const written =
        kind === 0
          ? await api.post('/api/dispositions', { vulnerabilityId: first!.id, ...decision })
          : kind === 1 && dispositionId
            ? await api.put(`/api/dispositions/${dispositionId}`, decision)
            : await api.post('/api/dispositions/batch', { vulnerabilityIds: [first!.id, second!.id], ...decision });
      expect([200, 201]).toContain(written.status);
      if (kind === 0) dispositionId = written.body.data.id;
      const rows = await releaseRows(api, release.id);
      expect(rows.get(first!.id)?.disposition?.status).toBe(decision.status);
      if (kind === 2) expect(rows.get(second!.id)?.disposition?.status).toBe(decision.status);
    }
  });

  it('shows each writer its own acknowledged write while others write the same release', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { release, sbom, findings } = await seedReleaseWithFindings(api, teamId, 4);
    await Promise.all(
      findings.map(async (finding, writer) => {
        for (let round = 0; round < 4; round += 1) {
          const decision = DECISIONS[(writer + round) % DECISIONS.length]!;
          const written = await api.post('/api/dispositions', { vulnerabilityId: finding.id, ...decision });
          expect([200, 201]).toContain(written.status);
          // Alternate the two lists: both read the release's dispositions through the cache.
          const row =
            round % 2 === 0
              ? (await releaseRows(api, release.id)).get(finding.id)
              : (await api.get<{ data: Row[] }>(`/api/sboms/${sbom.id}/vulnerabilities?perPage=100`)).body.data.find(
                  (entry) => entry.id === finding.id,
                );
          expect(row?.disposition?.status).toBe(decision.status);
        }
      }),
    );
  });

  it('keeps one set per version in this process and reads again after a write moved it', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { product, release, findings } = await seedReleaseWithFindings(api, teamId, 2);
    const read = () => dispositionStore.listByRelease(teamId, product.id, release.id);
    const before = await read();
    expect(await read()).toBe(before);
    expect((await api.post('/api/dispositions', { vulnerabilityId: findings[0]!.id, ...DECISIONS[0] })).status).toBe(
      201,
    );
    const after = await read();
    expect(after).not.toBe(before);
    expect(after.map((disposition) => disposition.vulnerabilityId)).toEqual([findings[0]!.id]);
  });

  it('does not cache while a bulk writer has its bracket open, so its writes show as they land', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { product, release, findings } = await seedReleaseWithFindings(api, teamId, 2);
    const ref = { teamId, productId: product.id, releaseId: release.id };
    const created = await api.post('/api/dispositions', { vulnerabilityId: findings[0]!.id, ...DECISIONS[0] });
    const template = (await dispositionStore.resolve(teamId, created.body.data.id))!;
    const writerId = randomUUID();
    await transactWrite([dispositionBulk.start(ref, writerId, new Date(Date.now() + 60_000).toISOString())]);
    expect(await dispositionStore.listByRelease(teamId, product.id, release.id)).toHaveLength(1);
    // A bulk writer's transaction checks the bracket instead of moving the version.
    const bulk = new DispositionTransaction();
    bulk.underBulk(ref, writerId);
    bulk.create({
      ...template,
      id: randomUUID(),
      decisionKey: 'f'.repeat(32),
      vulnerabilityId: findings[1]!.id,
    } satisfies Disposition);
    await transactWrite(bulk.items());
    expect(await dispositionStore.listByRelease(teamId, product.id, release.id)).toHaveLength(2);
    await transactWrite([dispositionBulk.end(ref, writerId)]);
    expect(await dispositionStore.listByRelease(teamId, product.id, release.id)).toHaveLength(2);
  });

  it('refuses a transaction that writes a disposition without moving its release version', async () => {
    const { api, teamId } = await createTeamWithKey();
    const { findings } = await seedReleaseWithFindings(api, teamId, 1);
    const created = await api.post('/api/dispositions', { vulnerabilityId: findings[0]!.id, ...DECISIONS[0] });
    const stored = (await dispositionStore.resolve(teamId, created.body.data.id))!;
    const transaction = new DispositionTransaction();
    transaction.put({ ...stored, detail: 'forgot the version' });
    expect(() => transaction.items()).toThrow(/without its release's dispositions version move/);
  });

  it('builds disposition keys only in the disposition store, so every write goes through DispositionTransaction', () => {
    const root = join(import.meta.dirname, '../..');
    const allowed = new Set(['shared/service/dispositions/disposition-store.ts', 'shared/service/data/keys.ts']);
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (
          path.endsWith('.ts') &&
          !allowed.has(relative(root, path)) &&
          /keys\.disposition(Prefix)?\(|entity: 'Disposition'/.test(readFileSync(path, 'utf8'))
        )
          offenders.push(relative(root, path));
      }
    };
    for (const dir of ['shared', 'functions', 'bin', 'lib']) walk(join(root, dir));
    expect(offenders).toEqual([]);
  });
});
