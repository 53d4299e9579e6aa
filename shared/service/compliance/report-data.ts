/**
 * Gathers a release's compliance report input from the stores (spec "Compliance
 * report") and renders it. The renderer (report.ts) does no I/O; this module does
 * all of it, and knows nothing of HTTP.
 *
 * Reads for one release: release + product, team and settings, SBOM items and their
 * stored inventories, findings, dispositions, VEX documents with their approval
 * trails, and the disclosure of each published document. Every read is a key lookup
 * or a query of the product's item collection; nothing scans.
 */
import { config } from '../config';
import { NotFoundError } from '../errors';
import { Disclosures, type Disclosure } from '../disclosures/disclosures';
import { dispositionStore, type Disposition } from '../dispositions/disposition-store';
import { countedDecision, decisionIndex } from '../dispositions/decision-identity';
import { TeamSettingsService } from '../identity/team-settings';
import { Teams } from '../identity/teams';
import { Releases } from '../releases/releases';
import { justificationValue, responseValue } from '../schemas/dispositions';
import { sbomStore, type Sbom } from '../sboms/sbom-store';
import { findingStore, shownTo, type Finding } from '../scans/finding-store';
import { vexStore, type VexDocumentRecord } from '../vex/vex-store';
import { caseStore, type CraCase } from '../cra/case-store';
import { deadlinesOf } from '../cra/rules';
import type { ComplianceReportInput } from './model';
import type { RenderedReport } from './report';
import { DEFAULT_SLA_POLICY } from './sla';

type ReportComponentInput = NonNullable<ComplianceReportInput['components']>[number];
type ReportFindingInput = NonNullable<ComplianceReportInput['findings']>[number];
type ReportVexInput = NonNullable<ComplianceReportInput['vexDocuments']>[number];

/**
 * One inventory row per distinct component across the release's SBOMs: two SBOMs of
 * the same release (e.g. a CycloneDX and an SPDX export) list the same packages.
 */
async function releaseComponents(sboms: Sbom[]): Promise<ReportComponentInput[]> {
  const inventories = await Promise.all(sboms.map((sbom) => sbomStore.readInventory(sbom)));
  const byIdentity = new Map<string, ReportComponentInput>();
  for (const component of inventories.flat()) {
    const identity =
      component.purl ?? `${component.group ?? ''}\u0000${component.name}\u0000${component.version ?? ''}`;
    if (byIdentity.has(identity)) continue;
    byIdentity.set(identity, {
      name: component.name,
      version: component.version ?? null,
      purl: component.purl ?? null,
      licenses: component.licenses,
    });
  }
  return [...byIdentity.values()];
}

function toReportFinding(finding: Finding, disposition: Disposition | undefined): ReportFindingInput {
  return {
    id: finding.id,
    cveId: finding.cveId,
    componentName: finding.componentName,
    componentVersion: finding.componentVersion,
    severity: finding.severity,
    cvssV2Score: finding.cvssV2?.score ?? null,
    cvssV3Score: finding.cvssV3?.score ?? null,
    cvssV4Score: finding.cvssV4?.score ?? null,
    epssScore: finding.epss?.score ?? null,
    epssPercentile: finding.epss?.percentile ?? null,
    isKev: finding.kev !== null,
    kevDueDate: finding.kev?.dueDate ?? null,
    firstDetectedAt: finding.firstDetectedAt,
    disposition: disposition
      ? {
          status: disposition.status,
          // The store types these as text; the write path only ever stores the schema's values.
          justification: justificationValue.nullable().parse(disposition.justification),
          response: responseValue.nullable().parse(disposition.response),
          detail: disposition.detail,
          updatedAt: disposition.updatedAt,
          decidedAt: disposition.decidedAt,
        }
      : null,
  };
}

/** The snapshot behind a published document; null if it cannot be read (the report still renders). */
async function publishedDisclosure(document: VexDocumentRecord): Promise<Disclosure | null> {
  if (!document.disclosure) return null;
  try {
    return await Disclosures.get(document.disclosure.slug);
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

async function toReportVexDocument(document: VexDocumentRecord): Promise<ReportVexInput> {
  const [approvals, disclosure] = await Promise.all([vexStore.approvals(document), publishedDisclosure(document)]);
  return {
    id: document.id,
    format: document.format,
    workflowStatus: document.workflowStatus,
    version: document.version,
    author: document.author,
    approvals: approvals.map((approval) => ({
      action: approval.action,
      actorName: approval.actorName,
      comment: approval.comment || null,
      createdAt: approval.createdAt,
    })),
    disclosure: disclosure
      ? {
          publicSlug: disclosure.slug,
          // Relative, like the API's own `links`; the renderer resolves them against baseUrl.
          url: `/api/disclosures/${disclosure.slug}`,
          verifyUrl: `/api/disclosures/${disclosure.slug}/verify`,
          contentHash: `sha256:${disclosure.contentHash}`,
          publishedAt: disclosure.publishedAt,
          signed: disclosure.signature !== null,
        }
      : null,
  };
}

type ReportCraCaseInput = NonNullable<ComplianceReportInput['craCases']>[number];

function toReportCraCase(craCase: CraCase): ReportCraCaseInput {
  return {
    id: craCase.id,
    vulnerabilityId: craCase.vulnerabilityId,
    aliases: craCase.aliases,
    status: craCase.status,
    awareAt: craCase.awareAt,
    affectedVersions: craCase.affected.map((affected) => affected.version),
    deadlines: deadlinesOf(craCase.awareAt, craCase.fix?.availableAt ?? null),
    submissions: craCase.submissions.map((submission) => ({
      stage: submission.stage,
      submittedAt: submission.submittedAt,
      reference: submission.reference,
    })),
    usersInformedAt: craCase.usersInformed?.informedAt ?? null,
    dismissalReason: craCase.dismissal?.reason ?? null,
  };
}

export interface AssembleOptions {
  /** The report's generation time and the SLA's "now"; defaults to the current time. */
  now?: Date;
}

export const ComplianceReports = {
  /** Everything the renderer needs for one release; 404 (NotFoundError) for a release outside the team. */
  async assemble(teamId: string, releaseId: string, options: AssembleOptions = {}): Promise<ComplianceReportInput> {
    const { release, product } = await Releases.resolve(teamId, releaseId);
    const [team, settings, sboms, findings, dispositions, documents, craCases] = await Promise.all([
      Teams.get(teamId),
      TeamSettingsService.get(teamId),
      sbomStore.listByRelease(teamId, product.id, release.id),
      findingStore.listByRelease(teamId, product.id, release.id),
      dispositionStore.listByRelease(teamId, product.id, release.id),
      vexStore.listByRelease(teamId, product.id, release.id),
      // Cases are few per team (actively exploited vulnerabilities in shipped products): one query of its CRA partition.
      caseStore.list(teamId),
    ]);
    const [components, vexDocuments] = await Promise.all([
      releaseComponents(sboms),
      Promise.all(documents.map(toReportVexDocument)),
    ]);
    const decisionOf = decisionIndex(dispositions);
    // An expired decision, or one carried from another version and not yet confirmed, counts as undecided.
    const now = (options.now ?? new Date()).toISOString();
    const policy = settings.slaPolicy;
    const customised = (Object.keys(DEFAULT_SLA_POLICY) as (keyof typeof DEFAULT_SLA_POLICY)[]).some(
      (field) => policy[field] !== DEFAULT_SLA_POLICY[field],
    );

    return {
      team: { id: team.id, name: team.name },
      product: {
        id: product.id,
        name: product.name,
        slug: product.slug,
        vendor: product.vendor,
        description: product.description,
        websiteUrl: product.websiteUrl,
        repositoryUrl: product.repositoryUrl,
      },
      release: {
        id: release.id,
        version: release.version,
        name: release.name,
        releaseDate: release.releaseDate,
        endOfLifeDate: release.endOfLifeDate,
        status: release.status,
        isLocked: release.lockedBy !== null,
      },
      sboms: sboms.map((sbom) => ({
        id: sbom.id,
        format: sbom.format,
        specVersion: sbom.specVersion,
        toolName: sbom.toolName,
        fileHash: sbom.fileHash,
        uploadedAt: sbom.createdAt,
        fileName: sbom.fileName,
        componentCount: sbom.componentCount,
        scannedAt: sbom.scan.scannedAt,
      })),
      components,
      // Findings a later scan no longer matched are history, not current exposure (as in VEX generation);
      // informational notices the team hides are left out as in its vulnerability lists.
      findings: findings
        .filter((finding) => !finding.noLongerDetected)
        .filter(shownTo(settings))
        .map((finding) => toReportFinding(finding, countedDecision(decisionOf(finding), now))),
      vexDocuments,
      craCases: craCases
        .filter((craCase) => craCase.affected.some((affected) => affected.releaseId === release.id))
        .map(toReportCraCase),
      // null means "service defaults" in the report; a team policy equal to them reads the same.
      slaPolicy: customised ? policy : null,
      generatedAt: (options.now ?? new Date()).toISOString(),
      baseUrl: config().publicBaseUrl,
    };
  },

  /** Assembles and renders the HTML report of a release. */
  async render(teamId: string, releaseId: string, options: AssembleOptions = {}): Promise<RenderedReport> {
    // The renderer (nunjucks and the templates, ~150 KB) loads while the release's data is read, not at
    // cold start: in a fresh container its load overlaps the table reads instead of preceding them.
    const renderer = import('./report');
    // Awaited below, where a failure surfaces; this keeps it from being unhandled when assemble throws first.
    renderer.catch(() => undefined);
    const input = await ComplianceReports.assemble(teamId, releaseId, options);
    return (await renderer).renderComplianceReport(input);
  },
};
