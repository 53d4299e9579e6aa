/**
 * GET /api/vulnerabilities?advisory= (docs/portfolio.md "Where are we affected by an advisory"): every
 * finding of one advisory across the team's products and releases, found by any of its identifiers.
 *
 * Finding items carry two sparse index entries (shared/service/scans/finding-store.ts findingItem):
 * their advisory id on gsi2 and, when it differs, their CVE on gsi3, both under the team's partition.
 * The asked id is widened through the corpus first: the records whose aliases name it (the alias
 * index, keys.corpusAlias) and the aliases of the asked record itself (keys.corpusAdvisory), one
 * level further for what those name. Each identifier is then one query per index.
 */
import { keys } from '../data/keys';
import { batchGet, queryAll, type Item } from '../data/table-client';
import { paginate } from '../data/paging';
import { tableDefinition } from '../data/table-definition';
import { decisionIndex } from '../dispositions/decision-identity';
import { Dispositions } from '../dispositions/dispositions';
import { TeamSettingsService } from '../identity/team-settings';
import type { AdvisoryFindingListQuery } from '../schemas/portfolio';
import { shownTo, toFinding, type Finding } from '../scans/finding-store';
import { toVulnerabilityView } from '../scans/vulnerabilities';
import { portfolioContext } from './portfolio-context';

const SEVERITY_RANK = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1, NONE: 0 } as const;
/** Identifiers searched at most: a record with hundreds of aliases must not turn one request into hundreds of queries. */
const MAX_IDENTIFIERS = 50;

function identifiersOfItem(item: Item): string[] {
  if (typeof item.entriesJson === 'string') {
    // An alias item: advisory id → scores (with the record's CVE).
    const entries = JSON.parse(item.entriesJson) as Record<string, { cveId?: string }>;
    return Object.entries(entries).flatMap(([id, scores]) => [id, ...(scores.cveId ? [scores.cveId] : [])]);
  }
  const aliasIds = Array.isArray(item.aliasIds) ? (item.aliasIds as string[]) : [];
  return [...aliasIds, ...(typeof item.cveId === 'string' ? [item.cveId] : [])];
}

/** The asked id and the identifiers the corpus ties to it (two rounds: its records, then theirs). */
export async function advisoryIdentifiers(asked: string): Promise<string[]> {
  const found = new Set([asked]);
  let frontier = [asked];
  for (let round = 0; round < 2 && frontier.length > 0; round += 1) {
    const items = await batchGet(frontier.flatMap((id) => [keys.corpusAlias(id), keys.corpusAdvisory(id)]));
    const next: string[] = [];
    for (const id of items.flatMap(identifiersOfItem)) {
      if (found.has(id) || found.size >= MAX_IDENTIFIERS) continue;
      found.add(id);
      next.push(id);
    }
    frontier = next;
  }
  return [...found];
}

const [, GSI2, GSI3] = tableDefinition.globalIndexes;

async function findingsFor(teamId: string, identifier: string, productId: string | undefined): Promise<Item[]> {
  const skPrefix = productId === undefined ? undefined : `${productId}#`;
  const [byAdvisory, byCve] = await Promise.all([
    queryAll({
      pk: keys.findingByAdvisoryPartition(teamId, identifier).gsi2pk,
      indexName: GSI2.indexName,
      pkAttribute: GSI2.partitionKey,
      skAttribute: GSI2.sortKey,
      ...(skPrefix ? { skPrefix } : {}),
    }),
    queryAll({
      pk: keys.findingByCvePartition(teamId, identifier).gsi3pk,
      indexName: GSI3.indexName,
      pkAttribute: GSI3.partitionKey,
      skAttribute: GSI3.sortKey,
      ...(skPrefix ? { skPrefix } : {}),
    }),
  ]);
  return [...byAdvisory, ...byCve];
}

function wanted(query: AdvisoryFindingListQuery): (finding: Finding) => boolean {
  const severities = query.severity ? new Set(query.severity.map((severity) => severity.toUpperCase())) : undefined;
  return (finding) => {
    if (query.state === 'open' && finding.noLongerDetected) return false;
    if (query.state === 'resolved' && !finding.noLongerDetected) return false;
    if (query.kev !== undefined && (finding.kev !== null) !== query.kev) return false;
    return !severities || severities.has(finding.severity);
  };
}

/** Every finding of the team, in any product, of the asked id or an identifier the corpus ties to it. */
export async function teamFindingsOf(teamId: string, asked: string): Promise<Finding[]> {
  const identifiers = await advisoryIdentifiers(asked);
  const items = (await Promise.all(identifiers.map((identifier) => findingsFor(teamId, identifier, undefined)))).flat();
  const byId = new Map<string, Finding>();
  for (const item of items) {
    const finding = toFinding(item);
    if (finding.teamId === teamId) byId.set(finding.id, finding);
  }
  return [...byId.values()];
}

export const AdvisoryFindings = {
  async list(teamId: string, query: AdvisoryFindingListQuery) {
    const identifiers = await advisoryIdentifiers(query.advisory);
    const items = (
      await Promise.all(identifiers.map((identifier) => findingsFor(teamId, identifier, query.productId)))
    ).flat();
    const settings = await TeamSettingsService.get(teamId);
    const visible = shownTo(settings);
    const matches = wanted(query);
    const byId = new Map<string, Finding>();
    for (const item of items) {
      const finding = toFinding(item);
      if (finding.teamId === teamId && visible(finding) && matches(finding)) byId.set(finding.id, finding);
    }
    const findings = [...byId.values()];
    const releases = new Map(findings.map((finding) => [finding.releaseId, finding]));
    const [context, decisions] = await Promise.all([
      portfolioContext(teamId, releases.values()),
      Promise.all(
        [...releases.values()].map(async ({ productId, releaseId }) => {
          const dispositions = await Dispositions.listByRelease(teamId, productId, releaseId);
          return [releaseId, decisionIndex(dispositions)] as const;
        }),
      ),
    ]);
    const decisionOf = new Map(decisions);
    const rows = findings.flatMap((finding) => {
      const release = context.release(finding.releaseId);
      if (!release || !context.product(finding.productId)) return [];
      return [{ finding, release }];
    });
    rows.sort(
      (a, b) =>
        Number(b.finding.kev !== null) - Number(a.finding.kev !== null) ||
        SEVERITY_RANK[b.finding.severity] - SEVERITY_RANK[a.finding.severity] ||
        a.finding.productId.localeCompare(b.finding.productId) ||
        b.release.createdAt.localeCompare(a.release.createdAt) ||
        a.finding.id.localeCompare(b.finding.id),
    );
    const page = paginate(rows, query.page, query.perPage);
    return {
      data: page.data.map(({ finding, release }) => ({
        ...toVulnerabilityView(finding, decisionOf.get(finding.releaseId)?.(finding)),
        product_id: finding.productId,
        release_id: finding.releaseId,
        release_version: release.version,
        sbom_id: finding.sbomId,
      })),
      meta: page.meta,
      advisory_ids: identifiers,
    };
  },
};
