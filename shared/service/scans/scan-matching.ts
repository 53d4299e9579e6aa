/**
 * The matching stage of a scan (shared/service/scans/scans.ts): which advisories of the corpus an SBOM's
 * components could match, read in a few batched calls, and the match itself. Apart from the scan's
 * bookkeeping so that it loads only when a scan runs (scans.ts imports it lazily).
 */
import { corpusStore, type MatchData } from '../corpus/corpus-store';
import { packageFilterStore } from '../corpus/package-filter';
import type { Advisory } from '../corpus/parse/advisory';
import { buildAdvisoryIndex, type AdvisoryIndex } from '../matching/advisory-index';
import { identify, packageKey, type PackageLookup } from '../matching/component-identity';
import { parseCpe } from '../matching/cpe';
import { ECOSYSTEMS } from '../matching/ecosystems';
import type { SbomComponent } from '../sbom/model';

export { scanComponents } from '../matching/advisory-index';

const DISTROS = new Set(['Debian', 'Ubuntu', 'Alpine', 'Wolfi']);
/** Accepts every key, so `identify` yields a purl's candidate without the corpus. */
const PERMISSIVE: PackageLookup = { hasPackage: () => true, keysWithShortName: () => [] };

/** The package keys a set of components could match, read from the corpus in a few batched calls. */
export async function indexForComponents(components: readonly SbomComponent[]): Promise<AdvisoryIndex> {
  const wanted = new Set<string>();
  const shortNames = new Set<string>();
  for (const component of components) {
    const purlCandidates = component.purl
      ? identify({ ...component, cpes: [] }, PERMISSIVE).candidates.filter(
          (candidate) => candidate.evidence.kind === 'purl',
        )
      : [];
    if (purlCandidates.length > 0) {
      purlCandidates.forEach((candidate) => wanted.add(candidate.key));
      continue;
    }
    for (const raw of component.cpes) {
      const cpe = parseCpe(raw);
      if (cpe) [cpe.product, cpe.product.replace(/_/g, '-')].forEach((name) => shortNames.add(name));
    }
    if (component.cpes.length === 0 && component.version !== undefined) {
      const names = [
        component.name,
        ...(component.group ? [`${component.group}:${component.name}`, `${component.group}/${component.name}`] : []),
      ];
      for (const ecosystem of ECOSYSTEMS)
        if (!DISTROS.has(ecosystem)) names.forEach((name) => wanted.add(packageKey(ecosystem, name)));
    }
  }
  if (shortNames.size > 0) {
    for (const packageKeys of (await corpusStore.shortNames(shortNames)).values())
      packageKeys.forEach((key) => wanted.add(key));
  }
  // Most components have no advisory: the corpus's package filter spares reading their absent items.
  const filter = await packageFilterStore.current();
  const packages = await corpusStore.packages(filter ? [...wanted].filter((key) => filter.mightContain(key)) : wanted);
  const advisories: Advisory[] = [];
  for (const entries of packages.values()) for (const entry of entries) advisories.push(asAdvisory(entry));
  return buildAdvisoryIndex(advisories);
}

function asAdvisory(entry: MatchData): Advisory {
  return { ...entry, details: '', references: [] };
}
