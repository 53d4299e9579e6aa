/** The OSV fixture corpus as an advisory index, and the components and advisories the matching tests build. */
import { fileURLToPath } from 'node:url';
import type { Advisory } from '../../shared/service/corpus/parse/advisory';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import { readOsvDirectory } from '../../shared/service/corpus/parse/osv-archive';
import { buildAdvisoryIndex, matchComponent, type AdvisoryIndex } from '../../shared/service/matching/advisory-index';
import type { SbomComponent } from '../../shared/service/sbom/model';

/** A path relative to this module. */
const dir = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
/** The advisories of an OSV directory, without the records it could not read. */
export const load = (path: string): Advisory[] =>
  [...readOsvDirectory(path)].flatMap((r) => ('advisory' in r ? [r.advisory] : []));
/** The OSV records under test/fixtures/corpus/osv. */
export const fixtureAdvisories = load(dir('../fixtures/corpus/osv'));
export const fixtureIndex = buildAdvisoryIndex(fixtureAdvisories);

let componentCounter = 0;
/** A component with a fresh ref. */
export function component(fields: Partial<SbomComponent> & { name: string }): SbomComponent {
  componentCounter++;
  return { ref: `c${componentCounter}`, cpes: [], licenses: [], ...fields };
}

/** An OSV advisory with one ECOSYSTEM range per affected package. */
export function osv(
  id: string,
  affected: { ecosystem: string; name: string; events: Record<string, string>[] }[],
  extra: Record<string, unknown> = {},
): Advisory {
  return parseOsvAdvisory({
    id,
    modified: '2024-01-01T00:00:00Z',
    affected: affected.map((a) => ({
      package: { ecosystem: a.ecosystem, name: a.name },
      ranges: [{ type: 'ECOSYSTEM', events: a.events }],
    })),
    ...extra,
  });
}

/** The advisory ids a component matches, sorted. */
export const ids = (index: AdvisoryIndex, c: SbomComponent) =>
  matchComponent(c, index)
    .findings.map((f) => f.advisoryId)
    .sort();
