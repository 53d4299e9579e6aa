/**
 * CycloneDX 1.6 VEX: a BOM whose `vulnerabilities[]` carry the analysis. The affected
 * components are embedded (`components[]`) so every `affects[].ref` resolves inside the
 * document; the release is `metadata.component`.
 */
import type { PreparedStatement, PreparedVex, PreparedVulnerability } from './prepare';
import { STATUS_PRECEDENCE, groupStatements, latestUpdate, prepareVex, cweIdNumber } from './prepare';
import type { NormalizedCvss } from './cvss';
import {
  CYCLONEDX_JUSTIFICATION,
  CYCLONEDX_RESPONSE,
  CYCLONEDX_STATE,
  CYCLONEDX_VERSION_STATUS,
  type CdxAffectedStatus,
  type CdxAnalysisState,
  type CdxJustification,
  type CdxResponse,
} from './mapping';
import { canonicalize } from './serialize';
import {
  GENERATOR_NAME,
  GENERATOR_VERSION,
  UUID,
  bomLink,
  componentLabel,
  genericPurl,
  namespaceBase,
  sha256Hex,
  uuidV5,
  validPurl,
  vulnSource,
} from './util';
import type { VexComponent, VexGenerationInput } from '../model';

export const CYCLONEDX_SPEC_VERSION = '1.6';
export const CYCLONEDX_SCHEMA_URL = 'http://cyclonedx.org/schema/bom-1.6.schema.json';
/** Property namespace of Vexdesk data that CycloneDX has no field for. */
export const CYCLONEDX_PROPERTY_PREFIX = 'vexdesk:';

export interface CdxProperty {
  name: string;
  value: string;
}
export interface CdxOrganization {
  name: string;
  url?: string[];
}
export interface CdxExternalReference {
  type: 'bom';
  url: string;
  comment?: string;
  hashes?: Array<{ alg: 'SHA-256'; content: string }>;
}
export interface CdxComponent {
  type: 'application' | 'library';
  'bom-ref': string;
  name: string;
  version?: string;
  purl?: string;
  cpe?: string;
  supplier?: CdxOrganization;
  externalReferences?: CdxExternalReference[];
  properties?: CdxProperty[];
}
export type CdxRatingMethod = 'CVSSv2' | 'CVSSv3' | 'CVSSv31' | 'CVSSv4';
export interface CdxRating {
  method: CdxRatingMethod;
  score: number;
  severity: 'critical' | 'high' | 'medium' | 'low' | 'info' | 'none' | 'unknown';
  vector: string;
}
export interface CdxVulnerability {
  'bom-ref': string;
  id: string;
  source: { name: string; url: string };
  references?: Array<{ id: string; source: { name: string; url: string } }>;
  ratings?: CdxRating[];
  cwes?: number[];
  description?: string;
  recommendation?: string;
  analysis: {
    state: CdxAnalysisState;
    justification?: CdxJustification;
    response?: CdxResponse[];
    detail?: string;
    lastUpdated?: string;
  };
  affects: Array<{ ref: string; versions?: Array<{ version: string; status: CdxAffectedStatus }> }>;
  properties?: CdxProperty[];
}
export interface CycloneDxVexDocument {
  $schema: typeof CYCLONEDX_SCHEMA_URL;
  bomFormat: 'CycloneDX';
  specVersion: typeof CYCLONEDX_SPEC_VERSION;
  serialNumber: string;
  version: number;
  metadata: {
    timestamp: string;
    tools: { components: CdxComponent[] };
    authors?: Array<{ name: string }>;
    manufacturer: CdxOrganization;
    supplier?: CdxOrganization;
    component: CdxComponent;
    properties: CdxProperty[];
  };
  components: CdxComponent[];
  vulnerabilities: CdxVulnerability[];
}

const RATING_METHOD: Readonly<Record<NormalizedCvss['version'], CdxRatingMethod>> = {
  '2.0': 'CVSSv2',
  '3.0': 'CVSSv3',
  '3.1': 'CVSSv31',
  '4.0': 'CVSSv4',
};

/** bom-ref of the release; prefixed so it cannot collide with SBOM refs (purls, SPDXIDs). */
export function cyclonedxReleaseRef(input: VexGenerationInput): string {
  return `vexdesk:release:${input.release.id}`;
}

/**
 * Same serial for every version of one VEX document: CycloneDX identifies revisions of a
 * BOM by (serialNumber, version), and BOM-Links (`urn:cdx:<serial>/<version>`) rely on it.
 */
export function cyclonedxSerialNumber(documentId: string): string {
  return `urn:uuid:${uuidV5(`vexdesk:vex:${documentId}`)}`;
}

function rating(c: NormalizedCvss): CdxRating {
  return { method: RATING_METHOD[c.version], score: c.score, severity: c.severity, vector: c.vector };
}

/**
 * The ref a component is published under: a BOM-Link into the uploaded SBOM when that SBOM has a
 * serial number, else its bom-ref (or SPDXID). Trivy applies a CycloneDX VEX only through
 * BOM-Links whose serial and version equal the scanned SBOM's (pkg/vex/cyclonedx.go); the
 * embedded component carries the same string as its bom-ref, because Dependency-Track resolves
 * `affects[].ref` by exact bom-ref inside the VEX (cyclonedx-core-java ObjectLocator) and treats
 * an unresolved BOM-Link as "the whole project" (CycloneDXVexImporter).
 */
export function cyclonedxComponentRef(input: VexGenerationInput, c: VexComponent): string {
  const sbom = c.sbomId === undefined ? undefined : input.sboms.find((s) => s.id === c.sbomId);
  return (sbom && bomLink(sbom.serialNumber, sbom.bomVersion, c.ref)) ?? c.ref;
}

function componentOf(c: VexComponent, ref: string): CdxComponent {
  const out: CdxComponent = { type: 'library', 'bom-ref': ref, name: c.name };
  if (c.version !== null) out.version = c.version;
  const purl = validPurl(c.purl);
  if (purl !== null) out.purl = purl;
  const cpe = c.cpes.map((x) => x.trim()).find((x) => x !== '');
  if (cpe !== undefined) out.cpe = cpe;
  return out;
}

function releaseComponent(prepared: PreparedVex): CdxComponent {
  const { input } = prepared;
  const out: CdxComponent = {
    type: 'application',
    'bom-ref': cyclonedxReleaseRef(input),
    name: input.product.name,
    version: input.release.version,
    purl: validPurl(input.release.purl) ?? genericPurl(input.product.slug, input.release.version),
  };
  if (input.product.vendor !== null) out.supplier = { name: input.product.vendor };
  const refs = input.sboms.map((s): CdxExternalReference => {
    const hash = sha256Hex(s.fileHash);
    const ref: CdxExternalReference = {
      type: 'bom',
      // SBOM ids are uuids in Vexdesk; anything else still gets a stable URN.
      url: UUID.test(s.id) ? `urn:uuid:${s.id.toLowerCase()}` : `urn:vexdesk:sbom:${encodeURIComponent(s.id)}`,
      comment: `Source SBOM (${s.format}${s.specVersion === null ? '' : ` ${s.specVersion}`})`,
    };
    if (hash !== null) ref.hashes = [{ alg: 'SHA-256', content: hash }];
    return ref;
  });
  if (refs.length > 0) out.externalReferences = refs.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  return out;
}

function analysisDetail(s: PreparedStatement): string | undefined {
  // CycloneDX has one free-text field: impact statement first (the "why"), then the analyst's detail.
  const parts = [s.status === 'not_affected' ? s.impactStatement : null, s.detail].filter(
    (p): p is string => p !== null,
  );
  if (!s.triaged) parts.push('Matched by SBOM scan; not yet triaged.');
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

/** Key of the assertion; statements with equal keys share one vulnerability entry. */
function assertionKey(s: PreparedStatement): string {
  return JSON.stringify([
    s.status,
    s.triaged,
    s.justification,
    s.response,
    analysisDetail(s) ?? null,
    s.status === 'affected' ? s.actionStatement : null,
  ]);
}

function affectsOf(s: PreparedStatement, ref: string): CdxVulnerability['affects'][number] {
  const versions: Array<{ version: string; status: CdxAffectedStatus }> = [];
  const own = s.component.version;
  if (own !== null) versions.push({ version: own, status: CYCLONEDX_VERSION_STATUS[s.status] });
  // Advisory fix versions of the same component: machine-readable "these are not affected".
  for (const v of s.fixedVersions) if (v !== own) versions.push({ version: v, status: 'unaffected' });
  return versions.length > 0 ? { ref, versions } : { ref };
}

/** The group whose assertion the entry's single `analysis` states: the least reassuring status, then the first group. */
function leadGroup(groups: PreparedStatement[][]): PreparedStatement[] {
  let lead = groups[0]!; // a vulnerability has at least one statement
  for (const g of groups) if (STATUS_PRECEDENCE[g[0]!.status] > STATUS_PRECEDENCE[lead[0]!.status]) lead = g;
  return lead;
}

/**
 * One entry per vulnerability id with every affected component: Trivy takes the first entry whose
 * id matches (pkg/vex/cyclonedx.go `lo.Find`), so a second entry of the same id would never be
 * read. CycloneDX has one `analysis` per entry; when the components' assertions differ, it states
 * the least reassuring one (never hides an "affected"), each component's own status stays in
 * `affects[].versions[].status` and in `vexdesk:component-status` properties.
 */
function vulnerabilityEntry(v: PreparedVulnerability, refOf: (c: VexComponent) => string): CdxVulnerability {
  const source = vulnSource(v.id);
  const ratings = [v.cvssV4, v.cvssV3, v.cvssV2].filter((c): c is NormalizedCvss => c !== null).map(rating);
  const cwes = v.cwes.map(cweIdNumber).filter((n) => n > 0);
  const references = v.aliases.map((id) => ({ id, source: vulnSource(id) }));
  const groups = groupStatements(v.statements, assertionKey);
  const s = leadGroup(groups)[0]!;
  const mixed = groups.length > 1;

  const entry: CdxVulnerability = {
    'bom-ref': `vexdesk:vuln:${v.id}`,
    id: v.id,
    source,
    analysis: { state: CYCLONEDX_STATE[s.status] },
    affects: v.statements.map((st) => affectsOf(st, refOf(st.component))),
  };
  if (references.length > 0) entry.references = references;
  if (ratings.length > 0) entry.ratings = ratings;
  if (cwes.length > 0) entry.cwes = cwes;
  if (v.summary !== null) entry.description = v.summary;
  if (s.status === 'affected') entry.recommendation = s.actionStatement;
  if (s.justification !== null) entry.analysis.justification = CYCLONEDX_JUSTIFICATION[s.justification];
  if (s.response !== null) entry.analysis.response = [CYCLONEDX_RESPONSE[s.response]];
  const detail = mixed
    ? groups
        .map((g) => {
          const text = analysisDetail(g[0]!);
          return `${g.map((x) => componentLabel(x.component)).join(', ')}: ${g[0]!.status}${text === undefined ? '' : `. ${text}`}`;
        })
        .join('\n\n')
    : analysisDetail(s);
  if (detail !== undefined) entry.analysis.detail = detail;
  const updated = latestUpdate(v.statements);
  if (updated !== null) entry.analysis.lastUpdated = updated;

  const props: CdxProperty[] = [{ name: 'vexdesk:status', value: s.status }];
  if (!s.triaged) props.push({ name: 'vexdesk:triaged', value: 'false' });
  // Original label: CycloneDX's justification vocabulary cannot round-trip ours.
  if (s.justification !== null) props.push({ name: 'vexdesk:justification', value: s.justification });
  if (mixed) {
    for (const st of v.statements) {
      const label = st.justification === null ? st.status : `${st.status} ${st.justification}`;
      props.push({ name: 'vexdesk:component-status', value: `${refOf(st.component)} ${label}` });
    }
  }
  if (v.isKev) props.push({ name: 'vexdesk:cisa_kev', value: 'true' });
  // EPSS is a probability, not a severity rating: CycloneDX ratings have no method for it.
  if (v.epss !== null) {
    props.push({ name: 'vexdesk:epss:score', value: String(v.epss.score) });
    props.push({ name: 'vexdesk:epss:percentile', value: String(v.epss.percentile) });
  }
  for (const id of v.statements.flatMap((g) => g.findingIds)) props.push({ name: 'vexdesk:finding', value: id });
  entry.properties = props;
  return entry;
}

export function generateCycloneDxVexFromPrepared(prepared: PreparedVex): CycloneDxVexDocument {
  const { input } = prepared;
  const doc = input.document;
  const refs = new Map<VexComponent, string>();
  const refOf = (c: VexComponent): string => {
    let ref = refs.get(c);
    if (ref === undefined) refs.set(c, (ref = cyclonedxComponentRef(input, c)));
    return ref;
  };
  const metadata: CycloneDxVexDocument['metadata'] = {
    timestamp: doc.generatedAt,
    tools: {
      components: [
        { type: 'application', 'bom-ref': 'vexdesk:generator', name: GENERATOR_NAME, version: GENERATOR_VERSION },
      ],
    },
    manufacturer: { name: doc.publisherName, url: [namespaceBase(doc.publisherNamespace)] },
    component: releaseComponent(prepared),
    properties: [
      { name: 'vexdesk:document:id', value: doc.id },
      // CycloneDX has no draft/final notion.
      { name: 'vexdesk:document:status', value: doc.status },
    ],
  };
  if (doc.author !== null) metadata.authors = [{ name: doc.author }];
  if (input.product.vendor !== null) metadata.supplier = { name: input.product.vendor };

  return canonicalize<CycloneDxVexDocument>({
    $schema: CYCLONEDX_SCHEMA_URL,
    bomFormat: 'CycloneDX',
    specVersion: CYCLONEDX_SPEC_VERSION,
    serialNumber: cyclonedxSerialNumber(doc.id),
    version: doc.version,
    metadata,
    components: prepared.components.map((c) => componentOf(c, refOf(c))),
    vulnerabilities: prepared.vulnerabilities.map((v) => vulnerabilityEntry(v, refOf)),
  });
}

/** CycloneDX 1.6 VEX document (plain object, keys already in canonical order). */
export function generateCycloneDxVex(input: VexGenerationInput): CycloneDxVexDocument {
  return generateCycloneDxVexFromPrepared(prepareVex(input));
}
