/**
 * What a VEX document is generated from: the release's SBOMs, findings and dispositions,
 * assembled into the validated generation input, and the rendering of that input.
 */
import { config } from '../config';
import { ConflictError } from '../errors';
import { Teams } from '../identity/teams';
import type { ResolvedRelease } from '../releases/release-store';
import type { Finding } from '../scans/finding-store';
import { findingsDigest } from '../scans/findings-digest';
import { isCveId } from '../matching/cve-id';
import type { Disposition } from '../dispositions/disposition-store';
import { Dispositions } from '../dispositions/dispositions';
import { countedDecision, decisionIndex, detailWithProvenance } from '../dispositions/decision-identity';
import { sbomStore, type Sbom } from '../sboms/sbom-store';
import type { VexFormat } from '../schemas/vex';
import type { VexGenerationInput } from './model';
import type { VexDocumentRecord } from './vex-store';
import { cweNames } from './cwe-names';

/** Findings merged across the release's SBOMs: one per (component, advisory), the most recently triaged one wins. */
function selectFindings(findings: Finding[], decisionOf: (finding: Finding) => Disposition | undefined): Finding[] {
  const chosen = new Map<string, Finding>();
  for (const finding of findings) {
    if (finding.noLongerDetected) continue;
    const key = `${finding.componentPurl ?? `${finding.componentName}@${finding.componentVersion ?? ''}`}\u0000${finding.advisoryId}`;
    const current = chosen.get(key);
    const updatedAt = (candidate: Finding) => decisionOf(candidate)?.updatedAt ?? '';
    if (!current || updatedAt(finding) > updatedAt(current)) chosen.set(key, finding);
  }
  return [...chosen.values()];
}

/**
 * The release's findings from each SBOM's digest (shared/service/scans/findings-digest.ts), in the
 * order a read of the release's finding items returns them (SBOM id, then finding id), so
 * the documents are the same as when they were read from the table.
 */
async function releaseFindings(sboms: readonly Sbom[]): Promise<Finding[]> {
  const bySbomId = [...sboms].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return (await Promise.all(bySbomId.map((sbom) => findingsDigest.read(sbom)))).flat();
}

/** Reads the release's SBOMs, findings and dispositions and assembles the validated generation input (exported for the VEX bench's breakdown). */
export async function buildInput(
  teamId: string,
  resolved: ResolvedRelease,
  document: {
    id: string;
    version: number;
    author: string | null;
    createdAt: string;
    revisions: VexDocumentRecord['revisions'];
    sbomId?: string | null;
  },
  generatedAt: string,
  status: 'draft' | 'final',
): Promise<{ input: VexGenerationInput; sbomIds: string[] }> {
  const { product, release } = resolved;
  const [team, releaseSboms, dispositionList] = await Promise.all([
    Teams.get(teamId),
    sbomStore.listByRelease(teamId, product.id, release.id),
    Dispositions.listByRelease(teamId, product.id, release.id),
  ]);
  // A document bound to one SBOM states that SBOM's findings only: consumers apply a VEX to the BOM it names.
  const sboms = document.sbomId ? releaseSboms.filter((sbom) => sbom.id === document.sbomId) : releaseSboms;
  if (document.sbomId && sboms.length === 0)
    throw new ConflictError('The SBOM this document is bound to was deleted; create a new document', 'sbom_deleted');
  const findings = await releaseFindings(sboms);
  const decisionOf = decisionIndex(dispositionList);
  const selected = selectFindings(findings, decisionOf);
  const components = new Map<string, VexGenerationInput['components'][number]>();
  for (const finding of selected) {
    if (!components.has(finding.componentRef)) {
      components.set(finding.componentRef, {
        ref: finding.componentRef,
        name: finding.componentName,
        version: finding.componentVersion,
        purl: finding.componentPurl,
        cpes: [],
        sbomId: finding.sbomId,
      });
    }
  }
  const input: VexGenerationInput = {
    document: {
      id: document.id,
      version: document.version,
      author: document.author,
      generatedAt,
      createdAt: document.createdAt,
      status,
      publisherName: product.vendor ?? team.name,
      publisherNamespace: `${config().publicBaseUrl}/teams/${teamId}`,
      revisions: document.revisions,
    },
    product: { id: product.id, name: product.name, vendor: product.vendor, slug: product.slug },
    release: { id: release.id, version: release.version, purl: release.purl },
    sboms: sboms.map((sbom) => ({
      id: sbom.id,
      format: sbom.format,
      specVersion: sbom.specVersion,
      fileHash: sbom.fileHash,
      serialNumber: sbom.bomIdentity?.serialNumber ?? null,
      bomVersion: sbom.bomIdentity?.version ?? null,
    })),
    components: [...components.values()],
    findings: selected.map((finding) => {
      // Expired or awaiting review: stated as not yet triaged.
      const disposition = countedDecision(decisionOf(finding), generatedAt);
      return {
        id: finding.id,
        componentRef: finding.componentRef,
        cveId: isCveId(finding.cveId) ? finding.cveId : null,
        advisoryId: finding.advisoryId,
        aliases: finding.aliases,
        summary: finding.summary || null,
        cwes: finding.cwes,
        cvssV2: finding.cvssV2,
        cvssV3: finding.cvssV3,
        cvssV4: finding.cvssV4,
        epss: finding.epss ? { score: finding.epss.score, percentile: finding.epss.percentile } : null,
        isKev: finding.kev !== null,
        fixedVersions: finding.fixedVersions,
        disposition: disposition
          ? {
              status: disposition.status,
              justification: disposition.justification as never,
              response: disposition.response as never, // validated enums on write
              detail: detailWithProvenance(disposition),
              actionStatement: disposition.actionStatement,
              impactStatement: disposition.impactStatement,
              updatedAt: disposition.updatedAt,
            }
          : null,
      };
    }),
  };
  const names = await cweNames(new Set(selected.flatMap((finding) => finding.cwes)));
  if (Object.keys(names).length > 0) input.cweNames = names;
  // Validated once, by the generators (prepareVex: a 422 on bad input), before anything is stored.
  return { input, sbomIds: sboms.map((sbom) => sbom.id) };
}

/**
 * The generators (and the CVSS calculator they score with) load on the first
 * generation, not at cold start: most of this function's operations (list,
 * get, submit, approve, reject) never render (docs/architecture/cold-starts.md
 * "Bundles").
 */
export async function loadFormats() {
  return import('./formats/index');
}

/** The stored text (hashed, signed, served raw) and the same document as an object, for the JSON response without parsing the text back. */
export async function render(
  format: VexFormat,
  input: VexGenerationInput,
): Promise<{ text: string; document: object }> {
  const { generateVex, serializeVex } = await loadFormats();
  const document = generateVex(format, input);
  return { text: serializeVex(document), document };
}
