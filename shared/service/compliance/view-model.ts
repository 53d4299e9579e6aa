/**
 * Turns validated report data into the template context: sorting, counting, SLA,
 * framework assessments and display strings. Templates only loop and print, so the
 * rules live here where they are typed and unit-testable, and rendering stays fast.
 */
import {
  assessFrameworks,
  collectFacts,
  type Assessment,
  type EvidenceStatus,
  type FrameworkAssessments,
  type ReportFacts,
} from './assessments';
import { formatCount, formatDate, formatDateTime, formatScore, humanize, percent, plural } from './format';
import type { ComplianceReportData, ReportFinding, ResolvedRenderOptions, Severity } from './model';
import { evaluateSla, resolveSlaPolicy, type SlaPolicy, type SlaResult, type SlaState, type SlaSummary } from './sla';

export const STATUS_LABELS: Record<EvidenceStatus, string> = {
  met: 'Met',
  partial: 'Partial',
  not_evidenced: 'Not evidenced',
  manual: 'Manual attestation required',
};

export const SLA_LABELS: Record<SlaState, string> = {
  met: 'Met',
  breached: 'Breached',
  at_risk: 'At risk',
  open_within: 'Open, within SLA',
};

const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'none'];
const SEVERITY_RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, none: 4 };
const DISPOSITION_COLUMNS = ['affected', 'not_affected', 'fixed', 'under_investigation', 'undisposed'] as const;
type DispositionColumn = (typeof DISPOSITION_COLUMNS)[number];
const DISPOSITION_LABELS: Record<DispositionColumn, string> = {
  affected: 'Affected',
  not_affected: 'Not affected',
  fixed: 'Fixed',
  under_investigation: 'Under investigation',
  undisposed: 'No disposition',
};
const VEX_FORMAT_LABELS: Record<string, string> = { cyclonedx_vex: 'CycloneDX VEX', openvex: 'OpenVEX', csaf: 'CSAF' };
/** EPSS probability bands (FIRST's score is a 30-day exploitation probability). */
const EPSS_BANDS: { label: string; min: number }[] = [
  { label: '≥ 50 %', min: 0.5 },
  { label: '10–50 %', min: 0.1 },
  { label: '1–10 %', min: 0.01 },
  { label: '< 1 %', min: 0 },
];

export interface Link {
  text: string;
  /** Only http(s) URLs become links; anything else is shown as text. */
  href: string | null;
}

export interface AssessmentView extends Assessment {
  label: string;
  signoff: boolean;
}

/** Absolute http(s) URL or null: autoescaping cannot make a `javascript:` href safe. */
export function safeHttpUrl(value: string, base?: string): string | null {
  try {
    const url = base === undefined ? new URL(value) : new URL(value, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function link(value: string | null, base?: string): Link | null {
  if (value === null || value === '') return null;
  const href = safeHttpUrl(value, base);
  return { text: href ?? value, href };
}

/** Cuts at a code-point boundary so a surrogate pair is never split. */
function truncate(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), truncated: true };
}

function compareText(a: string, b: string): number {
  // Code-unit order: deterministic across locales and fast for 10k+ rows.
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareFindings(a: ReportFinding, b: ReportFinding): number {
  if (a.isKev !== b.isKev) return a.isKev ? -1 : 1;
  const bySeverity = SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity];
  if (bySeverity !== 0) return bySeverity;
  const byEpss = (b.epssScore ?? -1) - (a.epssScore ?? -1);
  if (byEpss !== 0) return byEpss;
  return compareText(a.cveId, b.cveId) || compareText(a.componentName, b.componentName);
}

function dispositionColumn(finding: ReportFinding): DispositionColumn {
  return finding.disposition?.status ?? 'undisposed';
}

function assessmentViews(items: Assessment[]): AssessmentView[] {
  return items.map((item) => ({
    ...item,
    label: STATUS_LABELS[item.status],
    signoff: item.status === 'manual' || item.status === 'partial',
  }));
}

function statusCounts(items: Assessment[]): { status: EvidenceStatus; label: string; count: number }[] {
  return (Object.keys(STATUS_LABELS) as EvidenceStatus[]).map((status) => ({
    status,
    label: STATUS_LABELS[status],
    count: items.filter((item) => item.status === status).length,
  }));
}

function buildFindingRows(
  findings: ReportFinding[],
  slaByFinding: Map<ReportFinding, SlaResult>,
  options: ResolvedRenderOptions,
) {
  return findings.map((finding) => {
    const sla = slaByFinding.get(finding);
    const disposition = finding.disposition;
    const detail = disposition?.detail ? truncate(disposition.detail, options.maxDetailChars) : null;
    const decision = disposition ? (disposition.justification ?? disposition.response) : null;
    return {
      cveId: finding.cveId,
      component: finding.componentVersion
        ? `${finding.componentName}@${finding.componentVersion}`
        : finding.componentName,
      severity: finding.severity,
      severityLabel: finding.severity,
      cvssV3: formatScore(finding.cvssV3Score),
      cvssV4: formatScore(finding.cvssV4Score),
      cvssV2: formatScore(finding.cvssV2Score),
      epss: finding.epssScore === null ? '—' : `${(finding.epssScore * 100).toFixed(1)} %`,
      epssPercentile:
        finding.epssPercentile === null ? null : `pct ${(Math.floor(finding.epssPercentile * 1000) / 10).toFixed(1)}`,
      isKev: finding.isKev,
      kevDueDate: finding.kevDueDate ? formatDate(finding.kevDueDate) : null,
      status: dispositionColumn(finding),
      statusLabel: DISPOSITION_LABELS[dispositionColumn(finding)],
      decision: decision ? humanize(decision) : null,
      detail: detail?.text ?? null,
      detailTruncated: detail?.truncated ?? false,
      detectedAt: formatDate(finding.firstDetectedAt),
      slaState: sla?.state ?? 'open_within',
      slaLabel: SLA_LABELS[sla?.state ?? 'open_within'],
      dueAt: sla ? formatDate(sla.dueAt) : '—',
      elapsedDays: sla?.elapsedDays ?? 0,
      remainingDays: sla?.remainingDays ?? null,
      windowDays: sla?.windowDays ?? 0,
      windowSource: sla?.windowSource ?? 'severity',
    };
  });
}

export type FindingRow = ReturnType<typeof buildFindingRows>[number];

export interface ReportViewModel {
  title: string;
  generatedAt: string;
  generatedAtIso: string;
  team: { name: string };
  product: {
    name: string;
    slug: string;
    vendor: string | null;
    description: string | null;
    website: Link | null;
    repository: Link | null;
  };
  release: {
    version: string;
    name: string | null;
    releaseDate: string | null;
    endOfLifeDate: string | null;
    status: string;
    locked: boolean;
  };
  kpis: { label: string; value: string }[];
  sboms: {
    format: string;
    specVersion: string | null;
    toolName: string | null;
    fileName: string | null;
    fileHash: string;
    uploadedAt: string;
    scannedAt: string | null;
    componentCount: string;
    downloadUrl: string;
  }[];
  inventory: {
    rows: { n: number; name: string; version: string; purl: string; licenses: string }[];
    total: number;
    shown: number;
    truncated: boolean;
    declaredTotal: number;
    coverage: string | null;
    mismatch: boolean;
  };
  vulnerabilities: {
    scanned: boolean;
    scanSummary: string;
    total: number;
    matrix: { label: string; severity: string; cells: number[]; total: number }[];
    matrixHeaders: string[];
    matrixTotals: number[];
    kevRows: FindingRow[];
    epssBands: { label: string; count: number }[];
    epssUnknown: number;
    rows: FindingRow[];
    maxDetailChars: number;
    anyDetailTruncated: boolean;
  };
  vex: {
    documents: {
      id: string;
      format: string;
      workflowStatus: string;
      version: number;
      author: string | null;
      approvals: { action: string; actor: string; comment: string | null; at: string }[];
      disclosure: {
        publicSlug: string;
        url: Link | null;
        verifyUrl: Link | null;
        contentHash: string;
        publishedAt: string;
        signed: boolean;
      } | null;
    }[];
    changedSinceDisclosure: number;
  };
  sla: {
    policy: SlaPolicy;
    policySource: string;
    summary: SlaSummary;
    exceptions: FindingRow[];
    acceptedRisk: number;
  };
  frameworks: {
    craPart2: AssessmentView[];
    craPart1: AssessmentView[];
    craReporting: AssessmentView[];
    executiveOrders: AssessmentView[];
    ssdf: { id: string; title: string; practices: { id: string; title: string; tasks: AssessmentView[] }[] }[];
    craCounts: { status: EvidenceStatus; label: string; count: number }[];
    eoCounts: { status: EvidenceStatus; label: string; count: number }[];
    ssdfCounts: { status: EvidenceStatus; label: string; count: number }[];
  };
  statusLegend: { status: EvidenceStatus; label: string }[];
  baseUrl: string;
}

export function buildViewModel(
  data: ComplianceReportData,
  options: ResolvedRenderOptions,
): {
  view: ReportViewModel;
  facts: ReportFacts;
  frameworks: FrameworkAssessments;
} {
  const policy = resolveSlaPolicy(data.slaPolicy);
  const now = new Date(data.generatedAt);
  const evaluation = evaluateSla(data.findings, policy, now);
  const slaByFinding = new Map(evaluation.results.map(({ finding, sla }) => [finding, sla]));
  const facts = collectFacts(data, evaluation.summary, policy);
  const frameworks = assessFrameworks(facts);

  const sortedFindings = [...data.findings].sort(compareFindings);
  const rows = buildFindingRows(sortedFindings, slaByFinding, options);

  const matrixCounts = new Map<Severity, number[]>(SEVERITIES.map((s) => [s, DISPOSITION_COLUMNS.map(() => 0)]));
  for (const finding of data.findings) {
    const cells = matrixCounts.get(finding.severity);
    const column = DISPOSITION_COLUMNS.indexOf(dispositionColumn(finding));
    if (cells) cells[column] = (cells[column] ?? 0) + 1;
  }
  const matrix = SEVERITIES.map((severity) => {
    const cells = matrixCounts.get(severity) ?? [];
    return { severity, label: severity, cells, total: cells.reduce((a, b) => a + b, 0) };
  });

  const epssBands = EPSS_BANDS.map((band) => ({ label: band.label, count: 0 }));
  let epssUnknown = 0;
  for (const finding of data.findings) {
    if (finding.epssScore === null) {
      epssUnknown += 1;
      continue;
    }
    const index = EPSS_BANDS.findIndex((band) => (finding.epssScore ?? 0) >= band.min);
    const band = epssBands[index];
    if (band) band.count += 1;
  }

  const baseUrl = data.baseUrl.endsWith('/') ? data.baseUrl.slice(0, -1) : data.baseUrl;
  const components = [...data.components].sort(
    (a, b) =>
      compareText(a.name, b.name) ||
      compareText(a.version ?? '', b.version ?? '') ||
      compareText(a.purl ?? '', b.purl ?? ''),
  );
  const shownComponents = components.slice(0, options.maxComponentRows);

  const slaStateOrder: Record<SlaState, number> = { breached: 0, at_risk: 1, open_within: 2, met: 3 };
  const exceptions = rows
    .filter((row) => row.slaState !== 'met')
    .sort((a, b) => slaStateOrder[a.slaState] - slaStateOrder[b.slaState] || compareText(a.dueAt, b.dueAt));

  const release = data.release;
  const view: ReportViewModel = {
    title: `Compliance attestation report: ${data.product.name} ${release.version}`,
    generatedAt: formatDateTime(data.generatedAt),
    generatedAtIso: new Date(data.generatedAt).toISOString(),
    team: { name: data.team.name },
    product: {
      name: data.product.name,
      slug: data.product.slug,
      vendor: data.product.vendor,
      description: data.product.description,
      website: link(data.product.websiteUrl),
      repository: link(data.product.repositoryUrl),
    },
    release: {
      version: release.version,
      name: release.name,
      releaseDate: release.releaseDate ? formatDate(release.releaseDate) : null,
      endOfLifeDate: release.endOfLifeDate ? formatDate(release.endOfLifeDate) : null,
      status: humanize(release.status),
      locked: release.isLocked,
    },
    kpis: [
      { label: 'Components', value: formatCount(facts.inventoryCount) },
      { label: 'Findings', value: formatCount(facts.findingCount) },
      { label: 'Known exploited, open', value: formatCount(facts.kevUnresolved) },
      { label: 'SLA breached', value: formatCount(facts.sla.breached) },
      { label: 'SLA at risk', value: formatCount(facts.sla.atRisk) },
      { label: 'Without final decision', value: formatCount(facts.notFinal) },
      { label: 'VEX documents', value: formatCount(facts.vexCount) },
      { label: 'Public disclosures', value: formatCount(facts.disclosures.length) },
    ],
    sboms: data.sboms.map((sbom) => ({
      format: sbom.format,
      specVersion: sbom.specVersion,
      toolName: sbom.toolName,
      fileName: sbom.fileName,
      fileHash: sbom.fileHash,
      uploadedAt: formatDateTime(sbom.uploadedAt),
      scannedAt: sbom.scannedAt ? formatDateTime(sbom.scannedAt) : null,
      componentCount: formatCount(sbom.componentCount),
      downloadUrl: `${baseUrl}/api/sboms/${encodeURIComponent(sbom.id)}/download`,
    })),
    inventory: {
      rows: shownComponents.map((component, index) => ({
        n: index + 1,
        name: component.name,
        version: component.version ?? '—',
        purl: component.purl ?? '—',
        licenses: component.licenses.length > 0 ? component.licenses.join(', ') : '—',
      })),
      total: components.length,
      shown: shownComponents.length,
      truncated: shownComponents.length < components.length,
      declaredTotal: facts.declaredComponents,
      coverage:
        components.length > 0
          ? `${percent(facts.withVersion, components.length)} with a version, ${percent(facts.withPurl, components.length)} with a package URL, ${percent(facts.withLicense, components.length)} with a licence.`
          : null,
      mismatch: data.sboms.length > 0 && facts.declaredComponents !== components.length,
    },
    vulnerabilities: {
      scanned: facts.scanned,
      scanSummary: facts.scanned
        ? `${plural(facts.findingCount, 'finding')}${facts.lastScannedAt ? `; last scan ${formatDateTime(facts.lastScannedAt)}` : ''}.`
        : 'No vulnerability scan is recorded for this release.',
      total: facts.findingCount,
      matrix,
      matrixHeaders: DISPOSITION_COLUMNS.map((column) => DISPOSITION_LABELS[column]),
      matrixTotals: DISPOSITION_COLUMNS.map((_, i) => matrix.reduce((sum, row) => sum + (row.cells[i] ?? 0), 0)),
      kevRows: rows.filter((row) => row.isKev),
      epssBands,
      epssUnknown,
      rows,
      maxDetailChars: options.maxDetailChars,
      anyDetailTruncated: rows.some((row) => row.detailTruncated),
    },
    vex: {
      documents: data.vexDocuments.map((doc) => ({
        id: doc.id,
        format: VEX_FORMAT_LABELS[doc.format] ?? doc.format,
        workflowStatus: doc.workflowStatus,
        version: doc.version,
        author: doc.author,
        approvals: [...doc.approvals]
          .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))
          .map((approval) => ({
            action: approval.action,
            actor: approval.actorName ?? 'unknown actor',
            comment: approval.comment,
            at: formatDateTime(approval.createdAt),
          })),
        disclosure: doc.disclosure
          ? {
              publicSlug: doc.disclosure.publicSlug,
              url: link(doc.disclosure.url, `${baseUrl}/`),
              verifyUrl: link(doc.disclosure.verifyUrl, `${baseUrl}/`),
              contentHash: doc.disclosure.contentHash,
              publishedAt: formatDateTime(doc.disclosure.publishedAt),
              signed: doc.disclosure.signed,
            }
          : null,
      })),
      changedSinceDisclosure: facts.changedSinceDisclosure,
    },
    sla: {
      policy,
      policySource: facts.policyCustomised
        ? 'team policy (missing values from the service defaults)'
        : 'service defaults',
      summary: evaluation.summary,
      exceptions,
      acceptedRisk: facts.affectedAcceptedRisk,
    },
    frameworks: {
      craPart2: assessmentViews(frameworks.craPart2),
      craPart1: assessmentViews(frameworks.craPart1),
      craReporting: assessmentViews(frameworks.craReporting),
      executiveOrders: assessmentViews(frameworks.executiveOrders),
      ssdf: frameworks.ssdf.map((group) => ({
        id: group.id,
        title: group.title,
        practices: group.practices.map((practice) => ({ ...practice, tasks: assessmentViews(practice.tasks) })),
      })),
      craCounts: statusCounts([...frameworks.craPart2, ...frameworks.craPart1, ...frameworks.craReporting]),
      eoCounts: statusCounts(frameworks.executiveOrders),
      ssdfCounts: statusCounts(frameworks.ssdf.flatMap((g) => g.practices.flatMap((p) => p.tasks))),
    },
    statusLegend: (Object.keys(STATUS_LABELS) as EvidenceStatus[]).map((status) => ({
      status,
      label: STATUS_LABELS[status],
    })),
    baseUrl,
  };
  return { view, facts, frameworks };
}
