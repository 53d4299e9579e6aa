/**
 * Corpus records as the feeds publish them, for tests that import advisories and KEV listings: OSV
 * records (schema 1.6) for one npm package or Go module and a CISA KEV catalog listing CVEs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** An OSV record of `id` (aliased to `cve`) affecting npm `pkg` in the SEMVER range `events`. */
export function osvRecord(
  id: string,
  cve: string,
  pkg: string,
  options: { events?: Record<string, string>[]; summary?: string; extra?: Record<string, unknown> } = {},
) {
  return {
    schema_version: '1.6.0',
    id,
    modified: new Date().toISOString(),
    aliases: [cve],
    summary: options.summary ?? `Issue in ${pkg}`,
    details: 'Details',
    affected: [
      {
        package: { ecosystem: 'npm', name: pkg },
        ranges: [{ type: 'SEMVER', events: options.events ?? [{ introduced: '0' }, { fixed: '2.0.0' }] }],
      },
    ],
    database_specific: { severity: 'HIGH' },
    ...options.extra,
  };
}

/** A Go vulndb-style OSV record: Go module `module` affected below 1.5.0, with no severity of its own. */
export function goVulndbRecord(id: string, module: string, aliases: string[], modified = '2026-01-01T00:00:00Z') {
  return {
    schema_version: '1.6.0',
    id,
    modified,
    aliases,
    summary: `Issue in ${module}`,
    details: 'Go vulndb style: no severity.',
    affected: [
      {
        package: { ecosystem: 'Go', name: module },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.5.0' }] }],
      },
    ],
  };
}

/**
 * A reviewed (GHSA-style) record scored with the CVSS v3 `vector`, for the Go module `elsewhere`: a path no
 * SBOM of the test names, so it only lends its score to the records it is an alias of.
 */
export function scoredGoRecord(
  id: string,
  aliases: string[],
  vector: string,
  elsewhere: string,
  extra: Record<string, unknown> = {},
) {
  return {
    schema_version: '1.6.0',
    id,
    modified: '2026-01-02T00:00:00Z',
    aliases,
    summary: 'Reviewed advisory',
    details: 'GHSA style, for another package path.',
    severity: [{ type: 'CVSS_V3', score: vector }],
    affected: [
      {
        package: { ecosystem: 'Go', name: elsewhere },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.5.0' }] }],
      },
    ],
    ...extra,
  };
}

/** A KEV catalog (the CISA feed's shape) listing `cves`, added on `dateAdded`. */
export function kevCatalog(cves: readonly string[], dateAdded: string) {
  return {
    title: 'CISA KEV',
    catalogVersion: dateAdded.replaceAll('-', '.'),
    dateReleased: `${dateAdded}T00:00:00Z`,
    count: cves.length,
    vulnerabilities: cves.map((cveID) => ({
      cveID,
      vendorProject: 'x',
      product: 'x',
      vulnerabilityName: 'x',
      dateAdded,
      shortDescription: 'x',
      requiredAction: 'x',
      dueDate: `${dateAdded.slice(0, 8)}22`,
      knownRansomwareCampaignUse: 'Unknown',
      notes: '',
      cwes: [],
    })),
  };
}

/** Writes each record as a JSON file in a new temporary directory; returns the file paths by name. */
export function writeRecords(files: Record<string, unknown>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-records-'));
  const paths: Record<string, string> = {};
  for (const [name, content] of Object.entries(files)) {
    paths[name] = join(dir, name);
    writeFileSync(paths[name], JSON.stringify(content));
  }
  return paths;
}
