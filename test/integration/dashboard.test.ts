/**
 * GET /api/dashboard (docs/portfolio.md "The dashboard"): open findings by severity, KEV, undecided,
 * SLA breaches and the products with most critical or KEV findings, from the watched releases only;
 * the trend from stored daily snapshots, the first of a day kept.
 *
 * @whole-table-scan: its index migrations scan the whole table, so it runs first (test/support/test-sequencer.ts).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomInt, randomUUID } from 'node:crypto';
import { importAdvisories, importKev } from '../../shared/service/corpus/import';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { keys } from '../../shared/service/data/keys';
import { batchWrite, getItem, updateItem } from '../../shared/service/data/table-client';
import { migrateReleaseIndex } from '../../shared/service/releases/release-index-migration';
import { migrateSbomIndex } from '../../shared/service/sboms/sbom-index-migration';
import { runAsTeam } from '../../shared/service/request-context';
import { dashboardResponse } from '../../shared/service/schemas/portfolio';
import { Dashboard } from '../../shared/service/watch/dashboard';
import { applyCorpusChanges } from '../../shared/service/watch/watch';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { cycloneDxSbom } from '../support/seed';
import { eventually } from '../support/webhook-receiver';

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;

const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
const base = randomInt(1_000_000, 8_000_000);
const LIBS = [
  { name: `dash-${suffix}-critical`, cve: `CVE-2094-${base}`, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
  { name: `dash-${suffix}-high`, cve: `CVE-2094-${base + 1}`, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' },
  { name: `dash-${suffix}-low`, cve: `CVE-2094-${base + 2}`, vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N' },
] as const;
const [critical, high, low] = LIBS;

type Lib = { readonly name: string; readonly cve: string; readonly vector: string };

/** An advisory per library, fixed from 2.0.0. */
async function importAdvisoriesOf(libs: readonly Lib[]): Promise<void> {
  await importAdvisories(
    libs.map((lib) => ({
      source: 'dashboard-test',
      advisory: parseOsvAdvisory({
        id: `GHSA-dash-${suffix}-${lib.cve.slice(-4)}`,
        modified: new Date().toISOString(),
        aliases: [lib.cve],
        summary: lib.name,
        details: 'x',
        severity: [{ type: 'CVSS_V3', score: lib.vector }],
        affected: [
          {
            package: { ecosystem: 'npm', name: lib.name },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
          },
        ],
      }),
    })),
  );
}

async function importCorpus(): Promise<void> {
  await importAdvisoriesOf(LIBS);
  await importKev({
    catalogVersion: `dashboard-${suffix}`,
    dateReleased: new Date().toISOString(),
    skipped: 0,
    entries: new Map([
      [
        critical.cve,
        {
          cveID: critical.cve,
          vendorProject: 'x',
          product: 'x',
          vulnerabilityName: 'x',
          dateAdded: '2026-01-01',
          shortDescription: '',
          requiredAction: '',
          dueDate: null,
          knownRansomwareCampaignUse: 'Unknown',
          notes: '',
          cwes: [],
        },
      ],
    ]),
  });
}

async function releaseWith(team: Team, product: string, libs: readonly { name: string }[], status = 'active') {
  const created = (await team.api.post('/api/products', { name: product, slug: uniqueSlug('dash') })).body.data;
  const release = (await team.api.post(`/api/products/${created.id}/releases`, { version: '1.0.0', status })).body.data;
  expect(release.status).toBe(status);
  const content = cycloneDxSbom(
    libs.map((lib) => ({ name: lib.name, version: '1.0.0', purl: `pkg:npm/${lib.name}@1.0.0` })),
  );
  const upload = await team.api.post('/api/sboms/upload', { releaseId: release.id, content });
  expect((await team.api.post('/api/cve-scan', { sbomId: upload.body.data.id })).status).toBe(202);
  const findings = (await team.api.get(`/api/sboms/${upload.body.data.id}/vulnerabilities`)).body.data as {
    id: string;
    cve_id: string;
  }[];
  return { productId: created.id as string, findings };
}

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

let team: Team;
let shipping: Awaited<ReturnType<typeof releaseWith>>;

beforeAll(async () => {
  await importCorpus();
  team = await createTeamWithKey();
  shipping = await releaseWith(team, 'Shipping', [critical, high]);
  await releaseWith(team, 'Quiet', [low]);
  await releaseWith(team, 'Retired', [critical], 'end-of-life');
  const highFinding = shipping.findings.find((finding) => finding.cve_id === high.cve)!;
  const decided = await team.api.post('/api/dispositions', {
    vulnerabilityId: highFinding.id,
    status: 'not_affected',
    justification: 'vulnerable_code_not_in_execute_path',
  });
  expect(decided.status).toBe(201);
  // Snapshots stored on earlier days: yesterday's is in the trend, one older than 30 days is not.
  const snapshot = (offset: number, open: number) => ({
    ...keys.dashboardSnapshot(team.teamId, day(offset)),
    entity: 'DashboardSnapshot',
    teamId: team.teamId,
    counts: { day: day(offset), open, critical: 0, high: 0, medium: 0, low: 0, none: 0, kev: 0, undecided: 0 },
  });
  await batchWrite([snapshot(-1, 7), snapshot(-40, 9)]);
}, 120_000);

describe('GET /api/dashboard', () => {
  it('counts the open findings of watched releases', async () => {
    const response = await team.api.get('/api/dashboard');
    expect(response.status).toBe(200);
    expect(dashboardResponse.safeParse(response.body).error?.issues ?? []).toEqual([]);
    const { data } = response.body;
    expect(data.open).toEqual({ total: 3, critical: 1, high: 1, medium: 0, low: 1, none: 0 });
    expect(data.open_kev).toBe(1);
    expect(data.undecided).toBe(2);
    expect(data.sla).toEqual({ breached: 0, at_risk: 0 });
    expect(data.top_products).toEqual([
      { product_id: shipping.productId, name: 'Shipping', open: 2, critical: 1, kev: 1 },
    ]);
    expect(data.trend.map((entry: { day: string; open: number }) => [entry.day, entry.open])).toEqual([
      [day(-1), 7],
      [day(0), 3],
    ]);
  });

  it("keeps the day's first snapshot while the counts move", async () => {
    const criticalFinding = shipping.findings.find((finding) => finding.cve_id === critical.cve)!;
    await team.api.post('/api/dispositions', { vulnerabilityId: criticalFinding.id, status: 'under_investigation' });
    const { data } = (await team.api.get('/api/dashboard')).body;
    expect(data.undecided).toBe(1);
    expect(data.trend.at(-1)).toMatchObject({ day: day(0), open: 3, undecided: 2 });
  });

  it('counts SLA breaches of open findings without a final decision', async () => {
    // Sixty days on: the critical (KEV, 7 days) finding is overdue, the low one (180 days) is not, the decided one is closed.
    const later = await runAsTeam(team.teamId, () =>
      Dashboard.get(team.teamId, new Date(Date.now() + 60 * 86_400_000)),
    );
    expect(later.sla).toEqual({ breached: 1, at_risk: 0 });
  });

  it('shows another team nothing of this one', async () => {
    const other = await createTeamWithKey();
    const { data } = (await other.api.get('/api/dashboard')).body;
    expect(data.open.total).toBe(0);
    expect(data.top_products).toEqual([]);
    expect(data.trend).toEqual([expect.objectContaining({ day: day(0), open: 0 })]);
  });
});

describe("the team's index of releases", () => {
  it('follows a release out of the counts when it reaches end of life, and back when it is active again', async () => {
    const own = await createTeamWithKey();
    const { productId } = await releaseWith(own, 'Moving', [critical]);
    const release = (await own.api.get(`/api/products/${productId}/releases`)).body.data[0] as { id: string };
    expect((await own.api.get('/api/dashboard')).body.data.open.total).toBe(1);
    expect((await own.api.put(`/api/releases/${release.id}`, { status: 'end-of-life' })).status).toBe(200);
    expect((await own.api.get('/api/dashboard')).body.data.open.total).toBe(0);
    expect((await own.api.put(`/api/releases/${release.id}`, { status: 'active' })).status).toBe(200);
    expect((await own.api.get('/api/dashboard')).body.data.open.total).toBe(1);
  });

  it('leaves out the releases of a deleted product', async () => {
    const own = await createTeamWithKey();
    const kept = await releaseWith(own, 'Kept', [low]);
    const dropped = await releaseWith(own, 'Dropped', [critical]);
    expect((await own.api.get('/api/dashboard')).body.data.open.total).toBe(2);
    expect((await own.api.delete(`/api/products/${dropped.productId}`)).status).toBe(204);
    const { data } = (await own.api.get('/api/dashboard')).body;
    expect(data.open).toMatchObject({ total: 1, low: 1, critical: 0 });
    expect(data.top_products).toEqual([]);
    expect(kept.findings).toHaveLength(1);
  });

  it('takes in releases stored before it once the migration ran', async () => {
    const own = await createTeamWithKey();
    const { productId } = await releaseWith(own, 'Older', [critical, low]);
    const release = (await own.api.get(`/api/products/${productId}/releases`)).body.data[0] as { id: string };
    // As a release item was stored before the index: without its index keys.
    await updateItem(keys.release(own.teamId, productId, release.id), 'REMOVE gsi1pk, gsi1sk', undefined, undefined);
    expect((await own.api.get('/api/dashboard')).body.data.open.total).toBe(0);
    expect((await migrateReleaseIndex()).releases).toBeGreaterThanOrEqual(1);
    const { data } = (await own.api.get('/api/dashboard')).body;
    expect(data.open).toMatchObject({ total: 2, critical: 1, low: 1 });
    expect(data.top_products).toEqual([{ product_id: productId, name: 'Older', open: 2, critical: 1, kev: 1 }]);
  });

  it('takes in SBOMs stored before the SBOM index once the migration ran', async () => {
    const own = await createTeamWithKey();
    const { productId } = await releaseWith(own, 'Older SBOM', [critical, low]);
    const release = (await own.api.get(`/api/products/${productId}/releases`)).body.data[0] as { id: string };
    const sbom = (await own.api.get(`/api/releases/${release.id}/sboms`)).body.data[0] as { id: string };
    // As an SBOM item was stored before the index: without its index keys.
    await updateItem(
      keys.sbom(own.teamId, productId, release.id, sbom.id),
      'REMOVE gsi2pk, gsi2sk',
      undefined,
      undefined,
    );
    expect((await own.api.get('/api/dashboard')).body.data.open.total).toBe(0);
    expect((await migrateSbomIndex()).sboms).toBeGreaterThanOrEqual(1);
    const { data } = (await own.api.get('/api/dashboard')).body;
    expect(data.open).toMatchObject({ total: 2, critical: 1, low: 1 });
    expect(data.top_products).toEqual([{ product_id: productId, name: 'Older SBOM', open: 2, critical: 1, kev: 1 }]);
  });
});

describe('the trend without dashboard reads', () => {
  it("stores today's counts of a team whose findings a corpus change changed, once the watch applied it", async () => {
    const own = await createTeamWithKey();
    const late: Lib = {
      name: `dash-${suffix}-late`,
      cve: `CVE-2094-${base + 3}`,
      vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
    };
    const { findings } = await releaseWith(own, 'Late advisory', [late]);
    expect(findings).toEqual([]);
    const snapshotKey = keys.dashboardSnapshot(own.teamId, day(0));
    expect(await getItem(snapshotKey)).toBeUndefined();

    await importAdvisoriesOf([late]);
    await applyCorpusChanges();
    // The server's own watch poll may have taken the change first: its snapshot follows its re-evaluation.
    const stored = await eventually(() => getItem(snapshotKey), 20_000);
    expect(stored.counts).toEqual({
      day: day(0),
      open: 1,
      critical: 0,
      high: 0,
      medium: 0,
      low: 1,
      none: 0,
      kev: 0,
      undecided: 1,
    });
  });
});
