/**
 * CycloneDX 1.6 VEX: a BOM whose `vulnerabilities[]` carry the analysis. The affected
 * components are embedded (`components[]`) so every `affects[].ref` resolves inside the
 * document; the release is `metadata.component`.
 */
import type { PreparedStatement, PreparedVex, PreparedVulnerability } from './prepare';
import { groupStatements, latestUpdate, prepareVex, cweIdNumber } from './prepare';
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
  genericPurl,
  namespaceBase,
  sha256Hex,
  shortHash,
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

function componentOf(c: VexComponent): CdxComponent {
  const out: CdxComponent = { type: 'library', 'bom-ref': c.ref, name: c.name };
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
  const parts = [s.status === 'not_affected' ? s.impactStatement : null, s.detail].filter((p): p is string => p !== null);
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

function affectsOf(s: PreparedStatement): CdxVulnerability['affects'][number] {
  const versions: Array<{ version: string; status: CdxAffectedStatus }> = [];
  const own = s.component.version;
  if (own !== null) versions.push({ version: own, status: CYCLONEDX_VERSION_STATUS[s.status] });
  // Advisory fix versions of the same component: machine-readable "these are not affected".
  for (const v of s.fixedVersions) if (v !== own) versions.push({ version: v, status: 'unaffected' });
  return versions.length > 0 ? { ref: s.component.ref, versions } : { ref: s.component.ref };
}

function vulnerabilityEntries(v: PreparedVulnerability): CdxVulnerability[] {
  const source = vulnSource(v.id);
  const ratings = [v.cvssV4, v.cvssV3, v.cvssV2].filter((c): c is NormalizedCvss => c !== null).map(rating);
  const cwes = v.cwes.map(cweIdNumber).filter((n) => n > 0);
  const references = v.aliases.map((id) => ({ id, source: vulnSource(id) }));

  return groupStatements(v.statements, assertionKey).map((group): CdxVulnerability => {
    const s = group[0]!; // groups are never empty
    const entry: CdxVulnerability = {
      'bom-ref': `vexdesk:vuln:${v.id}:${shortHash(group.map((g) => g.component.ref).join('\n'), 12)}`,
      id: v.id,
      source,
      analysis: { state: CYCLONEDX_STATE[s.status] },
      affects: group.map(affectsOf),
    };
    if (references.length > 0) entry.references = references;
    if (ratings.length > 0) entry.ratings = ratings;
    if (cwes.length > 0) entry.cwes = cwes;
    if (v.summary !== null) entry.description = v.summary;
    if (s.status === 'affected') entry.recommendation = s.actionStatement;
    if (s.justification !== null) entry.analysis.justification = CYCLONEDX_JUSTIFICATION[s.justification];
    if (s.response !== null) entry.analysis.response = [CYCLONEDX_RESPONSE[s.response]];
    const detail = analysisDetail(s);
    if (detail !== undefined) entry.analysis.detail = detail;
    const updated = latestUpdate(group);
    if (updated !== null) entry.analysis.lastUpdated = updated;

    const props: CdxProperty[] = [{ name: 'vexdesk:status', value: s.status }];
    if (!s.triaged) props.push({ name: 'vexdesk:triaged', value: 'false' });
    // Original label: CycloneDX's justification vocabulary cannot round-trip ours.
    if (s.justification !== null) props.push({ name: 'vexdesk:justification', value: s.justification });
    if (v.isKev) props.push({ name: 'vexdesk:cisa_kev', value: 'true' });
    // EPSS is a probability, not a severity rating: CycloneDX ratings have no method for it.
    if (v.epss !== null) {
      props.push({ name: 'vexdesk:epss:score', value: String(v.epss.score) });
      props.push({ name: 'vexdesk:epss:percentile', value: String(v.epss.percentile) });
    }
    for (const id of group.flatMap((g) => g.findingIds)) props.push({ name: 'vexdesk:finding', value: id });
    entry.properties = props;
    return entry;
  });
}

export function generateCycloneDxVexFromPrepared(prepared: PreparedVex): CycloneDxVexDocument {
  const { input } = prepared;
  const doc = input.document;
  const metadata: CycloneDxVexDocument['metadata'] = {
    timestamp: doc.generatedAt,
    tools: { components: [{ type: 'application', 'bom-ref': 'vexdesk:generator', name: GENERATOR_NAME, version: GENERATOR_VERSION }] },
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
    components: prepared.components.map(componentOf),
    vulnerabilities: prepared.vulnerabilities.flatMap(vulnerabilityEntries),
  });
}

/** CycloneDX 1.6 VEX document (plain object, keys already in canonical order). */
export function generateCycloneDxVex(input: VexGenerationInput): CycloneDxVexDocument {
  return generateCycloneDxVexFromPrepared(prepareVex(input));
}
