/**
 * GET /api/components (docs/portfolio.md "Where do we ship a package"): every release and SBOM of the
 * team that contains a package, from the package index (shared/service/watch/watch-index.ts), with
 * the versions found. Entries whose SBOM, release or product no longer exists are dropped.
 */
import { keys } from '../data/keys';
import { batchGet } from '../data/table-client';
import { paginate } from '../data/paging';
import { ValidationError } from '../errors';
import { packageKey } from '../matching/component-identity';
import { ECOSYSTEMS, type Ecosystem } from '../matching/ecosystems';
import { parsePurl } from '../sbom/purl';
import type { ComponentListQuery } from '../schemas/portfolio';
import { portfolioContext } from './portfolio-context';
import { isNameKey, teamEntries, watchKeysForPackage, watchKeysOf, type WatchEntry } from './watch-index';

interface AskedPackage {
  /** The package's key and its name key (components without a purl). */
  indexKeys: string[];
  /** From the purl, when it has one: only SBOMs holding this version. */
  version: string | undefined;
}

const ECOSYSTEM_BY_LOWER_NAME = new Map<string, Ecosystem>(ECOSYSTEMS.map((name) => [name.toLowerCase(), name]));

function askedPackage(query: ComponentListQuery): AskedPackage {
  const byName = query.ecosystem !== undefined || query.name !== undefined;
  if ((query.purl === undefined) === !byName || (byName && (query.ecosystem === undefined || query.name === undefined)))
    throw new ValidationError('Give either `purl`, or both `ecosystem` and `name`', [
      { path: query.purl === undefined ? 'purl' : 'ecosystem', message: 'exactly one of purl or ecosystem+name' },
    ]);
  if (query.purl !== undefined) {
    const purl = parsePurl(query.purl);
    const [packageKeyOfPurl] = purl
      ? watchKeysOf({ ref: '', name: purl.name, purl: query.purl, cpes: [], licenses: [] })
      : [];
    if (!purl || packageKeyOfPurl === undefined || isNameKey(packageKeyOfPurl))
      throw new ValidationError('`purl` is not a package URL of a supported ecosystem', [
        { path: 'purl', message: `a purl such as pkg:npm/lodash@4.17.21 (ecosystems: ${ECOSYSTEMS.join(', ')})` },
      ]);
    return { indexKeys: watchKeysForPackage(packageKeyOfPurl), version: purl.version ?? undefined };
  }
  const ecosystem = ECOSYSTEM_BY_LOWER_NAME.get(query.ecosystem!.toLowerCase()); // both set: checked above
  if (!ecosystem)
    throw new ValidationError('Unknown `ecosystem`', [
      { path: 'ecosystem', message: `must be one of ${ECOSYSTEMS.join(', ')}` },
    ]);
  return { indexKeys: watchKeysForPackage(packageKey(ecosystem, query.name!)), version: undefined };
}

const compare = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

export const Components = {
  async list(teamId: string, query: ComponentListQuery) {
    const asked = askedPackage(query);
    const entries: WatchEntry[] = (
      await Promise.all(asked.indexKeys.map((indexKey) => teamEntries(teamId, indexKey)))
    ).flat();
    const wanted = entries.filter((entry) => asked.version === undefined || entry.versions.includes(asked.version));
    const [sbomItems, context] = await Promise.all([
      batchGet(wanted.map((entry) => keys.sbom(teamId, entry.productId, entry.releaseId, entry.sbomId))),
      portfolioContext(teamId, wanted),
    ]);
    const liveSboms = new Set(sbomItems.map((item) => String(item.id)));
    const rows = wanted.flatMap((entry) => {
      const product = context.product(entry.productId);
      const release = context.release(entry.releaseId);
      if (!product || !release || !liveSboms.has(entry.sbomId)) return [];
      return [
        {
          product: { id: product.id, name: product.name },
          release: { id: release.id, version: release.version, status: release.status },
          sbom_id: entry.sbomId,
          versions: entry.versions,
          purls: entry.purls,
          component_names: entry.names,
          matched_by: isNameKey(entry.indexKey) ? ('name' as const) : ('package' as const),
        },
      ];
    });
    rows.sort(
      (a, b) =>
        compare(a.product.name, b.product.name) ||
        compare(a.product.id, b.product.id) ||
        compare(b.release.version, a.release.version) ||
        compare(a.sbom_id, b.sbom_id) ||
        compare(a.matched_by, b.matched_by),
    );
    return paginate(rows, query.page, query.perPage);
  },
};
