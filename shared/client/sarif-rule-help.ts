/**
 * The help of a SARIF rule (docs/sarif.md "Mapping"): what code scanning shows beside an alert, as
 * plain text and as Markdown: severity and its source, CVSS, KEV, EPSS, the fixed versions of each
 * package the advisory hit, aliases, weaknesses and links to OSV and NVD.
 */
import type { Finding } from './api-types';

/** OSV knows every id the corpus holds (GHSA, CVE, GO, PYSEC, RUSTSEC…). */
export function advisoryUrl(advisoryId: string): string {
  return `https://osv.dev/vulnerability/${encodeURIComponent(advisoryId)}`;
}

function fixedByPackage(packages: readonly Finding[]): { name: string; versions: string[] }[] {
  const byName = new Map<string, Set<string>>();
  for (const finding of packages) {
    const versions = byName.get(finding.component_name) ?? new Set<string>();
    for (const version of finding.fixed_versions) versions.add(version);
    byName.set(finding.component_name, versions);
  }
  return [...byName].map(([name, versions]) => ({ name, versions: [...versions] }));
}

function facts(advisoryId: string, lead: Finding, packages: readonly Finding[]): [string, string][] {
  const rows: [string, string][] = [
    [
      'Severity',
      `${lead.severity}${lead.severity_source ? ` (from ${lead.severity_source}${lead.severity_source_id && lead.severity_source_id !== advisoryId ? ` of ${lead.severity_source_id}` : ''})` : ''}`,
    ],
  ];
  if (lead.cvss_v4_score !== null) rows.push(['CVSS v4', `${lead.cvss_v4_score} ${lead.cvss_v4_vector ?? ''}`.trim()]);
  if (lead.cvss_v3_score !== null) rows.push(['CVSS v3', `${lead.cvss_v3_score} ${lead.cvss_v3_vector ?? ''}`.trim()]);
  if (lead.cvss_v2_score !== null) rows.push(['CVSS v2', `${lead.cvss_v2_score} ${lead.cvss_v2_vector ?? ''}`.trim()]);
  rows.push([
    'Known exploited (CISA KEV)',
    lead.kev
      ? `yes, added ${lead.kev.dateAdded}${lead.kev.dueDate ? `, due ${lead.kev.dueDate}` : ''}${lead.kev.knownRansomwareCampaignUse === 'Known' ? ', used in ransomware campaigns' : ''}`
      : 'no',
  ]);
  rows.push([
    'EPSS',
    lead.epss_score === null
      ? 'not scored'
      : `${(lead.epss_score * 100).toFixed(2)}% (percentile ${((lead.epss_percentile ?? 0) * 100).toFixed(0)})`,
  ]);
  for (const { name, versions } of fixedByPackage(packages))
    rows.push([`Fixed versions of ${name}`, versions.length > 0 ? versions.join(', ') : 'none known']);
  if (lead.aliases.length > 0) rows.push(['Aliases', lead.aliases.join(', ')]);
  if (lead.cwes.length > 0) rows.push(['Weaknesses', lead.cwes.join(', ')]);
  if (lead.informational) rows.push(['Kind', `informational notice (${lead.informational})`]);
  return rows;
}

function links(advisoryId: string, lead: Finding): [string, string][] {
  const result: [string, string][] = [[advisoryId, advisoryUrl(advisoryId)]];
  if (lead.cve_id.startsWith('CVE-') && lead.cve_id !== advisoryId)
    result.push([lead.cve_id, `https://nvd.nist.gov/vuln/detail/${encodeURIComponent(lead.cve_id)}`]);
  return result;
}

export function helpText(advisoryId: string, lead: Finding, packages: readonly Finding[]): string {
  const lines = [
    `${advisoryId}: ${lead.summary.trim()}`,
    '',
    ...facts(advisoryId, lead, packages).map(([name, value]) => `${name}: ${value}`),
    '',
    ...links(advisoryId, lead).map(([name, url]) => `${name}: ${url}`),
  ];
  return lines.join('\n');
}

export function helpMarkdown(advisoryId: string, lead: Finding, packages: readonly Finding[]): string {
  const cell = (text: string) => text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  return [
    `**${cell(advisoryId)}**: ${cell(lead.summary.trim())}`,
    '',
    '| | |',
    '|---|---|',
    ...facts(advisoryId, lead, packages).map(([name, value]) => `| ${cell(name)} | ${cell(value)} |`),
    '',
    links(advisoryId, lead)
      .map(([name, url]) => `[${cell(name)}](${url})`)
      .join(' · '),
  ].join('\n');
}
