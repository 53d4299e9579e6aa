/**
 * GET /api/dashboard (docs/portfolio.md "The dashboard"): the team's open findings now, and a daily
 * snapshot of the counts for the trend.
 *
 * Computed from every watched release (status active or deprecated) of the team: its SBOMs' findings
 * digests (shared/service/scans/findings-digest.ts, kept in memory per process by stamp) and its
 * dispositions, one row per package and advisory as the release list shows it. The cost grows with
 * the team's findings (docs/portfolio.md "Cost").
 *
 * The trend is not recomputed history: each UTC day's counts are stored once, by the first dashboard
 * read of that day or by `Dashboard.snapshot` (a watch run that changed the team's findings); days with no
 * snapshot are absent.
 */
import { inParallel } from '../concurrency';
import { keys } from '../data/keys';
import {
  batchGet,
  getItem,
  queryAll,
  transactWrite,
  TransactionFailedError,
  tx,
  type Item,
} from '../data/table-client';
import { decisionIndex, decisionKey, effectiveStatus } from '../dispositions/decision-identity';
import { DispositionBatches } from '../dispositions/disposition-batches';
import { dispositionStore, type Disposition } from '../dispositions/disposition-store';
import { evaluateFindingSla } from '../compliance/sla';
import { TeamSettingsService } from '../identity/team-settings';
import { productStore } from '../products/product-store';
import { isWatched, releaseStore, type Release } from '../releases/release-store';
import { sbomStore, type Sbom } from '../sboms/sbom-store';
import { shownTo, type Finding, type Severity } from '../scans/finding-store';
import { findingsDigest } from '../scans/findings-digest';

const TOP_PRODUCTS = 10;
const TREND_DAYS = 30;
const DAY_MS = 86_400_000;

export interface SeverityCounts {
  critical: number;
  high: number;
  medium: number;
  low: number;
  none: number;
}

export interface DayCounts extends SeverityCounts {
  day: string;
  open: number;
  kev: number;
  undecided: number;
}

const emptyCounts = (): SeverityCounts => ({ critical: 0, high: 0, medium: 0, low: 0, none: 0 });
const severityField = (severity: Severity) => severity.toLowerCase() as keyof SeverityCounts;

interface ProductCounts {
  productId: string;
  name: string;
  open: number;
  critical: number;
  kev: number;
}

/** One open row of a release: its findings of one package and advisory, and their decision. */
interface OpenRow {
  finding: Finding;
  decision: Disposition | undefined;
}

/** A watched release with scanned SBOMs (oldest first), and the product whose counts its rows add to. */
interface CountedRelease {
  counts: ProductCounts;
  releaseId: string;
  sboms: Sbom[];
}

/**
 * The open rows of one release: findings still detected, one per package and advisory, with their decision.
 * `release` is the release item read strongly consistent: the decisions are those committed before that read.
 */
async function openRowsOfRelease(
  teamId: string,
  { counts, releaseId, sboms }: CountedRelease,
  release: Item | undefined,
  visible: (finding: Finding) => boolean,
): Promise<OpenRow[]> {
  const decisionOf = decisionIndex(
    await dispositionStore.listByReleaseAt({ teamId, productId: counts.productId, releaseId }, release),
  );
  const rows = new Map<string, OpenRow>();
  for (const sbom of sboms) {
    for (const finding of await findingsDigest.read(sbom)) {
      if (finding.noLongerDetected || !visible(finding)) continue;
      const key = decisionKey(finding);
      const decision = decisionOf(finding);
      const held = rows.get(key);
      if (!held || (decision && (!held.decision || decision.updatedAt > held.decision.updatedAt)))
        rows.set(key, { finding, decision: decision ?? held?.decision });
    }
  }
  return [...rows.values()];
}

/** Releases read this many at a time: one after the other, each waited for the event loop in turn. */
const READ_CONCURRENCY = 16;

/**
 * The watched releases of live products that have a scanned SBOM, from the team's release and SBOM indexes (one
 * query each, eventually consistent): a release without one (a new one, say) has no rows, and its decisions need
 * not be read.
 */
function countedReleases(releases: Release[], sboms: Sbom[], countsOf: Map<string, ProductCounts>): CountedRelease[] {
  const scannedOf = new Map<string, Sbom[]>();
  for (const sbom of sboms) {
    if (sbom.scan.scannedAt === null) continue;
    const held = scannedOf.get(sbom.releaseId);
    if (held) held.push(sbom);
    else scannedOf.set(sbom.releaseId, [sbom]);
  }
  return releases.flatMap((release) => {
    const counts = countsOf.get(release.productId);
    const scanned = scannedOf.get(release.id);
    // Releases of products being deleted have no counts and are left out.
    if (!counts || !scanned || !isWatched(release)) return [];
    return [{ counts, releaseId: release.id, sboms: scanned.sort((a, b) => a.createdAt.localeCompare(b.createdAt)) }];
  });
}

async function currentCounts(teamId: string, now: Date) {
  const [settings, products, releases, sboms] = await Promise.all([
    TeamSettingsService.get(teamId),
    productStore.listNames(teamId),
    releaseStore.listAllOfTeam(teamId),
    sbomStore.listAllOfTeam(teamId),
    // Batches of decisions still applying are finished first, as before any read of a release's decisions.
    DispositionBatches.settleTeam(teamId),
  ]);
  const visible = shownTo(settings);
  const nowIso = now.toISOString();
  const open = emptyCounts();
  let openTotal = 0;
  let kev = 0;
  let undecided = 0;
  const sla = { breached: 0, atRisk: 0 };
  const perProduct: ProductCounts[] = products.map((product) => ({
    productId: product.id,
    name: product.name,
    open: 0,
    critical: 0,
    kev: 0,
  }));
  const countsOf = new Map(perProduct.map((counts) => [counts.productId, counts]));
  const counted = countedReleases(releases, sboms, countsOf);
  // Their items in batched reads, strongly consistent: the version under which each release's decisions are cached.
  const releaseItems = new Map(
    (await batchGet(counted.map(({ counts, releaseId }) => keys.release(teamId, counts.productId, releaseId)))).map(
      (item) => [String(item.id), item],
    ),
  );
  // Each release's rows are counted as they arrive: the sums do not depend on the order.
  await inParallel(counted, READ_CONCURRENCY, async (release) => {
    const { counts } = release;
    for (const { finding, decision } of await openRowsOfRelease(
      teamId,
      release,
      releaseItems.get(release.releaseId),
      visible,
    )) {
      const isKev = finding.kev !== null;
      openTotal += 1;
      open[severityField(finding.severity)] += 1;
      counts.open += 1;
      if (finding.severity === 'CRITICAL') counts.critical += 1;
      if (isKev) {
        kev += 1;
        counts.kev += 1;
      }
      if (effectiveStatus(decision, nowIso) === undefined) undecided += 1;
      const state = evaluateFindingSla(
        {
          severity: severityField(finding.severity),
          isKev,
          kevDueDate: finding.kev?.dueDate ?? null,
          firstDetectedAt: finding.firstDetectedAt,
          disposition: decision ?? null,
        },
        settings.slaPolicy,
        now,
      ).state;
      if (state === 'breached') sla.breached += 1;
      else if (state === 'at_risk') sla.atRisk += 1;
    }
  });
  const topProducts = perProduct
    .filter((counts) => counts.critical + counts.kev > 0)
    .sort((a, b) => b.critical + b.kev - (a.critical + a.kev) || b.kev - a.kev || a.name.localeCompare(b.name))
    .slice(0, TOP_PRODUCTS);
  return { open, openTotal, kev, undecided, sla, topProducts };
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

function toDayCounts(item: Item): DayCounts {
  return item.counts as DayCounts;
}

/** Stores the day's counts unless that day already has them (the first snapshot of a day stays). */
async function storeSnapshot(teamId: string, counts: DayCounts): Promise<void> {
  try {
    await transactWrite([
      tx.create({ ...keys.dashboardSnapshot(teamId, counts.day), entity: 'DashboardSnapshot', teamId, counts }),
    ]);
  } catch (error) {
    if (!(error instanceof TransactionFailedError)) throw error;
  }
}

function snapshotOf(day: string, current: Awaited<ReturnType<typeof currentCounts>>): DayCounts {
  return { day, open: current.openTotal, ...current.open, kev: current.kev, undecided: current.undecided };
}

export const Dashboard = {
  async get(teamId: string, now = new Date()) {
    const today = dayOf(now);
    const [current, stored] = await Promise.all([
      currentCounts(teamId, now),
      queryAll({
        ...keys.dashboardSnapshotRange(teamId, dayOf(new Date(now.getTime() - (TREND_DAYS - 1) * DAY_MS)), today),
      }),
    ]);
    const trend = stored.map(toDayCounts);
    if (!trend.some((day) => day.day === today)) {
      const snapshot = snapshotOf(today, current);
      await storeSnapshot(teamId, snapshot);
      trend.push(snapshot);
    }
    return {
      generated_at: now.toISOString(),
      open: { total: current.openTotal, ...current.open },
      open_kev: current.kev,
      undecided: current.undecided,
      sla: { breached: current.sla.breached, at_risk: current.sla.atRisk },
      top_products: current.topProducts.map(({ productId, name, open, critical, kev }) => ({
        product_id: productId,
        name,
        open,
        critical,
        kev,
      })),
      trend,
    };
  },

  /** Stores today's counts for the team if it has none yet (a watch run calls it for each team whose findings it changed). */
  async snapshot(teamId: string, now = new Date()): Promise<void> {
    const today = dayOf(now);
    if (!(await getItem(keys.dashboardSnapshot(teamId, today))))
      await storeSnapshot(teamId, snapshotOf(today, await currentCounts(teamId, now)));
  },
};
