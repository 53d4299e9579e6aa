/**
 * Turns validated report data into the template context: sorting, counting, SLA,
 * framework assessments and display strings. Templates only loop and print, so the
 * rules live here where they are typed and unit-testable, and rendering stays fast.
 */
import { craCaseRows, type CraCaseRowView } from './cra-cases';
import { assessFrameworks, type FrameworkAssessments } from './assessments';
import {
  buildFindingRows,
  compareFindings,
  compareText,
  DISPOSITION_COLUMNS,
  DISPOSITION_LABELS,
  dispositionColumn,
  type FindingRow,
} from './finding-rows';
import type { Assessment, EvidenceStatus } from './frameworks/evidence';
import { collectFacts, type ReportFacts } from './report-facts';
import { formatCount, formatDate, formatDateTime, humanize, percent, plural } from './format';
import type { ComplianceReportData, ResolvedRenderOptions, Severity } from './model';
import { evaluateSla, resolveSlaPolicy, type SlaPolicy, type SlaState, type SlaSummary } from './sla';

export const STATUS_LABELS: Record<EvidenceStatus, string> = {
  met: 'Met',
  partial: 'Partial',
  not_evidenced: 'Not evidenced',
  manual: 'Manual attestation required',
};

const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'none'];
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
  craCases: CraCaseRowView[];
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
    craCases: craCaseRows(data.craCases, data.generatedAt),
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
