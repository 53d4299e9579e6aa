/**
 * Synthetic scan data for the benches: an OSV corpus of 50,000 advisories in a realistic
 * ecosystem mix (an all.zip), and CycloneDX SBOMs of any size in which 10% of the components
 * are vulnerable with two advisories each (~2,000 findings per 10,000 components).
 */
import { zipSync, strToU8 } from 'fflate';

const MIX = [
  { ecosystem: 'npm', purl: 'npm', weight: 40 },
  { ecosystem: 'PyPI', purl: 'pypi', weight: 15 },
  { ecosystem: 'Maven', purl: 'maven', weight: 20 },
  { ecosystem: 'Go', purl: 'golang', weight: 10 },
  { ecosystem: 'crates.io', purl: 'cargo', weight: 5 },
  { ecosystem: 'RubyGems', purl: 'gem', weight: 5 },
  { ecosystem: 'NuGet', purl: 'nuget', weight: 5 },
] as const;

function pick(index: number) {
  let slot = index % 100;
  for (const entry of MIX) {
    if (slot < entry.weight) return entry;
    slot -= entry.weight;
  }
  return MIX[0];
}

function packageName(
  ecosystem: string,
  id: number,
  kind: 'vuln' | 'free',
): { name: string; purl: (version: string) => string } {
  const base = `bench-${kind}-${id}`;
  switch (ecosystem) {
    case 'Maven':
      return { name: `org.bench:${base}`, purl: (v) => `pkg:maven/org.bench/${base}@${v}` };
    case 'Go':
      return { name: `example.com/bench/${base}`, purl: (v) => `pkg:golang/example.com/bench/${base}@v${v}` };
    default: {
      const type = MIX.find((entry) => entry.ecosystem === ecosystem)?.purl ?? 'npm';
      return { name: base, purl: (v) => `pkg:${type}/${base}@${v}` };
    }
  }
}

export const ADVISORIES = 50_000;
/** Two advisories per package on average, so 25,000 vulnerable packages exist in the corpus. */
const VULNERABLE_PACKAGES = 25_000;

/** Record `index` of the scan bench's corpus: package `bench-vuln-<index mod 25,000>`. */
export function syntheticRecord(index: number): Record<string, unknown> {
  const packageId = index % VULNERABLE_PACKAGES;
  const { ecosystem } = pick(packageId);
  const { name } = packageName(ecosystem, packageId, 'vuln');
  const fixedMinor = 5 + (index % 3);
  return {
    schema_version: '1.6.0',
    id: `BENCH-${index}`,
    modified: '2026-01-01T00:00:00Z',
    published: '2025-06-01T00:00:00Z',
    aliases: [`CVE-2030-${String(100000 + index)}`],
    summary: `Synthetic issue ${index} in ${name}`,
    details: 'Synthetic advisory for the scan bench.',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' }],
    affected: [
      {
        package: { ecosystem, name },
        ranges: [
          {
            type: ecosystem === 'Go' ? 'SEMVER' : 'ECOSYSTEM',
            events: [{ introduced: '1.0.0' }, { fixed: `1.${fixedMinor}.0` }],
          },
        ],
      },
    ],
    database_specific: { cwe_ids: ['CWE-20'], severity: 'HIGH' },
  };
}

export function syntheticCorpusZip(): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (let index = 0; index < ADVISORIES; index += 1)
    files[`BENCH-${index}.json`] = strToU8(JSON.stringify(syntheticRecord(index)));
  return zipSync(files, { level: 1 });
}

export function syntheticSbom(components: number, seed: number): string {
  const list = [];
  for (let index = 0; index < components; index += 1) {
    const vulnerable = index % 10 === 0;
    const id = vulnerable ? (index * 7 + seed) % VULNERABLE_PACKAGES : seed * 1_000_000 + index;
    const { ecosystem } = pick(vulnerable ? id : index);
    const { name, purl } = packageName(ecosystem, id, vulnerable ? 'vuln' : 'free');
    const version = vulnerable ? '1.2.0' : `2.${index % 10}.${index % 7}`;
    list.push({ type: 'library', 'bom-ref': purl(version), name, version, purl: purl(version) });
  }
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    version: 1,
    metadata: { component: { type: 'application', name: 'bench-app', version: '1.0.0' } },
    components: list,
  });
}
