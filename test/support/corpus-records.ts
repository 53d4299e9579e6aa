/**
 * Corpus records as the feeds publish them, for tests that import advisories and KEV listings: an OSV
 * record (schema 1.6) for one npm package and a CISA KEV catalog listing CVEs.
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
