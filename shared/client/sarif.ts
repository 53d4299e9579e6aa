/**
 * Findings as a SARIF 2.1.0 log for GitHub code scanning (docs/sarif.md): one rule per
 * advisory, one result per package and advisory located at the SBOM file and the package, with
 * fingerprints that survive new builds and suppressions for the team's not_affected / fixed decisions.
 * Pure: the caller fetches the findings (either vulnerability list) and writes the file.
 */
import { createHash } from 'node:crypto';
import type { Log, LogicalLocation, ReportingDescriptor, Result, Run, Suppression } from 'sarif';
import { packageIdentity } from '../service/dispositions/decision-identity';
import type { Finding } from './api-types';
import { advisoryUrl, helpMarkdown, helpText } from './sarif-rule-help';

export type { Finding };

export interface SarifInput {
  findings: readonly Finding[];
  /** The SBOM file as the repository names it (relative to its root, as code scanning expects). */
  sbomPath: string;
  /** The Vexdesk service the findings come from (the tool's information URI). */
  serviceUrl: string;
  toolVersion: string;
}

/**
 * GitHub code scanning's limits on an uploaded file ("SARIF results exceed limit" in GitHub's docs):
 * a file over a hard limit is rejected whole, so the log never exceeds one.
 */
export const GITHUB_CODE_SCANNING_LIMITS = {
  /** Hard limit; only the first 5,000 by severity are shown (results are ordered most urgent first). */
  resultsPerRun: 25_000,
  rulesPerRun: 25_000,
  /** Hard limit 20 tags per rule, 10 shown: rules carry at most 10. */
  tagsShownPerRule: 10,
  /** Hard limit 1,000 locations per result (100 shown); a result names its package once per distinct purl. */
  locationsPerResult: 100,
} as const;

type Level = 'error' | 'warning' | 'note';
type Severity = Finding['severity'];

const SEVERITY_RANK: Record<Severity, number> = { CRITICAL: 4, HIGH: 3, MEDIUM: 2, LOW: 1, NONE: 0 };
/** GitHub's bands for `security-severity`: critical ≥ 9.0, high ≥ 7.0, medium ≥ 4.0, low ≥ 0.1. */
const BAND: Record<Severity, { min: number; max: number; typical: number }> = {
  CRITICAL: { min: 9, max: 10, typical: 9.5 },
  HIGH: { min: 7, max: 8.9, typical: 8 },
  MEDIUM: { min: 4, max: 6.9, typical: 5.5 },
  LOW: { min: 0.1, max: 3.9, typical: 2 },
  NONE: { min: 0, max: 0, typical: 0 },
};
/** The fingerprint's name: a new identity scheme gets a new version, so old alerts are not silently remapped. */
const FINGERPRINT_KEY = 'vexdesk/packageAdvisory/v1';

export function toSarif(input: SarifInput): Log {
  const groups = groupByPackageAndAdvisory(input.findings);
  const kept = groups.slice(0, GITHUB_CODE_SCANNING_LIMITS.resultsPerRun);
  const dropped = groups.length - kept.length;

  // Rules in the order of their most urgent result; each sees every package the advisory hit.
  const byAdvisory = new Map<string, Group[]>();
  for (const group of kept) {
    const list = byAdvisory.get(group.lead.advisory_id);
    if (list) list.push(group);
    else byAdvisory.set(group.lead.advisory_id, [group]);
  }
  const rules = [...byAdvisory].map(([advisoryId, groupsOfRule]) => ruleFor(advisoryId, groupsOfRule));
  const ruleIndex = new Map([...byAdvisory.keys()].map((advisoryId, index) => [advisoryId, index]));
  const uri = sbomUri(input.sbomPath);
  const results = kept.map((group) => resultFor(group, uri, ruleIndex.get(group.lead.advisory_id) ?? 0));

  const run: Run = {
    tool: { driver: { name: 'Vexdesk', informationUri: input.serviceUrl, version: input.toolVersion, rules } },
    results,
    columnKind: 'utf16CodeUnits',
    properties: { findings: input.findings.length, results: results.length, resultsDropped: dropped },
  };
  if (dropped > 0) {
    run.invocations = [
      {
        executionSuccessful: true,
        toolExecutionNotifications: [
          {
            level: 'warning',
            message: {
              text: `${dropped} of ${groups.length} results left out: GitHub code scanning accepts at most ${GITHUB_CODE_SCANNING_LIMITS.resultsPerRun} per run. The least urgent (by decision, KEV, severity, EPSS) were dropped; the vulnerability list has them all.`,
            },
          },
        ],
      },
    ];
  }
  return { $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0', runs: [run] };
}

interface Group {
  /** The finding that speaks for the group (all share the advisory and the package at its version). */
  lead: Finding;
  findings: Finding[];
  identity: string;
  fingerprint: string;
  suppressed: boolean;
}

/**
 * One result per (package at version, advisory), the decision identity of
 * shared/service/dispositions/decision-identity.ts: the same package listed twice (qualifiers
 * differ) is one alert, as it is one decision. Ordered most urgent first, so GitHub's
 * display cut (the first 5,000) and our own limit keep what matters.
 */
function groupByPackageAndAdvisory(findings: readonly Finding[]): Group[] {
  const groups = new Map<string, Group>();
  for (const finding of findings) {
    const identity = packageIdentity({
      componentPurl: finding.component_purl,
      componentName: finding.component_name,
      componentVersion: finding.component_version,
    });
    const key = `${identity}\u0000${finding.advisory_id}`;
    const group = groups.get(key);
    if (group) group.findings.push(finding);
    else
      groups.set(key, {
        lead: finding,
        findings: [finding],
        identity,
        fingerprint: createHash('sha256').update(key).digest('hex'),
        suppressed: suppressionOf(finding) !== undefined,
      });
  }
  return [...groups.values()].sort(byUrgency);
}

function byUrgency(a: Group, b: Group): number {
  return (
    Number(a.suppressed) - Number(b.suppressed) ||
    Number(b.lead.is_kev) - Number(a.lead.is_kev) ||
    SEVERITY_RANK[b.lead.severity] - SEVERITY_RANK[a.lead.severity] ||
    securitySeverity(b.lead) - securitySeverity(a.lead) ||
    (b.lead.epss_score ?? -1) - (a.lead.epss_score ?? -1) ||
    compare(a.lead.advisory_id, b.lead.advisory_id) ||
    compare(a.identity, b.identity)
  );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The score GitHub sorts and bands by: the CVSS score our severity came from, kept only when it
 * falls in that severity's band (a CVSS v2 10.0 is HIGH, which GitHub would show as critical),
 * else the band's typical value.
 */
function securitySeverity(finding: Finding): number {
  const score =
    finding.severity_source === 'cvss_v4'
      ? finding.cvss_v4_score
      : finding.severity_source === 'cvss_v3'
        ? finding.cvss_v3_score
        : finding.severity_source === 'cvss_v2'
          ? finding.cvss_v2_score
          : null;
  const band = BAND[finding.severity];
  return score !== null && score >= band.min && score <= band.max ? score : band.typical;
}

function levelOf(finding: Finding): Level {
  if (finding.informational) return 'note';
  return finding.severity === 'CRITICAL' || finding.severity === 'HIGH'
    ? 'error'
    : finding.severity === 'MEDIUM'
      ? 'warning'
      : 'note';
}

function ruleFor(advisoryId: string, groups: Group[]): ReportingDescriptor {
  const lead = groups[0]!.lead; // a rule exists only for an advisory with a group
  const packages = groups.map((group) => group.lead);
  const summary = lead.summary.trim() || `${advisoryId} in ${lead.component_name}`;
  const tags = [
    'security',
    lead.informational ? 'informational' : 'vulnerability',
    lead.severity.toLowerCase(),
    ...(lead.is_kev ? ['kev'] : []),
    ...(packages.some((finding) => finding.fixed_versions.length > 0) ? ['fixable'] : []),
    ...lead.cwes.map((cwe) => cwe.toUpperCase()),
  ];
  return {
    id: advisoryId,
    shortDescription: { text: clip(`${advisoryId}: ${summary}`, 200) },
    fullDescription: { text: clip(summary, 1000) },
    helpUri: advisoryUrl(advisoryId),
    help: {
      text: helpText(advisoryId, lead, packages),
      markdown: helpMarkdown(advisoryId, lead, packages),
    },
    defaultConfiguration: { level: levelOf(lead) },
    properties: {
      'security-severity': securitySeverity(lead).toFixed(1),
      tags: [...new Set(tags)].slice(0, GITHUB_CODE_SCANNING_LIMITS.tagsShownPerRule),
      severity: lead.severity,
      cveId: lead.cve_id,
      aliases: lead.aliases,
      cvssV4: cvss(lead.cvss_v4_score, lead.cvss_v4_vector),
      cvssV3: cvss(lead.cvss_v3_score, lead.cvss_v3_vector),
      cvssV2: cvss(lead.cvss_v2_score, lead.cvss_v2_vector),
      epss: lead.epss_score === null ? null : { score: lead.epss_score, percentile: lead.epss_percentile },
      kev: lead.kev,
      cwes: lead.cwes,
    },
  };
}

const cvss = (score: number | null, vector: string | null) => (score === null ? null : { score, vector });

function resultFor(group: Group, uri: string, ruleIndex: number): Result {
  const { lead } = group;
  const suppression = suppressionOf(lead);
  const fixed =
    lead.fixed_versions.length > 0 ? `Fixed in ${lead.fixed_versions.join(', ')}.` : 'No fixed version is known.';
  const decision = lead.disposition
    ? ` Decision: ${lead.disposition.status}${lead.disposition.justification ? ` (${lead.disposition.justification})` : ''}${suppression ? '' : ` [${lead.disposition.decision_state}]`}.`
    : '';
  const result: Result = {
    ruleId: lead.advisory_id,
    ruleIndex,
    level: levelOf(lead),
    message: {
      text: `${packageLabel(lead)} is affected by ${lead.advisory_id} (${lead.severity}${lead.is_kev ? ', known exploited' : ''}). ${fixed}${decision}`,
    },
    locations: [
      {
        // Region: line 1 of the SBOM (GitHub shows an alert at a line); the package is the logical location.
        physicalLocation: { artifactLocation: { uri }, region: { startLine: 1 } },
        logicalLocations: logicalLocations(group.findings),
      },
    ],
    // Stable across builds: the package at its version and the advisory, never an upload's ids. The
    // line hash is ours too, else upload-sarif hashes line 1 and every alert of a rule collapses into one.
    partialFingerprints: {
      [FINGERPRINT_KEY]: group.fingerprint,
      primaryLocationLineHash: `${group.fingerprint.slice(0, 16)}:1`,
    },
    properties: {
      packageIdentity: group.identity,
      componentPurl: lead.component_purl,
      componentVersion: lead.component_version,
      matchConfidence: lead.match_confidence,
      isKev: lead.is_kev,
      epssScore: lead.epss_score,
      fixedVersions: lead.fixed_versions,
      decision: lead.disposition
        ? {
            status: lead.disposition.status,
            state: lead.disposition.decision_state,
            justification: lead.disposition.justification,
            response: lead.disposition.response,
          }
        : null,
      findingIds: [
        ...new Set(
          group.findings.flatMap((finding) => ('finding_ids' in finding ? finding.finding_ids : [finding.id])),
        ),
      ],
      ...('sbom_ids' in lead
        ? {
            sbomIds: [...new Set(group.findings.flatMap((finding) => ('sbom_ids' in finding ? finding.sbom_ids : [])))],
          }
        : {}),
    },
  };
  if (suppression) result.suppressions = [suppression];
  return result;
}

function packageLabel(finding: Finding): string {
  return finding.component_version ? `${finding.component_name}@${finding.component_version}` : finding.component_name;
}

function logicalLocations(findings: Finding[]): LogicalLocation[] {
  const seen = new Map<string, LogicalLocation>();
  for (const finding of findings) {
    const fullyQualifiedName = finding.component_purl ?? packageLabel(finding);
    if (!seen.has(fullyQualifiedName))
      seen.set(fullyQualifiedName, { name: finding.component_name, fullyQualifiedName, kind: 'module' });
  }
  return [...seen.values()].slice(0, GITHUB_CODE_SCANNING_LIMITS.locationsPerResult);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A decision that counts and says the product is not exposed (not_affected, fixed) suppresses the
 * alert, as a reviewed external decision. Expired and review_required decisions count as undecided
 * (decision-identity.ts effectiveStatus), so their alerts stay open.
 */
function suppressionOf(finding: Finding): Suppression | undefined {
  const decision = finding.disposition;
  if (!decision || (decision.decision_state !== 'decided' && decision.decision_state !== 'carried')) return undefined;
  if (decision.status !== 'not_affected' && decision.status !== 'fixed') return undefined;
  const why = [
    `Vexdesk decision: ${decision.status}`,
    ...(decision.justification ? [`justification: ${decision.justification}`] : []),
    ...(decision.response ? [`response: ${decision.response}`] : []),
    ...(decision.carried_from ? [`carried from release ${decision.carried_from.release_version}`] : []),
    ...(decision.imported_from
      ? [
          `imported from a ${decision.imported_from.format} document (sha256 ${decision.imported_from.document_sha256.slice(0, 12)})`,
        ]
      : []),
    ...(decision.expires_at ? [`until ${decision.expires_at}`] : []),
  ];
  return {
    kind: 'external',
    status: 'accepted',
    justification: why.join('; '),
    ...(UUID.test(decision.id) ? { guid: decision.id } : {}),
  };
}

/** The SBOM path as a relative URI reference: forward slashes, each segment percent-encoded (spaces, `#`, `?`). */
function sbomUri(path: string): string {
  return path
    .replace(/\\/g, '/')
    .replace(/^(?:\.\/)+/, '')
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
