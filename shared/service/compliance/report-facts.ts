/**
 * The facts every framework checklist (and the report's summary) is assessed from, computed once
 * from the report data.
 */
import { plural } from './format';
import type { ComplianceReportData, ReportFinding, ReportVexDocument } from './model';
import type { SlaPolicy, SlaSummary } from './sla';

type PublishedDisclosure = NonNullable<ReportVexDocument['disclosure']> & {
  format: ReportVexDocument['format'];
  documentVersion: number;
};

/** Everything the checklists (and the summary) need, computed once. */
export interface ReportFacts {
  sbomCount: number;
  sbomLabels: string[];
  sbomToolNames: string[];
  declaredComponents: number;
  inventoryCount: number;
  withVersion: number;
  withPurl: number;
  withLicense: number;
  scanned: boolean;
  lastScannedAt: string | null;
  findingCount: number;
  kevCount: number;
  kevUnresolved: number;
  fixed: number;
  notAffected: number;
  underInvestigation: number;
  undisposed: number;
  affectedRemediating: number;
  affectedAcceptedRisk: number;
  affectedWithoutResponse: number;
  /** Not fixed and not not_affected: still present in this release. */
  openKnown: number;
  /** Without a final disposition (see sla.ts). */
  notFinal: number;
  sla: SlaSummary;
  policy: SlaPolicy;
  policyCustomised: boolean;
  vexCount: number;
  vexByStatus: Record<ReportVexDocument['workflowStatus'], number>;
  disclosures: PublishedDisclosure[];
  signedDisclosures: number;
  latestDisclosure: PublishedDisclosure | null;
  /** Findings whose disposition changed after the latest public disclosure. */
  changedSinceDisclosure: number;
}

const REMEDIATING_RESPONSES = new Set(['update', 'rollback', 'workaround_available']);
const ACCEPTED_RISK_RESPONSES = new Set(['will_not_fix', 'can_not_fix']);

export function collectFacts(data: ComplianceReportData, sla: SlaSummary, policy: SlaPolicy): ReportFacts {
  let withVersion = 0;
  let withPurl = 0;
  let withLicense = 0;
  for (const component of data.components) {
    if (component.version) withVersion += 1;
    if (component.purl) withPurl += 1;
    if (component.licenses.length > 0) withLicense += 1;
  }

  const counts = {
    kev: 0,
    kevUnresolved: 0,
    fixed: 0,
    notAffected: 0,
    underInvestigation: 0,
    undisposed: 0,
    remediating: 0,
    accepted: 0,
    noResponse: 0,
  };
  for (const finding of data.findings) {
    const status = finding.disposition?.status;
    const resolved = status === 'fixed' || status === 'not_affected';
    if (finding.isKev) {
      counts.kev += 1;
      if (!resolved) counts.kevUnresolved += 1;
    }
    if (finding.disposition === null) counts.undisposed += 1;
    else if (status === 'fixed') counts.fixed += 1;
    else if (status === 'not_affected') counts.notAffected += 1;
    else if (status === 'under_investigation') counts.underInvestigation += 1;
    else {
      const response = finding.disposition.response;
      if (response === null) counts.noResponse += 1;
      else if (REMEDIATING_RESPONSES.has(response)) counts.remediating += 1;
      else if (ACCEPTED_RISK_RESPONSES.has(response)) counts.accepted += 1;
    }
  }

  const disclosures: PublishedDisclosure[] = data.vexDocuments
    .flatMap((doc) => (doc.disclosure ? [{ ...doc.disclosure, format: doc.format, documentVersion: doc.version }] : []))
    .sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt));
  const latestDisclosure = disclosures[0] ?? null;
  const latestMs = latestDisclosure ? Date.parse(latestDisclosure.publishedAt) : Number.NaN;
  const changedSinceDisclosure = latestDisclosure
    ? data.findings.filter(
        (f: ReportFinding) => f.disposition !== null && Date.parse(f.disposition.updatedAt) > latestMs,
      ).length
    : 0;

  const scanTimes = data.sboms.flatMap((sbom) => (sbom.scannedAt ? [sbom.scannedAt] : [])).sort();
  const vexByStatus = { draft: 0, submitted: 0, approved: 0, published: 0 };
  for (const doc of data.vexDocuments) vexByStatus[doc.workflowStatus] += 1;

  return {
    sbomCount: data.sboms.length,
    sbomLabels: data.sboms.map(
      (sbom) =>
        `${sbom.format}${sbom.specVersion ? ` ${sbom.specVersion}` : ''}, ${plural(sbom.componentCount, 'component')}`,
    ),
    sbomToolNames: [...new Set(data.sboms.flatMap((sbom) => (sbom.toolName ? [sbom.toolName] : [])))],
    declaredComponents: data.sboms.reduce((sum, sbom) => sum + sbom.componentCount, 0),
    inventoryCount: data.components.length,
    withVersion,
    withPurl,
    withLicense,
    // Findings only exist after a scan, so they prove one even without a recorded scan time.
    scanned: scanTimes.length > 0 || data.findings.length > 0,
    lastScannedAt: scanTimes.at(-1) ?? null,
    findingCount: data.findings.length,
    kevCount: counts.kev,
    kevUnresolved: counts.kevUnresolved,
    fixed: counts.fixed,
    notAffected: counts.notAffected,
    underInvestigation: counts.underInvestigation,
    undisposed: counts.undisposed,
    affectedRemediating: counts.remediating,
    affectedAcceptedRisk: counts.accepted,
    affectedWithoutResponse: counts.noResponse,
    openKnown: data.findings.length - counts.fixed - counts.notAffected,
    notFinal: counts.undisposed + counts.underInvestigation + counts.noResponse,
    sla,
    policy,
    policyCustomised: data.slaPolicy !== null && Object.values(data.slaPolicy).some((value) => value !== undefined),
    vexCount: data.vexDocuments.length,
    vexByStatus,
    disclosures,
    signedDisclosures: disclosures.filter((d) => d.signed).length,
    latestDisclosure,
    changedSinceDisclosure,
  };
}
